// Internal to the CPU SAH builder: an optional estimate of the build's critical path (span), for
// predicting its time on more cores than the machine at hand has. With SRT_KD_BUILD_SPAN set in
// the environment, chunked work runs in turn on the calling thread and every piece is timed with
// the thread's CPU clock: a chunked phase costs its longest chunk, a subtree task costs nothing
// to the task that spawned it and starts its own path where it was spawned.
#pragma once

#include <time.h>

#include <algorithm>
#include <cstdlib>

namespace srt::kdsah::span {

inline bool enabled() {
  static const bool on = std::getenv("SRT_KD_BUILD_SPAN") != nullptr;
  return on;
}

inline double threadSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

inline double processSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// Per thread: time spent so far that is off the path of the block being measured (chunks beyond
// a phase's longest, whole tasks run inside it).
inline thread_local double tOffPath = 0;

// A measured stretch of one thread's work.
struct Block {
  double t0 = threadSeconds(), off0 = tOffPath;
  double elapsed() const { return threadSeconds() - t0; }
  double path() const { return elapsed() - (tOffPath - off0); }
  // Takes the whole block off the path of whatever encloses it (a task run inside another).
  void leaveEnclosingPath() const { tOffPath = off0 + elapsed(); }
};

// fn(c) for c < chunks on this thread, costing the enclosing path only the longest chunk.
template <typename F>
void measureChunks(size_t chunks, const F& fn) {
  const Block all;
  double longest = 0;
  for (size_t c = 0; c < chunks; ++c) {
    const Block one;
    fn(c);
    longest = std::max(longest, one.path());
  }
  tOffPath = all.off0 + all.elapsed() - longest;
}

}  // namespace srt::kdsah::span
