// How the host sizes the large-node levels' launches (level_counts.h): from the exact counts read
// back after each level (sync), or, with no round trip, from the previous build's counts plus
// slack (replay: a per-frame rebuild or a benchmark repeat sees nearly the same counts). Host-only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "renderer/accel/gpu/large_node_split.h"
#include "renderer/accel/gpu/level_counts.h"

namespace srt::kdgpu {

// The counts a finished build saw: levels[l] for each large level, then one entry with no nodes
// whose bases are the totals (large nodes, terminals, terminal references).
struct LevelPlan {
  uint32_t triangles = 0, valid = 0;
  std::vector<LevelCounts> levels;
  uint32_t numLevels() const { return levels.empty() ? 0 : uint32_t(levels.size() - 1); }
  const LevelCounts& totals() const { return levels.back(); }
};

// The caps of a level launched after its counts were read back: what the arrays hold exactly.
inline LevelCaps exactCaps(const LevelCounts& c) {
  LevelCaps caps;
  caps.nodes = c.nodes + 1;
  caps.refs = c.refs;
  caps.chunks = std::max(c.chunks, 1u);
  caps.large = c.base + c.nodes;
  caps.terms = c.termBase + 2 * c.nodes;
  caps.termRefs = c.termRefBase + 2 * c.refs;
  return caps;
}

// A replayed build's launches: every level's caps, the largest of each (the level arrays'
// capacities) and the small-node stage's terminal capacities.
struct ReplayCaps {
  std::vector<LevelCaps> levels;
  LevelCaps max;                           // per-field maxima of the levels' caps
  uint32_t smallTerms = 0, smallRefs = 0;  // the small-node stage's scratch is sized for these
};

inline uint32_t withSlack(uint32_t x, int percent) {
  return uint32_t(std::min<uint64_t>(x + (uint64_t(x) * percent + 99) / 100, 1u << 30));
}

// A plausible largest level of a mesh's first build, before any counts are known: references
// up to twice the triangles (the Conference Room's peak level holds 1.8 times), nodes up to the
// references over the small-node threshold (a large node holds more), a chunk per node plus the
// references' chunks; the totals of large nodes, terminals and their references from the same.
inline LevelCaps firstBuildCaps(uint32_t valid, uint32_t threshold) {
  LevelCaps c;
  c.refs = withSlack(valid, 100);
  c.nodes = c.refs / (threshold + 1) + 1;
  c.chunks = c.nodes + chunksOf(c.refs);
  c.large = 4 * c.nodes;
  c.terms = 4 * c.nodes;
  c.termRefs = 2 * c.refs;
  return c;
}

inline ReplayCaps replayCaps(const LevelPlan& plan, int slackPercent) {
  ReplayCaps r;
  uint32_t large = 0;
  for (uint32_t l = 0; l < plan.numLevels(); ++l) {
    const LevelCounts& c = plan.levels[l];
    LevelCaps caps;
    caps.nodes = withSlack(c.nodes, slackPercent) + 1;
    caps.refs = withSlack(c.refs, slackPercent);
    caps.chunks = std::max(withSlack(c.chunks, slackPercent), 1u);
    large += caps.nodes;
    r.max.nodes = std::max(r.max.nodes, caps.nodes);
    r.max.refs = std::max(r.max.refs, caps.refs);
    r.max.chunks = std::max(r.max.chunks, caps.chunks);
    r.levels.push_back(caps);
  }
  const LevelCounts& t = plan.totals();
  r.smallTerms = std::max(withSlack(t.termBase, slackPercent), 1u);
  r.smallRefs = withSlack(t.termRefBase, slackPercent);
  r.max.large = large;
  r.max.terms = r.smallTerms + 2 * r.max.nodes;
  r.max.termRefs = r.smallRefs + 2 * r.max.refs;
  for (LevelCaps& caps : r.levels) {
    caps.large = r.max.large;
    caps.terms = r.max.terms;
    caps.termRefs = r.max.termRefs;
  }
  return r;
}

}  // namespace srt::kdgpu
