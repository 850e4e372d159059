#include "apps/viewer/render_session.h"

#include <chrono>

namespace srt::viewer {

RenderSession::RenderSession(const Scene& scene, const std::string& backendName,
                             const RenderOptions& options, const AccelOptions& accel, float time)
    : scene_(scene),
      backend_(selectBackend(backendName)),
      options_(options),
      accel_(accel),
      time_(time) {
  options_.spp = 1;
  options_.firstSample = 0;
  renderer_ = std::make_unique<Renderer>(scene_, backend_, options_, accel_, time_);
  // The camera the renderer placed (scene files without one) is the one every later frame uses.
  scene_.camera = renderer_->scene().camera;
  restart();
}

RenderSession::~RenderSession() = default;

void RenderSession::restart() {
  accumulator_.reset(options_.width, options_.height);
}

void RenderSession::setOptions(const RenderOptions& options) {
  RenderOptions next = options;
  next.spp = 1;
  next.firstSample = 0;
  try {
    renderer_->setOptions(next);
  } catch (...) {
    renderer_->setOptions(options_);  // the previous options were valid: keep rendering those
    throw;
  }
  options_ = next;
  restart();
}

void RenderSession::setBackend(const std::string& backendName) {
  const Backend next = selectBackend(backendName);
  RenderOptions options = options_;
  options.firstSample = 0;
  // A primitive of the other backend's memory cannot follow: fall back to the default there.
  try {
    validateRenderOptions(next, options);
  } catch (const std::invalid_argument&) {
    options.compaction = "auto";
  }
  // Likewise the GPU kd-tree builder on the CPU: the CPU builder there.
  AccelOptions accel = accel_;
  try {
    checkRender(next, options, accel);
  } catch (const std::invalid_argument&) {
    accel.builder = AccelOptions{}.builder;
  }
  scene_.camera = renderer_->scene().camera;
  auto renderer = std::make_unique<Renderer>(scene_, next, options, accel, time_);
  renderer_ = std::move(renderer);
  freshRenderer_ = true;
  backend_ = next;
  options_ = options;
  accel_ = accel;
  restart();
}

void RenderSession::setCamera(const Camera& camera) {
  renderer_->setCamera(camera);
  restart();
}

void RenderSession::setTime(float time) {
  if (time == time_) return;
  time_ = time;
  restart();
}

void RenderSession::renderFrame() {
  // Frame k shows sample k; the renderer keeps the kd-tree and remakes only the integrator.
  const uint32_t sample = uint32_t(accumulator_.frames());
  if (renderer_->options().firstSample != sample) {
    RenderOptions next = options_;
    next.firstSample = sample;
    renderer_->setOptions(next);
  }
  RenderResult result = renderer_->render(time_);
  buildBeforeFrame_ = freshRenderer_;
  freshRenderer_ = false;
  const auto t0 = std::chrono::steady_clock::now();
  accumulator_.add(result.image);
  accumulateMs_ =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  lastStats_ = std::move(result.stats);
}

}  // namespace srt::viewer
