// Where each frame's time went (kd-tree build, trace, shade, shadow rays, compaction, the
// viewer's own accumulation and upload, the rest), kept for the last frames so the panel can plot
// it as a history.
#pragma once

#include <cstddef>
#include <deque>

#include "renderer/wavefront/render_stats.h"

namespace srt::viewer {

struct FrameTimes {
  double frameMs = 0;  // the whole frame on the host: render, accumulation, display (CUDA: queued)
  // kd-tree rebuilt for this frame's time (animated scenes), else 0: what the frame paid for it,
  // which for a tree built beside the last frame's render is only the wait for it.
  double buildMs = 0;
  double besideMs = 0;   // a tree built beside the last frame's render: its build time there
  double setTimeMs = 0;  // host time of SceneData::setTime (move, build or its wait, swap)
  double freeMs = 0;     // the part of it freeing the previous tree
  double traceMs = 0, shadeMs = 0, shadowMs = 0, compactionMs = 0;
  double displayMs = 0;  // the viewer's part: adding the frame to the sum, the mean to the texture
  double otherMs = 0;    // the rest: regeneration, launches, the film, copies
  // Parts of otherMs, to say where it goes: the pool's refill and end-of-pass stages, the device
  // idle between passes (the host late), and the frame's time outside the integrator's render
  // (setting the frame up, reading the film).
  double refillMs = 0, idleMs = 0, outsideMs = 0;
};

// Splits a frame of `frameMs` by the renderer's stage clocks and the viewer's `displayMs`; the
// rest is otherMs (never < 0).
FrameTimes splitFrame(const RenderStats& stats, double frameMs, double displayMs = 0);

class FrameHistory {
 public:
  explicit FrameHistory(size_t capacity = 120) : capacity_(capacity) {}
  void add(const FrameTimes& t);
  const std::deque<FrameTimes>& frames() const { return frames_; }
  long long firstFrame() const { return added_ - (long long)frames_.size(); }  // its number
  long long added() const { return added_; }

 private:
  size_t capacity_;
  std::deque<FrameTimes> frames_;
  long long added_ = 0;
};

}  // namespace srt::viewer
