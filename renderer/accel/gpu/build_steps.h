// One body per kernel thread of the GPU kd-tree build: the kernels (large_nodes.cu, finalize.cu)
// call these with their thread index, and the host reference (host_reference.cpp) calls them in
// loops with the same arrays, the same doubled reference stream, the same scans and compactions,
// so the CPU tests run the device build's index arithmetic too.
#pragma once

#include <cassert>

#include "renderer/accel/gpu/build_common.h"

namespace srt::kdgpu {

// Scalars the device produces; copied back to the host in one piece at each round trip.
struct BuildCounters {
  uint32_t numValid;                // finite triangles (setup)
  uint32_t kept;                    // references after the child-list compaction (A)
  uint32_t nextRefs;                // references of the next large level (compaction B)
  uint32_t nextLarge;               // large children
  uint32_t newTerms;                // terminal children
  uint32_t newTermRefs;             // their references
  uint32_t totalNodes, totalPrims;  // of the finished tree
  Aabb rawBounds;                   // of the finite triangles, before widening
  Aabb rootCell;                    // the tree's bounds
};

// Per child of a level: what the classification found, and the scan's three counters.
struct ChildInfo {
  Aabb cell;
  uint32_t depth, count, isLarge;
};
struct ChildScan {
  uint32_t large, terms, termRefs;
};
SRT_CPU_GPU inline ChildScan operator+(const ChildScan& a, const ChildScan& b) {
  return {a.large + b.large, a.terms + b.terms, a.termRefs + b.termRefs};
}

// A triangle reference of the large-node stage: one 32-byte record, so each compaction moves one
// field (the record size the compaction primitives are built for) instead of three.
struct alignas(16) Ref {
  Aabb box;  // the triangle clipped to its node's cell
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
  ref[i] = {finite ? rawTriangleBox(v) : emptyAabb(), i, 0u};
  keep[i] = finite;
}

SRT_CPU_GPU inline void stepWidenBox(uint32_t i, float eps, Ref* ref) {
  Aabb& b = ref[i].box;
  for (int k = 0; k < 3; ++k)
    if (b.lo[k] < b.hi[k]) b.lo[k] -= eps, b.hi[k] += eps;
}

// The segmented reduction reads boxes and owners as arrays of their own.
SRT_CPU_GPU inline void stepUnpack(uint32_t i, const Ref* ref, Aabb* box, uint32_t* owner) {
  box[i] = ref[i].box;
  owner[i] = ref[i].owner;
}

// The root as the only terminal: its references in the terminal arrays.
SRT_CPU_GPU inline void stepRootTerminalRef(uint32_t i, const Ref* ref, uint32_t* termTri,
                                            Aabb* termBox) {
  termTri[i] = ref[i].tri;
  termBox[i] = ref[i].box;
}

// ---- One large level

// Reference i of `count` to the doubled stream: [0, count) below copies, [count, 2 count) above
// copies, owner o below -> child o, above -> child o + numNodes.
SRT_CPU_GPU inline void stepRouteReference(uint32_t i, const TriangleMeshView& mesh, float eps,
                                           const Ref* cur, uint32_t count, const LargeNode* level,
                                           uint32_t numNodes, Ref* d, uint8_t* dKeep) {
  const Ref r = cur[i];
  assert(r.owner < numNodes);
  Vec3f v[3];
  triangleVertices(mesh, r.tri, v);
  bool below, above;
  Aabb bb, ba;
  routeReference(level[r.owner], r.box, v, eps, &below, &bb, &above, &ba);
  d[i] = {bb, r.tri, r.owner};
  d[count + i] = {ba, r.tri, r.owner + numNodes};
  dKeep[i] = below;
  dKeep[count + i] = above;
}

// i in [0, n] of the n compacted references (owners sorted): start[c] = first reference of child
// c, start[numChildren] = n; children without references get the next one's start.
SRT_CPU_GPU inline void stepChildStarts(uint32_t i, const Ref* ref, uint32_t n,
                                        uint32_t numChildren, uint32_t* start) {
  const int64_t prev = i == 0 ? -1 : int64_t(ref[i - 1].owner);
  const int64_t cur = i == n ? int64_t(numChildren) : int64_t(ref[i].owner);
  assert(cur >= prev && cur <= int64_t(numChildren));
  for (int64_t s = prev + 1; s <= cur; ++s) start[s] = i;
}

SRT_CPU_GPU inline void stepClassifyChild(uint32_t c, const LargeNode* level, uint32_t numNodes,
                                          const uint32_t* start, uint32_t threshold, int maxDepth,
                                          ChildInfo* info, ChildScan* scanIn) {
  const LargeNode& parent = level[c % numNodes];
  const int side = int(c / numNodes);
  ChildInfo ci;
  ci.cell = childCell(parent, side);
  ci.depth = parent.depth + parent.numCuts + 1;
  ci.count = start[c + 1] - start[c];
  ci.isLarge = !parent.noSplit && ci.count > threshold && int(ci.depth) < maxDepth;
  info[c] = ci;
  scanIn[c] = {ci.isLarge, 1u - ci.isLarge, ci.isLarge ? 0u : ci.count};
}

// With the inclusive scan of the classification: large children become the next level's nodes,
// the others terminals (appended after termBase, references after termRefBase).
SRT_CPU_GPU inline void stepAssignChild(uint32_t c, LargeNode* level, uint32_t numNodes,
                                        const ChildInfo* info, const ChildScan* inclusive,
                                        uint32_t nextBase, uint32_t termBase, uint32_t termRefBase,
                                        LevelNode* next, Terminal* terms, uint32_t* handle) {
  const ChildInfo ci = info[c];
  const ChildScan s = inclusive[c];
  uint32_t h;
  if (ci.isLarge) {
    next[s.large - 1] = {ci.cell, ci.depth};
    h = nextBase + s.large - 1;
  } else {
    const uint32_t t = termBase + s.terms - 1;
    terms[t] = {ci.cell, ci.depth, termRefBase + s.termRefs - ci.count, ci.count};
    h = kTerminalBit | t;
  }
  level[c % numNodes].child[c / numNodes] = h;
  handle[c] = h;
}

// Compacted reference i (of maxRefs slots, n used): terminal children's references go to the
// terminal arrays; large children's get a keep flag and, in place, their owner in the next level.
SRT_CPU_GPU inline void stepRouteToChild(uint32_t i, uint32_t n, Ref* ref, const uint32_t* start,
                                         const uint32_t* handle, uint32_t nextBase,
                                         const Terminal* terms, uint32_t* termTri, Aabb* termBox,
                                         uint8_t* keep) {
  if (i >= n) {
    keep[i] = 0;
    return;
  }
  const uint32_t c = ref[i].owner, h = handle[c];
  if (h & kTerminalBit) {
    const Terminal& t = terms[h & ~kTerminalBit];
    assert(i - start[c] < t.refCount);
    const uint32_t k = t.refStart + (i - start[c]);
    termTri[k] = ref[i].tri;
    termBox[k] = ref[i].box;
    keep[i] = 0;
  } else {
    keep[i] = 1;
    ref[i].owner = h - nextBase;
  }
}

// ---- Finalize

struct Sizes {
  const uint32_t *termNodes, *termRefs, *largeSize, *largePrims;
  SRT_CPU_GPU uint32_t nodes(uint32_t h) const {
    return h & kTerminalBit ? termNodes[h & ~kTerminalBit] : largeSize[h];
  }
  SRT_CPU_GPU uint32_t prims(uint32_t h) const {
    return h & kTerminalBit ? termRefs[h & ~kTerminalBit] : largePrims[h];
  }
};

struct Offsets {
  uint32_t *largeOffset, *largePrimOffset, *termOffset, *termPrimOffset;
  SRT_CPU_GPU void place(uint32_t h, uint32_t node, uint32_t prim) const {
    if (h & kTerminalBit) {
      termOffset[h & ~kTerminalBit] = node;
      termPrimOffset[h & ~kTerminalBit] = prim;
    } else {
      largeOffset[h] = node;
      largePrimOffset[h] = prim;
    }
  }
};

// Bottom-up, one large level at a time (its children are done).
SRT_CPU_GPU inline void stepSubtreeSize(uint32_t g, const LargeNode* large, const Sizes& sizes,
                                        uint32_t* largeSize, uint32_t* largePrims) {
  const LargeNode& n = large[g];
  largeSize[g] = largeOwnNodes(n) + sizes.nodes(n.child[0]) + sizes.nodes(n.child[1]);
  largePrims[g] = sizes.prims(n.child[0]) + sizes.prims(n.child[1]);
}

SRT_CPU_GPU inline void stepPlaceRoot(bool rootIsTerminal, const LargeNode* large,
                                      const Terminal* terms, const Sizes& sizes,
                                      const Offsets& offsets, BuildCounters* counters) {
  const uint32_t root = rootIsTerminal ? kTerminalBit : 0u;
  offsets.place(root, 0, 0);
  counters->totalNodes = sizes.nodes(root);
  counters->totalPrims = sizes.prims(root);
  counters->rootCell = rootIsTerminal ? terms[0].cell : large[0].cell;
}

// Top-down, one large level at a time (its own offsets are set).
SRT_CPU_GPU inline void stepPlaceLarge(uint32_t g, const LargeNode* large, const Sizes& sizes,
                                       const Offsets& offsets, KdNode* out) {
  const LargeNode& n = large[g];
  const uint32_t belowSize = sizes.nodes(n.child[0]);
  const uint32_t below =
      writeLargeNode(n, offsets.largeOffset[g], sizes.largeSize[g], belowSize, out);
  const uint32_t prim = offsets.largePrimOffset[g];
  offsets.place(n.child[0], below, prim);
  offsets.place(n.child[1], below + belowSize, prim + sizes.prims(n.child[0]));
}

// Item k of terminal t: node k and reference k of its scratch, where they exist.
SRT_CPU_GPU inline void stepPlaceTerminalItem(uint32_t t, uint32_t k, const Terminal* terms,
                                              const Sizes& sizes, const uint32_t* termOffset,
                                              const uint32_t* termPrimOffset,
                                              const KdNode* scratchNodes,
                                              const uint32_t* scratchRefs, KdNode* outNodes,
                                              uint32_t* outPrims) {
  const size_t base = size_t(kScratchPerRef) * terms[t].refStart;
  const uint32_t handle = kTerminalBit | t;
  assert(sizes.nodes(handle) <= kScratchPerRef * terms[t].refCount + 1);
  if (k < sizes.nodes(handle))
    outNodes[termOffset[t] + k] =
        relocate(scratchNodes[base + t + k], termOffset[t], termPrimOffset[t]);
  if (k < sizes.prims(handle)) outPrims[termPrimOffset[t] + k] = scratchRefs[base + k];
}

}  // namespace srt::kdgpu
