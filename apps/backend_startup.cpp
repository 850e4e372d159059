#include "apps/backend_startup.h"

#include <cuda_runtime_api.h>

#include "primitives/common/cuda_check.h"

namespace srt {

BackendStartup::BackendStartup(const std::string& name, const RenderOptions& options,
                               const AccelOptions& accel) {
  if (name == "cpu") {  // nothing to wait for
    start(name, options, accel);
    if (error_) std::rethrow_exception(error_);
    return;
  }
  compaction::Needs byName;  // the name and its options, wherever it runs
  byName.what = "--compaction";
  compaction::Registry::global().check(options.compaction, byName);
  checkAccelOptions(accel);
  thread_ = std::thread([this, name, options, accel] { start(name, options, accel); });
}

BackendStartup::~BackendStartup() {
  if (thread_.joinable()) thread_.join();
}

void BackendStartup::start(const std::string& name, const RenderOptions& options,
                           const AccelOptions& accel) {
  const auto t0 = std::chrono::steady_clock::now();
  try {
    backend_ = selectBackend(name, &notice_);
    if (backend_.isCuda()) SRT_CUDA_CHECK(cudaFree(nullptr));  // the context every thread uses
    checkRender(backend_, options, accel);
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
  return backend_;
}

}  // namespace srt
