// The large-node stage's per-node decisions (Zhou et al. 2008 section 4.2, with the spatial
// median replaced by binned SAH): empty space wider than a fraction of the node is cut off first,
// then the node is split at the best of kBins - 1 planes per axis by the SAH, or kept whole as a
// leaf when no plane beats the cost of intersecting all its references (the CPU builder's rule).
// Per-node bin counts come from chunk histograms summed by the segmented reduction over ints.
//
// Node records of the build (not the final format): one LargeNode per node of the large stage,
// with up to 6 empty-space cuts, then a split whose two children are handles (a later large
// node, or a terminal); a leaf has only the below child, holding every reference.
#pragma once

#include "renderer/accel/gpu/build_common.h"
#include "renderer/accel/gpu/small_clip_shared.h"

namespace srt::kdgpu {

// Bins per axis over the node's references' bounds: kBins + 1 candidate planes, the bounds' faces
// included. 64 rather than 32: CornellBox-Sphere's SAH went from 1.071x the CPU builder's to
// 1.031x, the other scenes within 1% either way (bench/accel/RESULTS.md).
constexpr int kBins = 64;
// Counters of one node: [axis][box lo, box hi][bin].
constexpr int kBinCounters = 6 * kBins;
// References per chunk: each chunk of a node's references gets one histogram of kBinCounters.
// The bin counts are sums, so the chunking changes no tree. 1024 rather than 256, 512 or 2048:
// fewest histograms for the bin reduction at the top levels without idling SMs there (H100:
// Conference Room 8.3-8.65 ms against 8.6-8.7 with 256, 871K 24.4 against 24.9-25.2).
constexpr uint32_t kChunkRefs = 1024;

// A node handed from one large level to the next, with where its references lie in the level's
// list (sorted by node) and the chunks they form.
struct LevelNode {
  Bounds3f cell;  // lo > hi: the root, whose cell is its references' bounds
  uint32_t depth;
  uint32_t refStart, refCount;
  uint32_t chunkStart, chunkCount;
};

SRT_CPU_GPU inline uint32_t chunksOf(uint32_t refs) {
  return (refs + kChunkRefs - 1) / kChunkRefs;
}

// The node's region and its empty-space cuts.
struct NodeCuts {
  Bounds3f cell;   // the node's region, before cuts
  Bounds3f inner;  // after the cuts: the region the split divides
  Bounds3f bins;   // the references' bounds within it: the bins cover this box
  uint32_t numCuts;
  uint32_t cutCodes;  // 3 bits per cut: axis << 1 | (1: the empty part is above the plane)
  float cutPos[6];
};

struct LargeNode {
  NodeCuts cuts;
  uint32_t depth;  // interior nodes above this one in the final tree
  float split;
  int axis;
  uint32_t leaf;      // 1: no split, every reference goes to child[0], below the cuts
  uint32_t child[2];  // below, above (handles)
};

// Empty-space cutting (Zhou et al. section 4.2): each side of the node's box where the gap to its
// references' bounds (`tightIn`) exceeds `ratio` of the extent is cut off, while the depth budget
// allows.
SRT_CPU_GPU inline NodeCuts planCuts(const LevelNode& in, const Bounds3f& tightIn, float ratio,
                                     int maxDepth) {
  NodeCuts n;
  n.cell = in.cell.empty() ? tightIn : in.cell;
  n.numCuts = 0;
  n.cutCodes = 0;
  for (int i = 0; i < 6; ++i) n.cutPos[i] = 0.f;
  Bounds3f tight;
  for (int k = 0; k < 3; ++k) {
    tight.lo[k] = fmaxf(tightIn.lo[k], n.cell.lo[k]);
    tight.hi[k] = fminf(tightIn.hi[k], n.cell.hi[k]);
  }
  Bounds3f b = n.cell;
  const int maxCuts = maxDepth - 1 - int(in.depth);
  if (!tight.empty()) {
    for (int k = 0; k < 3; ++k) {
      const float extent = n.cell.hi[k] - n.cell.lo[k];
      if (!(extent > 0.f)) continue;
      for (int side = 0; side < 2; ++side) {
        const float gap = side == 0 ? tight.lo[k] - b.lo[k] : b.hi[k] - tight.hi[k];
        if (int(n.numCuts) < maxCuts && gap > ratio * extent) {
          const float pos = side == 0 ? tight.lo[k] : tight.hi[k];
          n.cutPos[n.numCuts] = pos;
          n.cutCodes |= uint32_t(k << 1 | side) << (3 * n.numCuts);
          ++n.numCuts;
          (side == 0 ? b.lo[k] : b.hi[k]) = pos;
        }
      }
    }
  }
  n.inner = b;
  n.bins = b;
  if (!tight.empty())
    for (int k = 0; k < 3; ++k)
      n.bins.lo[k] = fmaxf(tight.lo[k], b.lo[k]), n.bins.hi[k] = fminf(tight.hi[k], b.hi[k]);
  return n;
}

// The bin of coordinate x on an axis starting at lo with kBins / extent = scale (0: flat axis).
SRT_CPU_GPU inline int binIndex(float x, float lo, float scale) {
  const float f = (x - lo) * scale;
  const int b = f > 0.f ? int(fminf(f, float(kBins - 1))) : 0;
  return b;
}

// The six counters a reference box adds one to: its lo and hi bin on each axis of `inner`.
SRT_CPU_GPU inline void binSlots(const Bounds3f& box, const Bounds3f& inner, int slot[6]) {
  for (int k = 0; k < 3; ++k) {
    const float extent = inner.hi[k] - inner.lo[k];
    const float scale = extent > 0.f ? float(kBins) / extent : 0.f;
    slot[2 * k] = (2 * k) * kBins + binIndex(box.lo[k], inner.lo[k], scale);
    slot[2 * k + 1] = (2 * k + 1) * kBins + binIndex(box.hi[k], inner.lo[k], scale);
  }
}

// Plane j in [0, kBins] of axis k of the bins over `box` (0 and kBins: its faces).
SRT_CPU_GPU inline float binPlane(const Bounds3f& box, int k, int j) {
  if (j == kBins) return box.hi[k];
  // One explicit fma: the device would contract the expression anyway, the host would not.
  return fmaf(box.hi[k] - box.lo[k], float(j) / float(kBins), box.lo[k]);
}

// A node's record before its split is chosen: a leaf below its cuts.
SRT_CPU_GPU inline LargeNode unsplitNode(const NodeCuts& cuts, uint32_t depth) {
  LargeNode n;
  n.cuts = cuts;
  n.depth = depth;
  n.child[0] = n.child[1] = 0;
  n.axis = 0;
  n.split = 0.f;
  n.leaf = 1;
  return n;
}

// Whether any plane may split the node (its box has area, the depth budget allows).
SRT_CPU_GPU inline bool maySplit(const NodeCuts& cuts, uint32_t depth, int maxDepth) {
  return cuts.inner.surfaceArea() > 0.f && int(depth + cuts.numCuts) < maxDepth;
}

// SAH cost of plane j of axis k (a non-flat axis of cuts.inner), with nl boxes starting and
// endedBelow boxes ending below it; +inf when the plane is not strictly inside the node's box.
// One expression for the sequential and the warp-parallel choice, so both cost alike.
SRT_CPU_GPU inline float binnedPlaneCost(const NodeCuts& cuts, int k, int j, int nl, int endedBelow,
                                         uint32_t count, float invHalfArea, const SahParams& sah) {
  const Bounds3f& b = cuts.inner;
  const float p = binPlane(cuts.bins, k, j);
  if (!(b.lo[k] < p && p < b.hi[k])) return INFINITY;
  float pl, pr;
  childAreas(b, k, p, invHalfArea, &pl, &pr);
  return sah.splitCost(pl, pr, float(nl), float(int(count) - endedBelow));
}

// The best binned-SAH plane of a node of `count` references with counters `bins` (kBinCounters),
// or a leaf when none costs less than intersecting every reference. Ties go to the lower axis,
// then the lower plane, so the host and the device choose alike.
SRT_CPU_GPU inline LargeNode chooseSplit(const NodeCuts& cuts, uint32_t depth, uint32_t count,
                                         const int* bins, const SahParams& sah, int maxDepth) {
  LargeNode n = unsplitNode(cuts, depth);
  float best = sah.leafCost(float(count));
  bool found = false;
  if (maySplit(cuts, depth, maxDepth)) {
    const Bounds3f& b = cuts.inner;
    const float invHalfArea = 2.f / b.surfaceArea();
    for (int k = 0; k < 3; ++k) {
      if (!(b.lo[k] < b.hi[k])) continue;
      const int* lo = bins + (2 * k) * kBins;
      const int* hi = bins + (2 * k + 1) * kBins;
      int nl = 0, endedBelow = 0;
      for (int j = 0; j <= kBins; ++j) {
        if (j > 0) nl += lo[j - 1], endedBelow += hi[j - 1];  // boxes starting / ending below
        const float cost = binnedPlaneCost(cuts, k, j, nl, endedBelow, count, invHalfArea, sah);
        if (cost < best) best = cost, n.axis = k, n.split = binPlane(cuts.bins, k, j), found = true;
      }
    }
  }
  n.leaf = !found;
  return n;
}

// Which side(s) of plane p on axis a a box belongs to; flat boxes on the plane go below. Shared by
// both stages so a reference is never dropped: every box is below, above, or both.
SRT_CPU_GPU inline bool goesBelow(const Bounds3f& b, int a, float p) {
  return b.lo[a] < p || (b.lo[a] == p && b.hi[a] == p);
}
SRT_CPU_GPU inline bool goesAbove(const Bounds3f& b, int a, float p) {
  return b.hi[a] > p;
}

SRT_CPU_GPU inline Bounds3f childCell(const LargeNode& n, int side) {
  Bounds3f c = n.cuts.inner;
  if (n.leaf) return c;
  if (side == 0)
    c.hi[n.axis] = n.split;
  else
    c.lo[n.axis] = n.split;
  return c;
}

// Routes one reference of node n to its children; straddling triangles are clipped to each
// child's cell ("perfect splits"), which may drop a side the triangle only grazes. Only they
// read the triangle's corners.
template <bool StreamingClip = false>
SRT_CPU_GPU inline void routeReference(const LargeNode& n, const Bounds3f& box,
                                       const TriangleMeshView& mesh, uint32_t tri, float eps,
                                       bool* below, Bounds3f* boxBelow, bool* above,
                                       Bounds3f* boxAbove, float* clipBuffer = nullptr) {
  *boxBelow = *boxAbove = box;
  if (n.leaf) {
    *below = true;
    *above = false;
    return;
  }
  *below = goesBelow(box, n.axis, n.split);
  *above = goesAbove(box, n.axis, n.split);
  if (*below && *above) {
    Vec3f v[3];
    triangleVertices(mesh, tri, v);
    if (clipBuffer) {  // the polygon in the caller's buffer (small_clip_shared.h)
      *below = clippedBoundsInBuffer(clipBuffer, v, childCell(n, 0), eps, boxBelow);
      *above = clippedBoundsInBuffer(clipBuffer, v, childCell(n, 1), eps, boxAbove);
      return;
    }
    *below = clippedBounds<StreamingClip>(v, childCell(n, 0), eps, boxBelow);
    *above = clippedBounds<StreamingClip>(v, childCell(n, 1), eps, boxAbove);
  }
}

// Final-tree nodes of a large node beyond its children: each cut adds an interior node and an
// empty leaf, the split one interior node.
SRT_CPU_GPU inline uint32_t largeOwnNodes(const LargeNode& n) {
  return 2 * n.cuts.numCuts + (n.leaf ? 0u : 1u);
}

// Writes a large node's cuts and split at offset o of a subtree of `size` nodes, depth-first: a
// cut whose empty part is below puts the empty leaf next; one whose empty part is above puts it
// last in the subtree. Returns the offset of the below child (the above child follows it after
// belowSize nodes).
SRT_CPU_GPU inline uint32_t writeLargeNode(const LargeNode& n, uint32_t o, uint32_t size,
                                           uint32_t belowSize, KdNode* out) {
  uint32_t end = o + size;
  for (uint32_t c = 0; c < n.cuts.numCuts; ++c) {
    const uint32_t code = (n.cuts.cutCodes >> (3 * c)) & 7u;
    const int axis = int(code >> 1);
    if ((code & 1u) == 0) {  // empty below the plane
      out[o].initInterior(axis, n.cuts.cutPos[c], o + 2);
      out[o + 1].initLeaf(0, 0);
      o += 2;
    } else {
      out[o].initInterior(axis, n.cuts.cutPos[c], end - 1);
      out[end - 1].initLeaf(0, 0);
      o += 1;
      end -= 1;
    }
  }
  if (n.leaf) return o;
  out[o].initInterior(n.axis, n.split, o + 1 + belowSize);
  return o + 1;
}

}  // namespace srt::kdgpu
