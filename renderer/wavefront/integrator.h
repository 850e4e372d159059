// The wavefront integrators: streams of rays through camera → extend → shade → shadow → film,
// with the dead rays removed between bounces by the compaction primitive the user picked.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "base/image_io.h"
#include "primitives/compaction/compaction.h"
#include "renderer/backend/backend.h"
#include "renderer/backend/stage_clock.h"
#include "renderer/wavefront/render_stats.h"
#include "renderer/wavefront/scene_data.h"

namespace srt {

struct RenderOptions {
  std::string integrator = "path";  // path | whitted
  int width = 640, height = 480;
  int spp = 16;
  int maxDepth = 8;
  std::string compaction = "auto";  // a registered primitive with options; auto picks by cost
  std::string payload = "state";    // state: compaction moves whole paths; index: an index stream
  uint32_t seed = 0;
  // How the path pool is fed (path tracer): "regenerate" refills freed slots with new camera
  // paths after every bounce; "waves" starts new paths only when the whole pool has died (one
  // wave per sample when the pool holds every pixel: the classic wavefront loop).
  std::string schedule = "regenerate";
  uint32_t poolSize = 0;  // paths in flight; 0: sized from the device (SM count, free memory)
  // Closest-hit and shadow kernels: standard | persistent (CUDA) | auto (persistent on CUDA,
  // where it measured faster on every scene of bench/tracer/RESULTS.md; standard on the CPU).
  std::string traversal = "auto";
  // Ray reordering between passes (path tracer, index payload): "none", or "octant": the stream
  // partitioned by ray-direction octant with eight compactions by the chosen primitive.
  std::string reorder = "none";
  // Path tracer, state payload: compact the pool every N passes. In between, paths that died stay
  // in place as dead lanes (skipped by every stage) and no new paths start, so compaction moves
  // each survivor once per N passes instead of once per pass.
  // 0: auto (every third pass while most paths survive a pass, else every pass): within 1% of
  // the best fixed cadence on every scene of bench/tracer/RESULTS.md.
  uint32_t compactEvery = 0;
  uint32_t firstSample = 0;  // samples [firstSample, firstSample + spp): progressive viewers

  bool operator==(const RenderOptions& o) const {
    return integrator == o.integrator && width == o.width && height == o.height && spp == o.spp &&
           maxDepth == o.maxDepth && compaction == o.compaction && payload == o.payload &&
           seed == o.seed && schedule == o.schedule && poolSize == o.poolSize &&
           traversal == o.traversal && reorder == o.reorder && compactEvery == o.compactEvery &&
           firstSample == o.firstSample;
  }
  bool operator!=(const RenderOptions& o) const { return !(*this == o); }
};

// Called after each sample pass with the passes done so far and the rays traced so far.
using ProgressFn = std::function<void(int done, int total, uint64_t rays)>;

// Stops a render early. The integrator asks after every pass over its streams; once the answer is
// yes no new sample starts and the samples already begun are finished, so the film holds whole
// samples (RenderStats::samplesDone of them) and the image is the one a render of that many
// samples gives, bit for bit. Either member may be set; either stops.
struct StopCondition {
  // Set from another thread or a signal handler (lock-free, so async-signal-safe to store to).
  const std::atomic<bool>* flag = nullptr;
  // Polled on the rendering thread after each pass (a time limit, a UI button).
  std::function<bool()> poll;

  bool requested() const {
    return (flag && flag->load(std::memory_order_relaxed)) || (poll && poll());
  }
};
static_assert(std::atomic<bool>::is_always_lock_free, "a signal handler stores to the flag");

class Integrator {
 public:
  virtual ~Integrator() = default;
  // Renders all samples into the film (or, once `stop` asks, the samples begun so far) and fills
  // the per-bounce statistics; returns once the film holds them (the time a render is measured
  // by). Sets stats.samplesDone and stats.stopped.
  virtual void render(RenderStats& stats, const ProgressFn& progress,
                      const StopCondition& stop) = 0;
  // The film of the last render() as the mean radiance per pixel over the samples it holds, on
  // the host.
  virtual Image image() const = 0;
  // The next render() takes samples [firstSample, firstSample + spp): the streams stay as they
  // are (a viewer's progressive frames).
  virtual void setSampleRange(uint32_t firstSample, int spp) = 0;
};

// Checks the options against the backend (a primitive that cannot run there, sizes that do not
// fit in memory) and throws std::invalid_argument naming the flag at fault.
void validateRenderOptions(const Backend& backend, const RenderOptions& options);

// Validates, then builds the integrator the options name with its compaction primitive.
std::unique_ptr<Integrator> makeIntegrator(const Scene& scene, const SceneData& data,
                                           const Backend& backend, const RenderOptions& options);

// Paths in flight when RenderOptions::poolSize is 0: enough to fill the device several times
// over, at most a quarter of its free memory.
uint32_t defaultPoolSize(const Backend& backend, const RenderOptions& options);

// Bytes of memory a render of these options needs on its backend (the path pool or the Whitted
// streams, and the film), to check it against the memory there before allocating anything.
size_t estimateRenderBytes(const RenderOptions& options, uint32_t poolSize);

}  // namespace srt
