#include "apps/viewer/frame_times.h"

#include <algorithm>

namespace srt::viewer {

FrameTimes splitFrame(const RenderStats& stats, double frameMs, double displayMs) {
  const StageTotals t = stageTotals(stats);
  FrameTimes f;
  f.frameMs = frameMs;
  const AccelBuildReport& a = stats.accel;
  if (!a.builder.empty()) {
    f.buildMs = a.overlapped ? a.waitMs : a.buildMs;
    f.besideMs = a.overlapped ? a.buildMs : 0;
    f.setTimeMs = a.setTimeMs;
    f.freeMs = a.freeMs;
  }
  f.traceMs = t.traceMs, f.shadeMs = t.shadeMs, f.shadowMs = t.shadowMs;
  f.compactionMs = t.compactionMs;
  f.displayMs = displayMs;
  f.otherMs = std::max(
      0.0, frameMs - f.buildMs - f.traceMs - f.shadeMs - f.shadowMs - f.compactionMs - f.displayMs);
  f.refillMs = t.regenerateMs;
  f.idleMs = t.idleMs;
  f.outsideMs = std::max(0.0, frameMs - f.buildMs - stats.renderSeconds * 1e3 - f.displayMs);
  return f;
}

void FrameHistory::add(const FrameTimes& t) {
  frames_.push_back(t);
  if (frames_.size() > capacity_) frames_.pop_front();
  ++added_;
}

}  // namespace srt::viewer
