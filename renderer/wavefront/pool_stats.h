// The path pool's statistics: what the host keeps of a pass until its read-back arrives, and how
// a harvested pass and the per-depth counters become RenderStats.
#pragma once

#include <vector>

#include "renderer/wavefront/pass_timer.h"
#include "renderer/wavefront/path_pool.h"

namespace srt {

// A pass's named stages' times and GL transfers, kept until its snapshot of the control block
// arrives.
struct PassRecord {
  explicit PassRecord(const Backend& b) : timer(b) {}
  PassTimer timer;
  double transferMs = 0;
  uint32_t bound = 0;      // the launch size the pass ran at
  bool compacted = false;  // the path state was compacted (not a --compact-every hold pass)
  bool shadows = false;    // the shadow rays' positions were compacted (the scene has lights)
};

// A harvested pass (its snapshot `c`) into stats.iterations: occupancy, stage times by name, the
// device's idle time since `previous` (the pass harvested before; null for the first). `waves`
// (paths, not Whitted): every pass is one depth of one wave, so its times go to that depth too
// (nextDepth: the depth of the pass, advanced here).
void addPassStats(RenderStats& stats, const PoolControl& c, const PassRecord& rec,
                  const PassRecord* previous, uint32_t capacity, uint64_t compactionBytes,
                  bool perDepthTimes, int& nextDepth);

// The per-depth counters (rays in, alive, shadow rays: kDepthSlots x kCounterStripes each, one
// after the other) summed over their stripes into stats.bounces; `lanesAreRays`: a pass mixes
// depths, so a depth's lanes are its rays.
void addDepthStats(RenderStats& stats, const std::vector<unsigned long long>& striped,
                   bool lanesAreRays);

}  // namespace srt
