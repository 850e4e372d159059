// Pieces both integrators share: survivor counters read back once per bounce, the film resolve,
// and the factories makeIntegrator() dispatches to.
#pragma once

#include <memory>

#include "renderer/wavefront/integrator.h"
#include "renderer/wavefront/stages.h"

namespace srt {

// A few uint32 counters in the backend's memory, with a pinned host mirror for the read-back.
class Counters {
 public:
  static constexpr int kCount = 4;
  explicit Counters(const Backend& backend);
  ~Counters();
  Counters(const Counters&) = delete;
  Counters& operator=(const Counters&) = delete;
  uint32_t* device() const { return device_.data(); }
  // Copies the counters to the host after the work queued so far; synchronises the backend.
  const uint32_t* readBack(const Backend& backend);

 private:
  Buffer<uint32_t> device_;
  uint32_t* host_ = nullptr;
  bool pinned_ = false;
};

// The film's sum divided by the sample count, as an image.
Image resolveFilm(const Buffer<Vec3f>& film, const RenderOptions& opt, const Backend& backend);

std::unique_ptr<Integrator> makePathIntegrator(const Scene& scene, const SceneData& data,
                                               const Backend& backend, const RenderOptions& opt,
                                               std::unique_ptr<compaction::Compactor> compactor,
                                               const compaction::Info& info);
std::unique_ptr<Integrator> makeWhittedIntegrator(const Scene& scene, const SceneData& data,
                                                  const Backend& backend, const RenderOptions& opt,
                                                  std::unique_ptr<compaction::Compactor> compactor,
                                                  const compaction::Info& info);

}  // namespace srt
