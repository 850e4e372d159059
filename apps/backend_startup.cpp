#include "apps/backend_startup.h"

#include <cuda_runtime_api.h>

#include "primitives/common/cuda_check.h"

namespace srt {

BackendStartup::BackendStartup(const std::string& name, const RenderOptions& options,
                               const AccelOptions& accel,
                               std::function<void(const Backend&)> setUp) {
  if (name == "cpu") {  // nothing to wait for
    start(name, options, accel, setUp);
    if (error_) std::rethrow_exception(error_);
    return;
  }
  compaction::Needs byName;  // the name and its options, wherever it runs
  byName.what = "--compaction";
  compaction::Registry::global().check(options.compaction, byName);
  checkAccelOptions(accel);
  thread_ = std::thread([this, name, options, accel, setUp = std::move(setUp)] {
    start(name, options, accel, setUp);
  });
}

BackendStartup::~BackendStartup() {
  if (thread_.joinable()) thread_.join();
}

void BackendStartup::start(const std::string& name, const RenderOptions& options,
                           const AccelOptions& accel,
                           const std::function<void(const Backend&)>& setUp) {
  const auto t0 = std::chrono::steady_clock::now();
  auto t = t0;
  auto lap = [&t] {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - t).count();
    t = now;
    return s;
  };
  try {
    backend_ = selectBackend(name, &notice_);
    if (setUp) setUp(backend_);
    selectSeconds_ = lap();
    if (backend_.isCuda()) {
      SRT_CUDA_CHECK(cudaGetDevice(&device_));
      SRT_CUDA_CHECK(cudaFree(nullptr));  // the device's primary context, which threads share
    }
    contextSeconds_ = lap();
    checkRender(backend_, options, accel);
    checkSeconds_ = lap();
  } catch (...) {
    error_ = std::current_exception();
  }
  startSeconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

const Backend& BackendStartup::backend() {
  if (thread_.joinable()) {
    const auto t0 = std::chrono::steady_clock::now();
    thread_.join();
    waitSeconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  if (error_) std::rethrow_exception(error_);
  if (backend_.isCuda()) SRT_CUDA_CHECK(cudaSetDevice(device_));
  return backend_;
}

}  // namespace srt
