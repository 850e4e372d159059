// A one-line progress bar on stderr with rays/s and ETA, shown once work has run for a second
// (short renders stay quiet) and only when stderr is a terminal or --progress forces it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace srt {

class ProgressBar {
 public:
  ProgressBar(std::string label, bool enabled);
  ~ProgressBar();  // finish(): an error message starts on a line of its own
  void update(int done, int total, uint64_t rays);
  void finish();  // ends the line if anything was drawn

 private:
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
};

// Ends a progress line left open (a newline on stderr), for a line that must start at the left:
// the signal thread calls it holding stderr's lock (flockfile).
void endProgressLine();

}  // namespace srt
