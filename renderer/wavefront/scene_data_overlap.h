// What SceneData keeps to build the next frame's tree beside the current frame's render
// (SceneData::prefetch): a stream of its own and the host thread the build runs on, since the GPU
// builder waits for its stream once per level and the render for its own passes.
#pragma once

#include <condition_variable>
#include <functional>
#include <future>
#include <mutex>
#include <string>
#include <thread>

#include "primitives/common/cuda_resources.h"
#include "renderer/backend/backend.h"

namespace srt {

// One host thread that runs the builds one after another: a thread started per frame would cost
// its start on every frame's critical path. One job at a time (the caller waits for the last).
class BuildThread {
 public:
  BuildThread() : thread_([this] { loop(); }) {}
  ~BuildThread();  // runs a job already given, then joins
  BuildThread(const BuildThread&) = delete;
  BuildThread& operator=(const BuildThread&) = delete;
  std::future<void> run(std::function<void()> job);

 private:
  void loop();
  std::mutex mutex_;
  std::condition_variable wake_;
  std::packaged_task<void()> job_;
  bool hasJob_ = false, stop_ = false;
  std::thread thread_;  // last: it starts once the members it reads are made
};

struct BuildOverlap {
  // On CUDA: a non-blocking stream (the render's is the legacy default stream, which would
  // otherwise serialise with it), of the device's highest priority unless
  // SRT_KD_BUILD_PRIORITY=normal: the build is the frame's critical path, the render fills the
  // SMs it leaves.
  explicit BuildOverlap(const Backend& render);
  ~BuildOverlap();  // waits for a pending build (its errors dropped)
  BuildOverlap(const BuildOverlap&) = delete;
  BuildOverlap& operator=(const BuildOverlap&) = delete;

  // Waits for the pending build, if any, and drops its result and its error.
  void discard() noexcept;

  Backend build;    // the render's backend on the build's stream
  int device = -1;  // the CUDA device, set on the build's host thread
  bool highPriority = true;
  CudaEvent renderQueued;  // (CUDA) the render work queued before a prefetch started
  CudaEvent built;         // (CUDA) the prefetched tree is complete on the build's stream
  BuildThread thread;
  std::future<void> pending;
  float pendingTime = 0.f;
};

// AccelOptions::overlap, or SRT_KD_OVERLAP when set: auto, on or off. Throws
// std::invalid_argument for anything else, naming where it came from.
std::string overlapMode(const std::string& option);

}  // namespace srt
