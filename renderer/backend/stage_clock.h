// Time points on the backend's own timeline: CUDA events recorded on the render stream, or the
// steady clock on the CPU. Marks are resolved after the work is done, so timing a stage never
// forces a host round-trip in the middle of a bounce. (Stages are timed by name on top of this:
// renderer/wavefront/pass_timer.h.)
#pragma once

#include <chrono>
#include <vector>

#include "primitives/common/cuda_resources.h"
#include "renderer/backend/backend.h"

namespace srt {

class StageClock {
 public:
  using Mark = int;
  explicit StageClock(const Backend& backend) : backend_(backend) {}
  StageClock(const StageClock&) = delete;
  StageClock& operator=(const StageClock&) = delete;

  // Records a time point after the work queued so far. Allocates only the first time a round
  // reaches this many marks.
  Mark mark();
  // Milliseconds between two marks; the work behind `b` must be complete (backend.synchronize()).
  double elapsedMs(Mark a, Mark b) const { return between(*this, a, *this, b); }
  // Milliseconds from mark `a` of clock `ca` to mark `b` of clock `cb` (same backend).
  static double between(const StageClock& ca, Mark a, const StageClock& cb, Mark b);
  // Starts a new round of marks, reusing the events of the previous ones.
  void reset() { used_ = 0; }

 private:
  Backend backend_;
  int used_ = 0;
  std::vector<CudaEvent> events_;
  std::vector<std::chrono::steady_clock::time_point> times_;
};

}  // namespace srt
