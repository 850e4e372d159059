// Pieces the integrators share: the primitive, the camera, the film resolve, and the factory
// makeIntegrator() calls.
#pragma once

#include <memory>
#include <vector>

#include "primitives/common/cuda_resources.h"
#include "renderer/wavefront/integrator.h"
#include "renderer/wavefront/stages.h"

namespace srt {

// What both wavefront integrators hold: the scene, the options, the compaction primitive and the
// camera; and the one way they call the primitive.
class WavefrontIntegrator : public Integrator {
 public:
  void persist() override { compactor_->persist(); }
  void setSampleRange(uint32_t firstSample, int spp) override {
    opt_.firstSample = firstSample;
    opt_.spp = spp;
  }

 protected:
  WavefrontIntegrator(const Scene& scene, const SceneData& data, const Backend& backend,
                      const RenderOptions& opt, std::unique_ptr<compaction::Compactor> compactor,
                      const compaction::Info& info)
      : data_(data),
        backend_(backend),
        opt_(opt),
        compactor_(std::move(compactor)),
        info_(info),
        camera_(CameraView::from(scene.camera.value(), opt.width, opt.height)) {}

  // Compacts `count` elements of `fields` by `keep`, the survivors' count going to numKept (in
  // the backend's memory); returns the milliseconds the primitive spent crossing memory spaces.
  double compact(const uint8_t* keep, const std::vector<compaction::Field>& fields, uint32_t count,
                 uint32_t* numKept) {
    // The OpenGL family times its interop on the host: let the stages queued before it finish
    // first, so their time is not counted as interop (its compact() is synchronous anyway).
    if (info_.device == compaction::Device::Gl) backend_.synchronize();
    compaction::Request r;
    r.keep = keep;
    r.fields = fields.data();
    r.numFields = int(fields.size());
    r.count = count;
    r.numKept = numKept;
    r.memory = backend_.memory();
    r.stream = backend_.stream;
    compactor_->compact(r);
    return compactor_->lastTransferMs();
  }

  const SceneData& data_;
  Backend backend_;
  RenderOptions opt_;
  std::unique_ptr<compaction::Compactor> compactor_;
  compaction::Info info_;
  CameraView camera_;
};

// The fixed-point film's sums divided by the sample count it holds, as an image. `mean` is the
// caller's scratch, grown here and kept: a buffer freed every frame would be a cudaFree, which
// waits for the whole device (a kd-tree building beside the render included). `storage`, when it
// holds the image's pixel count, becomes the image's storage: allocated and zeroed by the caller
// while the GPU rendered (a 1080p image's 25 MB of page faults and zeroes, ~5-8 ms otherwise
// paid after the render).
Image resolveFilm(const Buffer<unsigned long long>& film, const RenderOptions& opt, int samples,
                  const Backend& backend, Buffer<Vec3f>& mean,
                  std::vector<Vec3f>* storage = nullptr);

// The path tracer or the Whitted tracer (opt.integrator), both over the path pool.
std::unique_ptr<Integrator> makePoolIntegrator(const Scene& scene, const SceneData& data,
                                               const Backend& backend, const RenderOptions& opt,
                                               std::unique_ptr<compaction::Compactor> compactor,
                                               const compaction::Info& info);

}  // namespace srt
