// SceneData's overlapped rebuild: the next frame's geometry moved and its kd-tree built into a
// second copy, on the BuildOverlap's stream and a host thread, while the current frame renders
// from the first; setTime() then waits for it (an event on the render's stream, and the thread)
// and swaps the two.
#include "renderer/wavefront/scene_data_overlap.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "renderer/wavefront/scene_data.h"

namespace srt {
namespace {

bool highPriorityFromEnvironment() {
  const char* env = std::getenv("SRT_KD_BUILD_PRIORITY");
  const std::string mode = env && *env ? env : "high";
  if (mode != "high" && mode != "normal")
    throw std::invalid_argument("SRT_KD_BUILD_PRIORITY must be high or normal (got '" + mode +
                                "')");
  return mode == "high";
}

// Copies `from` into a new buffer of the same size, ordered on `backend`'s stream.
template <typename T>
Buffer<T> copyOf(const Buffer<T>& from, const Backend& backend) {
  Buffer<T> to(from.space(), from.size());
  if (from.empty()) return to;
  if (backend.isCuda())
    SRT_CUDA_CHECK(cudaMemcpyAsync(to.data(), from.data(), from.bytes(), cudaMemcpyDeviceToDevice,
                                   backend.stream));
  else
    std::memcpy(to.data(), from.data(), from.bytes());
  return to;
}

}  // namespace

BuildThread::~BuildThread() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

std::future<void> BuildThread::run(std::function<void()> job) {
  std::packaged_task<void()> task(std::move(job));
  std::future<void> done = task.get_future();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = std::move(task);
    hasJob_ = true;
  }
  wake_.notify_one();
  return done;
}

void BuildThread::loop() {
  for (;;) {
    std::packaged_task<void()> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return hasJob_ || stop_; });
      if (!hasJob_) return;
      job = std::move(job_);
      hasJob_ = false;
    }
    job();  // its exception goes to the future
  }
}

std::string overlapMode(const std::string& option) {
  const char* env = std::getenv("SRT_KD_OVERLAP");
  const bool fromEnv = env && *env;
  const std::string mode = fromEnv ? env : option;
  if (mode != "auto" && mode != "on" && mode != "off")
    throw std::invalid_argument(std::string(fromEnv ? "SRT_KD_OVERLAP" : "the kd-tree overlap") +
                                " must be auto, on or off (got '" + mode + "')");
  return mode;
}

BuildOverlap::BuildOverlap(const Backend& render)
    : build(render), highPriority(highPriorityFromEnvironment()) {
  if (!render.isCuda()) return;
  SRT_CUDA_CHECK(cudaGetDevice(&device));
  int least = 0, greatest = 0;
  SRT_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  SRT_CUDA_CHECK(cudaStreamCreateWithPriority(&build.stream, cudaStreamNonBlocking,
                                              highPriority ? greatest : least));
  renderQueued = CudaEvent(cudaEventDisableTiming);
  built = CudaEvent(cudaEventDisableTiming);
}

BuildOverlap::~BuildOverlap() {
  discard();
  if (build.isCuda() && build.stream) {
    cudaStreamSynchronize(build.stream);  // errors ignored: destructors never throw
    cudaStreamDestroy(build.stream);
  }
}

void BuildOverlap::discard() noexcept {
  if (!pending.valid()) return;
  try {
    pending.get();
  } catch (...) {  // a build nobody asked for after all: a serial build reports real errors
  }
}

void SceneData::startOverlap(const std::string& mode) {
  if (animated_.empty() || mode == "off") return;  // nothing moves: nothing to build ahead
  const bool movingLight = std::any_of(animated_.begin(), animated_.end(),
                                       [](const AnimatedInstance& a) { return a.emissive; });
  if (movingLight) return;  // its emitter table is rebuilt on the host, once
  // On CUDA only the GPU builder, which reads the geometry where it is and takes a stream.
  const bool supported = backend_.isCuda() ? gpuBuilder_ != nullptr : mode == "on";
  if (supported) overlap_ = std::make_unique<BuildOverlap>(backend_);
}

void SceneData::waitForOverlap() noexcept {
  if (overlap_) overlap_->discard();
}

void SceneData::makeBackSet() {
  // The static instances never move: the second copy starts as the first, once.
  const MovingGeometry& front = sets_[front_];
  MovingGeometry& back = sets_[1 - front_];
  back.positions = copyOf(front.positions, overlap_->build);
  back.normals = copyOf(front.normals, overlap_->build);
  back.corners = copyOf(front.corners, overlap_->build);
  back.unitTriangles = copyOf(front.unitTriangles, overlap_->build);
}

void SceneData::prefetch(const Scene& scene, float time) {
  if (!overlap_ || time == frontTime_) return;
  BuildOverlap& o = *overlap_;
  if (o.pending.valid()) {
    if (o.pendingTime == time) return;
    o.discard();
  }
  const int back = 1 - front_;
  // The back copy's last reader is a render already queued: the build's stream waits for it by
  // an event. Its tree is already gone after a swap; after a serial frame it goes here, before
  // this frame's render is queued (cudaFree waits for the whole device).
  sets_[back].tree.reset();
  if (backend_.isCuda()) {
    o.renderQueued.record(backend_.stream);
    SRT_CUDA_CHECK(cudaStreamWaitEvent(o.build.stream, o.renderQueued.get(), 0));
  }
  if (sets_[back].positions.empty()) makeBackSet();
  const bool stats = accel_.rebuildTreeStats;
  o.pendingTime = time;
  o.pending = o.thread.run([this, &o, back, stats, xs = animatedTransforms(scene, time)] {
    if (o.device >= 0) SRT_CUDA_CHECK(cudaSetDevice(o.device));
    MovingGeometry& g = sets_[back];
    moveAnimatedInstances(xs, g, o.build);
    buildAccel(g, o.build, g.positions.data(), stats, /*asyncStats=*/false);
    if (o.build.isCuda()) o.built.record(o.build.stream);
  });
}

bool SceneData::takePrefetched(float time) {
  if (!overlap_ || !overlap_->pending.valid()) return false;
  BuildOverlap& o = *overlap_;
  const auto t0 = std::chrono::steady_clock::now();
  const bool match = o.pendingTime == time;
  if (match)
    o.pending.get();  // the build's error, if any, is this frame's
  else
    o.discard();
  // Whatever the build left on its stream comes before the render's next work (the scratch and
  // the tree are shared with a serial build).
  if (backend_.isCuda()) SRT_CUDA_CHECK(cudaStreamWaitEvent(backend_.stream, o.built.get(), 0));
  if (!match) return false;
  front_ = 1 - front_;
  frontTime_ = time;
  // The old front's tree goes now, while the device is all but idle (its render has finished and
  // the build has): cudaFree waits for the whole device, so not once this frame's render is queued.
  const auto f0 = std::chrono::steady_clock::now();
  sets_[1 - front_].tree.reset();
  const auto f1 = std::chrono::steady_clock::now();
  pendingTreeStats_ = {};
  report_ = sets_[front_].report;
  report_.freeMs = std::chrono::duration<double, std::milli>(f1 - f0).count();
  report_.overlapped = true;
  report_.waitMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  showFront();
  return true;
}

}  // namespace srt
