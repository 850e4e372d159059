#include "renderer/backend/stage_clock.h"

namespace srt {

StageClock::Mark StageClock::mark() {
  const Mark m = used_++;
  if (backend_.isCuda()) {
    if (m == int(events_.size())) events_.emplace_back(cudaEventDefault);
    events_[m].record(backend_.stream);
  } else {
    if (m == int(times_.size())) times_.emplace_back();
    times_[m] = std::chrono::steady_clock::now();
  }
  return m;
}

double StageClock::between(const StageClock& ca, Mark a, const StageClock& cb, Mark b) {
  if (ca.backend_.isCuda()) return CudaEvent::elapsedMs(ca.events_[a], cb.events_[b]);
  return std::chrono::duration<double, std::milli>(cb.times_[b] - ca.times_[a]).count();
}

}  // namespace srt
