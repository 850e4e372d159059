// The backend chosen and checked on a thread of its own, so that CUDA's start (the driver, the
// primary context, the device query: about a quarter of a second on an H100 host) runs while the
// scene loads on the main thread. The CPU backend needs no thread and starts at once.
#pragma once

#include <chrono>
#include <exception>
#include <functional>
#include <string>
#include <thread>

#include "renderer/render.h"

namespace srt {

class BackendStartup {
 public:
  // Checks what needs no device at once (the primitives' names and options), so a typo still
  // fails before the scene load; then starts the backend `name` (auto, cuda or cpu): selects it,
  // calls `setUp` (which may pick the GPU: cudaSetDevice), creates the device's context and runs
  // checkRender() on it.
  BackendStartup(const std::string& name, const RenderOptions& options, const AccelOptions& accel,
                 std::function<void(const Backend&)> setUp = {});
  ~BackendStartup();  // waits for the thread (an error elsewhere must not leave it running)
  BackendStartup(const BackendStartup&) = delete;
  BackendStartup& operator=(const BackendStartup&) = delete;

  // Waits for the start and returns the backend, with the device it started current on the
  // calling thread too (the current device is per thread); rethrows its error (no device for
  // `cuda`, a primitive that cannot run there, a render that does not fit in its memory).
  const Backend& backend();
  // "no CUDA device found: ..." for `auto` without a device; empty otherwise. After backend().
  const std::string& notice() const { return notice_; }
  double startSeconds() const { return startSeconds_; }  // the start, on its thread
  double waitSeconds() const { return waitSeconds_; }    // how long backend() waited for it
  // The start's parts: the backend selected (CUDA: the driver's start and the device count) and
  // set up, the device's primary context created, and checkRender.
  double selectSeconds() const { return selectSeconds_; }
  double contextSeconds() const { return contextSeconds_; }
  double checkSeconds() const { return checkSeconds_; }

 private:
  void start(const std::string& name, const RenderOptions& options, const AccelOptions& accel,
             const std::function<void(const Backend&)>& setUp);

  Backend backend_;
  std::string notice_;
  int device_ = 0;  // the CUDA device made current on the start's thread
  std::exception_ptr error_;
  double startSeconds_ = 0, waitSeconds_ = 0;
  double selectSeconds_ = 0, contextSeconds_ = 0, checkSeconds_ = 0;
  std::thread thread_;
};

}  // namespace srt
