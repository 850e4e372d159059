// One body per kernel thread of the GPU kd-tree build: the kernels (large_nodes.cu, finalize.cu)
// call these with their thread index, and the host reference (host_reference.cpp) calls them in
// loops with the same arrays, the same doubled reference stream, the same scans and compactions,
// so the CPU tests run the device build's index arithmetic too.
#pragma once

#include <cassert>

#include "renderer/accel/gpu/large_node_split.h"

namespace srt::kdgpu {

// Scalars the device produces; copied back to the host in one piece at each round trip.
struct BuildCounters {
  uint32_t numValid;                // finite triangles (setup)
  uint32_t kept;                    // references after the child-list compaction
  uint32_t totalNodes, totalPrims;  // of the finished tree
  Bounds3f rawBounds;               // of the finite triangles, before widening
  Bounds3f rootCell;                // the tree's bounds
};

// A tree's node and primitive-index counts, or the room of arrays for them.
struct TreeSize {
  uint32_t nodes = 0, prims = 0;
};
SRT_CPU_GPU inline bool treeFits(const BuildCounters& c, TreeSize room) {
  return c.totalNodes <= room.nodes && c.totalPrims <= room.prims;
}

// Per child of a level: what the classification found, and what it adds to the level's scan.
// A leaf's above child does not exist: it is neither large nor a terminal.
struct ChildInfo {
  Bounds3f cell;
  uint32_t depth, count, isLarge, exists;
};
struct ChildScan {
  uint32_t large, terms, termRefs;
  uint32_t largeRefs, chunks;  // references and bin chunks of the large children
  uint32_t refs;               // every child's references: the child lists' starts
};
SRT_CPU_GPU inline ChildScan operator+(const ChildScan& a, const ChildScan& b) {
  return {a.large + b.large,         a.terms + b.terms,   a.termRefs + b.termRefs,
          a.largeRefs + b.largeRefs, a.chunks + b.chunks, a.refs + b.refs};
}

// A triangle reference of the large-node stage: one 32-byte record, so each compaction moves one
// field (the record size the compaction primitives are built for) instead of three.
struct alignas(16) Ref {
  Bounds3f box;  // the triangle clipped to its node's cell
  uint32_t tri;
  uint32_t owner;  // node of the current level (child index in the doubled stream)
};
static_assert(sizeof(Ref) == 32, "Ref must stay one 32-byte record");

// ---- Setup

SRT_CPU_GPU inline void stepTriangleBox(uint32_t i, const TriangleMeshView& mesh, Ref* ref,
                                        uint8_t* keep) {
  Vec3f v[3];
  triangleVertices(mesh, i, v);
  const bool finite = finiteVec(v[0]) && finiteVec(v[1]) && finiteVec(v[2]);
  ref[i] = {finite ? rawTriangleBox(v) : emptyBounds(), i, 0u};
  keep[i] = finite;
}

SRT_CPU_GPU inline void stepWidenBox(uint32_t i, float eps, Ref* ref) {
  Bounds3f& b = ref[i].box;
  for (int k = 0; k < 3; ++k)
    if (b.lo[k] < b.hi[k]) b.lo[k] -= eps, b.hi[k] += eps;
}

// The segmented reduction reads boxes and owners as arrays of their own.
SRT_CPU_GPU inline void stepUnpack(uint32_t i, const Ref* ref, Bounds3f* box, uint32_t* owner) {
  box[i] = ref[i].box;
  owner[i] = ref[i].owner;
}

// The bounds reduction's segment offsets of a level, read from its nodes (no pass over owners):
// i in [0, numNodes].
SRT_CPU_GPU inline void stepLevelOffset(uint32_t i, const LevelNode* nodes, uint32_t numNodes,
                                        uint32_t count, uint32_t* offsets) {
  offsets[i] = i < numNodes ? nodes[i].refStart : count;
}

// The root as the only terminal: its references in the terminal arrays.
SRT_CPU_GPU inline void stepRootTerminalRef(uint32_t i, const Ref* ref, uint32_t* termTri,
                                            Bounds3f* termBox) {
  termTri[i] = ref[i].tri;
  termBox[i] = ref[i].box;
}

// ---- One large level

// Node of chunk c: the last node whose first chunk is <= c (every large node has a chunk).
SRT_CPU_GPU inline uint32_t chunkOwner(const LevelNode* nodes, uint32_t numNodes, uint32_t c) {
  uint32_t lo = 0, hi = numNodes - 1;
  while (lo < hi) {
    const uint32_t mid = (lo + hi + 1) / 2;
    if (nodes[mid].chunkStart <= c)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// The segmented reduction's input for the bin counts: node n's counter k over its m chunks is the
// segment [K chunkStart + k m, + m) (K = kBinCounters), so out[n K + k] is node n's counter k.
struct BinLayout {
  int* partial;       // per-chunk counts
  uint32_t* owners;   // n K + k, for the variants that read owners
  uint32_t* offsets;  // numNodes K + 1 entries, for those that read offsets
};

// Chunk c's histogram: its references' bins over their node's box after the cuts, written with
// the segment description. `hist` holds kBinCounters zeroed counters (shared memory on the GPU).
SRT_CPU_GPU inline void stepChunkSegments(uint32_t c, uint32_t numChunks, const LevelNode& node,
                                          uint32_t n, const int* hist, const BinLayout& out,
                                          uint32_t lane, uint32_t lanes) {
  const uint32_t j = c - node.chunkStart, m = node.chunkCount;
  const size_t base = size_t(kBinCounters) * node.chunkStart;
  for (uint32_t k = lane; k < uint32_t(kBinCounters); k += lanes) {
    out.partial[base + k * m + j] = hist[k];
    out.owners[base + k * m + j] = n * kBinCounters + k;
    if (j == 0) out.offsets[size_t(n) * kBinCounters + k] = uint32_t(base + k * m);
  }
  if (c + 1 == numChunks && lane == 0)
    out.offsets[size_t(n + 1) * kBinCounters] = uint32_t(kBinCounters) * numChunks;
}

// Which children a reference went to.
struct RouteSides {
  bool below, above;
};

// Reference i of `count` to the doubled stream: [0, count) below copies, [count, 2 count) above
// copies, owner o below -> child o, above -> child o + numNodes. The caller adds the sides to
// the children's reference counts (childRefs), from which the child scan takes each child's
// list: the compacted stream holds the lists in child order.
template <bool StreamingClip = false>
SRT_CPU_GPU inline RouteSides stepRouteReference(uint32_t i, const TriangleMeshView& mesh,
                                                 float eps, const Ref* cur, uint32_t count,
                                                 const LargeNode* level, uint32_t numNodes, Ref* d,
                                                 uint8_t* dKeep, float* clipBuffer = nullptr) {
  const Ref r = cur[i];
  assert(r.owner < numNodes);
  RouteSides s;
  Bounds3f bb, ba;
  routeReference<StreamingClip>(level[r.owner], r.box, mesh, r.tri, eps, &s.below, &bb, &s.above,
                                &ba, clipBuffer);
  // Only the kept copies: the compaction reads no other.
  if (s.below) d[i] = {bb, r.tri, r.owner};
  if (s.above) d[count + i] = {ba, r.tri, r.owner + numNodes};
  dKeep[i] = s.below;
  dKeep[count + i] = s.above;
  return s;
}

// Child c of a level (below children first, then above): its cell, depth and references (from
// the route's counts), and whether it goes on as a large node.
SRT_CPU_GPU inline ChildInfo classifyChild(uint32_t c, const LargeNode* level, uint32_t numNodes,
                                           const uint32_t* childRefs, uint32_t threshold,
                                           int maxDepth) {
  const LargeNode& parent = level[c % numNodes];
  const int side = int(c / numNodes);
  ChildInfo ci;
  ci.cell = childCell(parent, side);
  ci.depth = parent.depth + parent.cuts.numCuts + (parent.leaf ? 0u : 1u);
  ci.count = childRefs[c];
  ci.exists = !(parent.leaf && side == 1);
  ci.isLarge = !parent.leaf && ci.count > threshold && int(ci.depth) < maxDepth;
  return ci;
}

// What the child adds to the level's scan.
SRT_CPU_GPU inline ChildScan childScanEntry(const ChildInfo& ci) {
  const uint32_t large = ci.isLarge, term = ci.exists && !ci.isLarge;
  ChildScan s{large, term, 0u, 0u, 0u, ci.count};
  if (term) s.termRefs = ci.count;
  if (large) s.largeRefs = ci.count, s.chunks = chunksOf(ci.count);
  return s;
}

// With the inclusive scan of the classification up to child c: a large child becomes a node of
// the next level, another a terminal (appended after termBase, references after termRefBase);
// start[c] is the child's first reference in the compacted stream.
SRT_CPU_GPU inline void stepAssignChild(uint32_t c, LargeNode* level, uint32_t numNodes,
                                        const ChildInfo& ci, const ChildScan& s, uint32_t nextBase,
                                        uint32_t termBase, uint32_t termRefBase, LevelNode* next,
                                        Terminal* terms, uint32_t* handle, uint32_t* start) {
  start[c] = s.refs - ci.count;
  uint32_t h = 0;
  if (ci.isLarge) {
    const uint32_t chunks = chunksOf(ci.count);
    next[s.large - 1] = {ci.cell,  ci.depth,          s.largeRefs - ci.count,
                         ci.count, s.chunks - chunks, chunks};
    h = nextBase + s.large - 1;
  } else if (ci.exists) {
    const uint32_t t = termBase + s.terms - 1;
    terms[t] = {ci.cell, ci.depth, termRefBase + s.termRefs - ci.count, ci.count};
    h = kTerminalBit | t;
  }
  level[c % numNodes].child[c / numNodes] = h;
  handle[c] = h;
}

// Child-list reference i (n of them): a terminal child's goes to the terminal arrays, a large
// child's to the next level's references (`nextRef`) at its node's first reference plus its
// rank in the child's list: the order a stable compaction of the lists would give, without one.
SRT_CPU_GPU inline void stepRouteToChild(uint32_t i, uint32_t n, const Ref* ref,
                                         const uint32_t* start, const uint32_t* handle,
                                         uint32_t nextBase, const Terminal* terms,
                                         const LevelNode* next, uint32_t* termTri,
                                         Bounds3f* termBox, Ref* nextRef) {
  if (i >= n) return;
  const Ref r = ref[i];
  const uint32_t c = r.owner, h = handle[c], rank = i - start[c];
  if (h & kTerminalBit) {
    const Terminal& t = terms[h & ~kTerminalBit];
    assert(rank < t.refCount);
    const uint32_t k = t.refStart + rank;
    termTri[k] = r.tri;
    termBox[k] = r.box;
  } else {
    const uint32_t node = h - nextBase;
    assert(rank < next[node].refCount);
    nextRef[next[node].refStart + rank] = {r.box, r.tri, node};
  }
}

}  // namespace srt::kdgpu
