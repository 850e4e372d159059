#include "renderer/wavefront/pool_stats.h"

#include <algorithm>

namespace srt {

void addPassStats(RenderStats& stats, const PoolControl& c, const PassRecord& rec,
                  const PassRecord* previous, uint32_t capacity, uint64_t compactionBytes,
                  bool perDepthTimes, int& nextDepth) {
  IterationStats it;
  it.lanes = c.lastLanes;
  it.alive = c.lastKept;
  it.regenerated = c.lastRegenerated;
  it.idle = capacity - std::min(capacity, c.live);
  addStageTimes(rec.timer, it);
  it.transferMs = rec.transferMs;
  it.idleMs = previous ? PassTimer::gapMs(previous->timer, rec.timer) : 0;
  it.compactionBytes = compactionBytes;
  stats.iterations.push_back(it);
  if (!perDepthTimes) return;
  BounceStats& b = stats.bounce(size_t(nextDepth));
  b.lanes += c.lastLanes;
  b.traceMs += it.traceMs;
  b.shadeMs += it.shadeMs;
  b.compactionMs += it.compactionMs;
  b.shadowMs += it.shadowMs;
  b.transferMs += it.transferMs;
  b.compactionBytes += it.compactionBytes;
  nextDepth = c.lastRegenerated > 0 ? 0 : nextDepth + 1;
}

void addDepthStats(RenderStats& stats, const std::vector<unsigned long long>& striped,
                   bool lanesAreRays) {
  constexpr size_t kPerCounter = size_t(kDepthSlots) * kCounterStripes;
  // Counter k (0: in, 1: alive, 2: shadow) of depth d, its stripes summed.
  const auto sum = [&](size_t k, uint32_t d) {
    unsigned long long total = 0;
    for (uint32_t s = 0; s < kCounterStripes; ++s)
      total += striped[k * kPerCounter + size_t(s) * kDepthSlots + d];
    return total;
  };
  for (uint32_t d = 0; d < kDepthSlots; ++d) {
    const unsigned long long in = sum(0, d), shadow = sum(2, d);
    if (!in && !shadow) continue;
    BounceStats& b = stats.bounce(size_t(d));
    b.raysIn = in;
    b.raysAlive = sum(1, d);
    b.shadowRays = shadow;
    if (lanesAreRays) b.lanes = in;
  }
}

}  // namespace srt
