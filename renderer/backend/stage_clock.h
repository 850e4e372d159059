// Time points on the backend's own timeline: CUDA events recorded on the render stream, or the
// steady clock on the CPU. Marks are resolved after the work is done, so timing a stage never
// forces a host round-trip in the middle of a bounce.
#pragma once

#include <chrono>
#include <vector>

#include "renderer/backend/backend.h"

namespace srt {

class StageClock {
 public:
  using Mark = int;
  explicit StageClock(const Backend& backend) : backend_(backend) {}
  ~StageClock();
  StageClock(const StageClock&) = delete;
  StageClock& operator=(const StageClock&) = delete;

  Mark mark();
  // Milliseconds between two marks; the work behind `b` must be complete (backend.synchronize()).
  double elapsedMs(Mark a, Mark b) const;
  // Milliseconds from mark `a` of clock `ca` to mark `b` of clock `cb` (same backend).
  static double between(const StageClock& ca, Mark a, const StageClock& cb, Mark b);
  // Starts a new round of marks, reusing the CUDA events of the previous ones.
  void reset() { used_ = 0; }

 private:
  Backend backend_;
  int used_ = 0;
  std::vector<cudaEvent_t> events_;
  std::vector<std::chrono::steady_clock::time_point> times_;
};

}  // namespace srt
