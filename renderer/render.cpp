#include "renderer/render.h"

#include <chrono>
#include <stdexcept>

#include "renderer/accel/gpu/kdtree_build_gpu.h"
#include "renderer/accel/gpu/segmented_boxes.h"

namespace srt {

// The GPU builder's primitives, checked whichever builder runs, so a typo never waits for the day
// the GPU builder is used. (SceneData checks the builder against the backend.)
void checkAccelOptions(const AccelOptions& accel) {
  checkGpuKdSegreduce(accel.gpu.segreduce, "--segreduce");
  compaction::Registry::global().check(accel.gpu.compaction, kdBuildCompactionNeeds("--kd-compaction"));
}

RenderCheck checkRender(const Backend& backend, const RenderOptions& options,
                        const AccelOptions& accel) {
  RenderCheck c;
  c.compaction = validateRenderOptions(backend, options);
  checkAccelOptions(accel);
  return c;
}

Renderer::Renderer(Scene scene, const Backend& backend, const RenderOptions& options,
                   const AccelOptions& accel, float time, std::optional<FlatGeometry> flat)
    : scene_(std::move(scene)),
      backend_(backend),
      options_(options),
      checked_(checkRender(backend, options, accel).compaction),  // before the kd-tree build
      time_(time) {
  if (!scene_.camera)
    scene_.camera = frameScene(scene_, float(options.width) / float(options.height));
  data_ = flat ? std::make_unique<SceneData>(scene_, backend, time, accel, std::move(*flat))
               : std::make_unique<SceneData>(scene_, backend, time, accel);
  integrator_ = makeIntegrator(scene_, *data_, backend, options, checked_);
}

Renderer::~Renderer() = default;

void Renderer::setOptions(const RenderOptions& options) {
  RenderOptions sameSamples = options;
  sameSamples.firstSample = options_.firstSample;
  sameSamples.spp = options_.spp;
  if (integrator_ && sameSamples == options_ && options.spp > 0 &&
      uint64_t(options.firstSample) + uint64_t(options.spp) <= 0xffffffffull) {
    // Only the samples move on (the viewer, every frame): keep the streams and the primitive.
    options_ = options;
    integrator_->setSampleRange(options.firstSample, options.spp);
    return;
  }
  compaction::Info checked = validateRenderOptions(backend_, options);
  integrator_.reset();  // free the old streams before allocating the new ones
  options_ = options;
  checked_ = std::move(checked);
  integrator_ = makeIntegrator(scene_, *data_, backend_, options_, checked_);
}

void Renderer::setCamera(const Camera& camera) {
  scene_.camera = camera;
  integrator_.reset();
  integrator_ = makeIntegrator(scene_, *data_, backend_, options_, checked_);
}

RenderResult Renderer::render(float time, const ProgressFn& progress, const StopCondition& stop) {
  if (time != time_) {
    data_->setTime(scene_, time);
    time_ = time;
    rebuilt_ = true;
  }
  if (hasNextTime_) data_->prefetch(scene_, nextTime_);  // beside this frame's render
  hasNextTime_ = false;
  RenderResult result;
  RenderStats& st = result.stats;
  st.scene = scene_.name;
  st.integrator = options_.integrator;
  st.backend = backend_.name();
  st.device = backend_.deviceDescription();
  st.compaction = options_.compaction;
  st.payload = options_.payload;
  st.width = options_.width;
  st.height = options_.height;
  st.spp = options_.spp;
  st.maxDepth = options_.maxDepth;
  st.seed = options_.seed;
  st.time = time;
  st.triangles = data_->triangleCount();
  const auto t0 = std::chrono::steady_clock::now();
  integrator_->render(st, progress, stop);
  const auto t1 = std::chrono::steady_clock::now();
  integrator_->persist();  // auto's calibration, before a quick exit can skip the destructors
  // After the render: the tree's statistics are computed on the host meanwhile.
  if (rebuilt_) st.accel = data_->accelReport();
  rebuilt_ = false;
  st.renderSeconds = std::chrono::duration<double>(t1 - t0).count();
  if (!imageOnHost_) return result;     // the film stays where it lives (filmData())
  result.image = integrator_->image();  // the film's resolve and download are not the render
  result.imageSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  return result;
}

RenderResult renderScene(Scene scene, const Backend& backend, const RenderOptions& options,
                         const ProgressFn& progress) {
  Renderer renderer(std::move(scene), backend, options);
  return renderer.render(0.f, progress);
}

}  // namespace srt
