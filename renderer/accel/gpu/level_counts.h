// The large-node stage's sizes as the device sees them. Every level kernel reads its level's
// counts from device memory, so the host need not know them to launch: it launches for a
// capacity (LevelCaps) that is either the exact counts read back after the level before (sync
// levels, one round trip a level) or the counts of the previous build plus slack (replayed
// levels, no round trip until finalize). Beyond the counts, the launches write neutral padding
// (empty boxes, zero bin counts, cleared keep flags) that the segmented reductions and the
// compactions pass over without changing a result, so both ways build the same tree.
#pragma once

#include <cstdint>

#include "primitives/common/host_device.h"

namespace srt::kdgpu {

// One large level's counts, and the running totals before it.
struct LevelCounts {
  uint32_t nodes, refs, chunks;
  uint32_t base;                   // first large node of the level
  uint32_t termBase, termRefBase;  // terminals and their references before the level
};

// What the host launched a level for. `nodes` counts one padding segment beyond the level's
// nodes (the reductions' padded elements go there); the other three are array capacities.
struct LevelCaps {
  uint32_t nodes = 1, refs = 0, chunks = 0;
  uint32_t large = 0, terms = 0, termRefs = 0;  // large nodes, terminals, terminal references
};

// True when a level of `c` fits the launches of `caps`, whatever it produces (at most two
// children per node, two references per reference). A level that does not is run as an empty
// one and the build reports an overflow (the host then rebuilds with sync levels).
SRT_CPU_GPU inline bool fits(const LevelCounts& c, const LevelCaps& caps) {
  return c.nodes < caps.nodes && c.refs <= caps.refs && c.chunks <= caps.chunks &&
         uint64_t(c.base) + c.nodes <= caps.large &&
         uint64_t(c.termBase) + 2ull * c.nodes <= caps.terms &&
         uint64_t(c.termRefBase) + 2ull * c.refs <= caps.termRefs;
}

// What a level kernel is given: its counts, the next level's (written at the end of the level),
// its caps and the build's overflow flag.
struct LevelArgs {
  const LevelCounts* counts;
  LevelCounts* next;
  LevelCaps caps;
  uint32_t* overflow;
};

#ifdef __CUDACC__
// The level's counts, or an empty level (bases kept) with the overflow flag set.
__device__ inline LevelCounts levelCounts(const LevelArgs& a) {
  LevelCounts c = *a.counts;
  if (!fits(c, a.caps)) {
    *a.overflow = 1;
    c.nodes = c.refs = c.chunks = 0;
  }
  return c;
}
#endif

}  // namespace srt::kdgpu
