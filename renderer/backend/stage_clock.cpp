#include "renderer/backend/stage_clock.h"

namespace srt {

StageClock::~StageClock() {
  for (cudaEvent_t e : events_) cudaEventDestroy(e);  // never throws from a destructor
}

StageClock::Mark StageClock::mark() {
  const Mark m = used_++;
  if (backend_.isCuda()) {
    if (m == int(events_.size())) {
      cudaEvent_t e;
      SRT_CUDA_CHECK(cudaEventCreate(&e));
      events_.push_back(e);
    }
    SRT_CUDA_CHECK(cudaEventRecord(events_[m], backend_.stream));
  } else {
    if (m == int(times_.size())) times_.emplace_back();
    times_[m] = std::chrono::steady_clock::now();
  }
  return m;
}

double StageClock::between(const StageClock& ca, Mark a, const StageClock& cb, Mark b) {
  if (ca.backend_.isCuda()) {
    float ms = 0.f;
    SRT_CUDA_CHECK(cudaEventElapsedTime(&ms, ca.events_[a], cb.events_[b]));
    return ms;
  }
  return std::chrono::duration<double, std::milli>(cb.times_[b] - ca.times_[a]).count();
}

double StageClock::elapsedMs(Mark a, Mark b) const {
  if (backend_.isCuda()) {
    float ms = 0.f;
    SRT_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[a], events_[b]));
    return ms;
  }
  return std::chrono::duration<double, std::milli>(times_[b] - times_[a]).count();
}

}  // namespace srt
