// The small-node stage (Zhou et al. 2008 section 4.3, with exact SAH as Wu, Zhao and Liu 2011):
// a team (a warp on the GPU, one thread in the host reference) builds the subtree of one terminal
// of <= 64 triangles depth-first, with exact SAH over every candidate plane, the CPU builder's
// leaf rule (split only when it costs no more than intersecting every triangle) and depth limit.
#pragma once

#include "renderer/accel/gpu/build_common.h"
#include "renderer/accel/gpu/small_clip_shared.h"

namespace srt::kdgpu {

// ---- Small-node stage: exact SAH over the candidate planes of <= 64 triangles, sets as bitmasks.
//
// Each node's triangle set is a 64-bit mask over its terminal's list. On entering a node its
// triangles are clipped to its cell (perfect splits: a triangle that misses the cell leaves the
// mask); the candidates are the six faces of those clipped boxes, each counted against every box
// of the node (O(m^2) for m triangles, spread over the team) with planar triangles put on the
// cheaper side, as the CPU builder's sweep does. The node's triangles are listed densely first
// (act), so the team's lanes share its 6m candidates and m clips, not the terminal's 6n and n.

// An above child waiting on the team's stack; its split plane is cell.lo[axis].
struct SmallStackEntry {
  uint64_t mask;
  Bounds3f cell;
  uint32_t packed;  // depth << 16 | parent << 2 | axis (parent: the interior node to patch)
};
// Pending above children a team can hold: a terminal's subtree stops splitting when full. Only a
// depth limit over 48 (more than 2^30 triangles) can reach it.
constexpr int kSmallStackDepth = 48;

// Box bounds as rows lo x, y, z, hi x, y, z; the odd row stride puts a lane's row a of triangle
// j in bank (a + j) % 32, so lanes counting on different axes do not collide.
constexpr int kBoundRowStride = kSmallMax + 1;

// What one team (a warp on the GPU, one thread on the host) keeps in shared memory.
struct SmallShared {
  float bnd[6][kBoundRowStride];  // boxes clipped to the current node's cell
  float vert[kSmallMax][9];       // the triangles' vertices, read from the mesh once per terminal
  uint8_t act[kSmallMax];         // the current node's triangles, in increasing order
  SmallStackEntry stack[kSmallStackDepth];
};

SRT_CPU_GPU inline void storeBox(SmallShared& sh, uint32_t j, const Bounds3f& b) {
  for (int k = 0; k < 3; ++k) sh.bnd[k][j] = b.lo[k], sh.bnd[3 + k][j] = b.hi[k];
}
SRT_CPU_GPU inline void storeEmpty(SmallShared& sh, uint32_t j) {  // lo > hi on x
  sh.bnd[0][j] = 1.f;
  sh.bnd[3][j] = 0.f;
}
SRT_CPU_GPU inline bool storedNonEmpty(const SmallShared& sh, uint32_t j) {
  return sh.bnd[0][j] <= sh.bnd[3][j];
}

// Candidate c = 6 j + r: the lo (r even) or hi (r odd) face of triangle j's box on axis r / 2.
SRT_CPU_GPU inline float candidatePlane(const SmallShared& sh, uint32_t c, int* axis) {
  const uint32_t j = c / kCandidatesPerTri, r = c % kCandidatesPerTri;
  *axis = int(r >> 1);
  return sh.bnd[(r & 1u) * 3 + (r >> 1)][j];
}

SRT_CPU_GPU inline int popcount64(uint64_t m) {
#if SRT_IS_GPU_CODE
  return __popcll(m);
#else
  return __builtin_popcountll(m);
#endif
}

SRT_CPU_GPU inline int lowestBit64(uint64_t m) {  // m != 0
#if SRT_IS_GPU_CODE
  return __ffsll((long long)m) - 1;
#else
  return __builtin_ctzll(m);
#endif
}

// Sides of plane p for the boxes of a node: planar boxes (flat at p) go below when planarBelow.
SRT_CPU_GPU inline bool sideBelow(const SmallShared& sh, uint32_t j, int a, float p,
                                  bool planarBelow) {
  const float lo = sh.bnd[a][j], hi = sh.bnd[3 + a][j];
  return lo < p || (planarBelow && lo == p && hi == p);
}
SRT_CPU_GPU inline bool sideAbove(const SmallShared& sh, uint32_t j, int a, float p,
                                  bool planarBelow) {
  const float lo = sh.bnd[a][j], hi = sh.bnd[3 + a][j];
  return hi > p || (!planarBelow && lo == p && hi == p);
}

// Lists the triangles of `mask` densely in sh.act (lane j writes triangle j's slot).
template <typename Team>
SRT_CPU_GPU void listActive(const Team& team, SmallShared& sh, uint64_t mask, uint32_t n) {
  for (uint32_t j = team.lane(); j < n; j += team.size())
    if (mask >> j & 1ull) sh.act[popcount64(mask & ((1ull << j) - 1))] = uint8_t(j);
}

// SAH cost of splitting `cell` at candidate c with the node's `count` boxes listed in sh.act
// (FLT_MAX when the plane is not strictly inside the cell); *planarBelow receives the cheaper
// side for planar ones.
SRT_CPU_GPU inline float candidateCost(const SmallShared& sh, uint32_t c, uint32_t count,
                                       const Bounds3f& cell, float invHalfArea,
                                       const SahParams& sah, bool* planarBelow) {
  int a;
  const float p = candidatePlane(sh, c, &a);
  if (!(cell.lo[a] < p && p < cell.hi[a])) return FLT_MAX;
  const float* rowLo = sh.bnd[a];
  const float* rowHi = sh.bnd[3 + a];
  int nl = 0, nr = 0, np = 0;
#if SRT_IS_GPU_CODE
#pragma unroll 4
#endif
  for (uint32_t k = 0; k < count; ++k) {
    const uint32_t j = sh.act[k];
    const float lo = rowLo[j], hi = rowHi[j];
    nl += lo < p;
    nr += hi > p;
    np += lo == p && hi == p;
  }
  float pl, pr;
  childAreas(cell, a, p, invHalfArea, &pl, &pr);
  const float below = sah.splitCost(pl, pr, float(nl + np), float(nr));
  const float above = sah.splitCost(pl, pr, float(nl), float(nr + np));
  *planarBelow = below <= above;
  return *planarBelow ? below : above;
}

// The team of one: the host reference runs the small-node builder with it.
struct SequentialTeam {
  uint32_t lane() const { return 0; }
  uint32_t size() const { return 1; }
  bool leader() const { return true; }
  void sync() const {}
  template <typename Pred>
  uint64_t mask64(uint32_t n, Pred pred) const {
    uint64_t m = 0;
    for (uint32_t j = 0; j < n; ++j)
      if (pred(j)) m |= 1ull << j;
    return m;
  }
  void argmin(float*, uint32_t*) const {}
};

struct SmallOutput {
  KdNode* nodes;
  uint32_t nodeCap;
  uint32_t* refs;
  uint32_t refCap;
};

// Where a team's depth-first walk over one terminal's subtree stands (every lane holds a copy).
struct SmallWalk {
  uint64_t mask;  // the current node's triangles
  Bounds3f cell;
  uint32_t depth;
  uint32_t used, usedRefs;        // nodes and references written so far
  uint32_t pending, pendingRefs;  // above children on the stack, and their references
  int top;
  // -1, or the axis of the split just descended below from a node whose boxes clipToCell made:
  // the boxes in shared memory are then the parent's, and only triangles crossing the new face
  // need clipping again (keepClamped).
  int reuseAxis;
  bool boxesClipped;  // the current node's boxes are clipToCell's (not the terminal's as loaded)
  bool reuse;         // the variant: reuse the parent's boxes where they stay exact
  // The fast variant: each node's boxes are the terminal's cut to its cell (never smaller than the
  // clipped ones, so no hit is lost, but looser: the SAH sees more straddlers); leaves are still
  // clipped exactly. Null: every node clips (the full-quality tree).
  const Bounds3f* clampFrom;
  // This lane's polygon buffers (kClipLaneFloats, shared memory on the GPU), or null: clip.h's
  // arrays in local memory.
  float* clipBuffer;
};

// Triangle j of a below child whose parent's box is in shared memory: when the triangle's own
// bounds do not cross the child's new upper face on `a` (pushed out by eps), clipTriangle skips
// that face for the child as it did for the parent's face above it, every other face is the
// parent's, so the child's box is the parent's with its upper side clamped to the new face, bit
// for bit. Returns false when the triangle must be clipped.
SRT_CPU_GPU inline bool keepClamped(SmallShared& sh, uint32_t j, const Vec3f v[3], int a,
                                    float face, float eps) {
  const float triHi = clipMax(v[0][a], clipMax(v[1][a], v[2][a]));  // as clipTriangle's bounds
  if (triHi > face + eps) return false;                             // as clipToPlane's test
  const float hi = clipMin(sh.bnd[3 + a][j], face);
  if (sh.bnd[a][j] > hi)
    storeEmpty(sh, j);
  else
    sh.bnd[3 + a][j] = hi;
  return true;
}

// The terminal's boxes (already clipped to its cell) and vertices into shared memory.
template <typename Team>
SRT_CPU_GPU void loadTerminal(const Team& team, SmallShared& sh, const uint32_t* tris,
                              const Bounds3f* boxes, const TriangleMeshView& mesh, uint32_t n) {
  for (uint32_t j = team.lane(); j < n; j += team.size()) {
    storeBox(sh, j, boxes[j]);
    Vec3f v[3];
    triangleVertices(mesh, tris[j], v);
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k) sh.vert[j][3 * i + k] = v[i][k];
  }
  team.sync();
}

// The node's boxes: its triangles clipped to its cell; those that miss it leave the mask.
template <bool StreamingClip, typename Team>
SRT_CPU_GPU void clipToCell(const Team& team, SmallShared& sh, uint32_t n, float eps,
                            SmallWalk& w) {
  listActive(team, sh, w.mask, n);
  team.sync();
  const uint32_t before = uint32_t(popcount64(w.mask));
  for (uint32_t k = team.lane(); k < before; k += team.size()) {
    const uint32_t j = sh.act[k];
    if (w.clampFrom) {
      Bounds3f b = w.clampFrom[j];
      bool empty = false;
      for (int a = 0; a < 3; ++a) {
        b.lo[a] = clipMax(b.lo[a], w.cell.lo[a]);
        b.hi[a] = clipMin(b.hi[a], w.cell.hi[a]);
        empty = empty || b.lo[a] > b.hi[a];
      }
      if (empty)
        storeEmpty(sh, j);
      else
        storeBox(sh, j, b);
      continue;
    }
    const float* q = sh.vert[j];
    const Vec3f v[3] = {{q[0], q[1], q[2]}, {q[3], q[4], q[5]}, {q[6], q[7], q[8]}};
    if (w.reuseAxis >= 0 && keepClamped(sh, j, v, w.reuseAxis, w.cell.hi[w.reuseAxis], eps))
      continue;
    Bounds3f b;
    if (w.clipBuffer ? clippedBoundsInBuffer(w.clipBuffer, v, w.cell, eps, &b)
                     : clippedBounds<StreamingClip>(v, w.cell, eps, &b))
      storeBox(sh, j, b);
    else
      storeEmpty(sh, j);
  }
  team.sync();
  w.mask &= team.mask64(n, [&](uint32_t j) { return storedNonEmpty(sh, j); });
  w.boxesClipped = true;
  team.sync();
}

// The cheapest candidate (candidate << 1 | planar below), or ~0u when none may be taken; its
// cost in *bestCost. Lists the node's triangles in sh.act.
template <typename Team>
SRT_CPU_GPU uint32_t bestPlane(const Team& team, SmallShared& sh, uint32_t n, uint32_t count,
                               const SmallWalk& w, int maxDepth, const SahParams& sah,
                               float* bestCost) {
  listActive(team, sh, w.mask, n);
  team.sync();
  *bestCost = FLT_MAX;
  uint32_t best = ~0u;
  const float a2 = w.cell.surfaceArea();
  if (count == 0 || int(w.depth) >= maxDepth || !(a2 > 0.f)) return best;
  const float invHalfArea = 2.f / a2;
  // Candidates in increasing c per lane, so ties go to the lowest c as on the host.
  const uint32_t numCand = count * kCandidatesPerTri;
  for (uint32_t q = team.lane(); q < numCand; q += team.size()) {
    const uint32_t c =
        uint32_t(sh.act[q / kCandidatesPerTri]) * kCandidatesPerTri + q % kCandidatesPerTri;
    bool planarBelow = true;
    const float cost = candidateCost(sh, c, count, w.cell, invHalfArea, sah, &planarBelow);
    if (cost < *bestCost) *bestCost = cost, best = c << 1 | uint32_t(planarBelow);
  }
  team.argmin(bestCost, &best);
  return best;
}

// Splits the current node at `best` when the output and the stack have room: writes the
// interior node (its above child patched when reached), pushes the above child, descends below.
template <typename Team>
SRT_CPU_GPU bool splitNode(const Team& team, SmallShared& sh, uint32_t n, uint32_t best,
                           const SmallOutput& out, SmallWalk& w) {
  int axis;
  const float p = candidatePlane(sh, best >> 1, &axis);
  const bool planarBelow = best & 1u;
  const uint64_t below =
      w.mask & team.mask64(n, [&](uint32_t j) { return sideBelow(sh, j, axis, p, planarBelow); });
  const uint64_t above =
      w.mask & team.mask64(n, [&](uint32_t j) { return sideAbove(sh, j, axis, p, planarBelow); });
  const uint32_t refsAfter =
      w.usedRefs + uint32_t(popcount64(below)) + uint32_t(popcount64(above)) + w.pendingRefs;
  if (w.used + 3 + w.pending > out.nodeCap || refsAfter > out.refCap || w.top >= kSmallStackDepth)
    return false;
  Bounds3f cellAbove = w.cell;
  w.cell.hi[axis] = p;
  cellAbove.lo[axis] = p;
  if (team.leader()) {
    out.nodes[w.used].initInterior(axis, p, 0);
    sh.stack[w.top] = {above, cellAbove, (w.depth + 1) << 16 | w.used << 2 | uint32_t(axis)};
  }
  ++w.top;
  ++w.used;
  ++w.pending;
  w.pendingRefs += uint32_t(popcount64(above));
  w.mask = below;
  ++w.depth;
  w.reuseAxis = w.reuse && w.boxesClipped ? axis : -1;
  team.sync();
  return true;
}

template <typename Team>
SRT_CPU_GPU void writeLeaf(const Team& team, const uint32_t* tris, uint32_t n, uint32_t count,
                           const SmallOutput& out, SmallWalk& w) {
  if (count == 1) {
    if (team.leader()) out.nodes[w.used].initLeaf(1, tris[lowestBit64(w.mask)]);
  } else {
    for (uint32_t j = team.lane(); j < n; j += team.size())
      if (w.mask >> j & 1ull)
        out.refs[w.usedRefs + uint32_t(popcount64(w.mask & ((1ull << j) - 1)))] = tris[j];
    if (team.leader()) out.nodes[w.used].initLeaf(count, w.usedRefs);
    w.usedRefs += count > 1 ? count : 0;
  }
  ++w.used;
}

// Resumes at the last pending above child, patching its parent's child index.
template <typename Team>
SRT_CPU_GPU void popPending(const Team& team, SmallShared& sh, const SmallOutput& out,
                            SmallWalk& w) {
  team.sync();
  const SmallStackEntry e = sh.stack[--w.top];
  const int axis = int(e.packed & 3u);
  if (team.leader())
    out.nodes[(e.packed & 0xffffu) >> 2].initInterior(axis, e.cell.lo[axis], w.used);
  --w.pending;
  w.pendingRefs -= uint32_t(popcount64(e.mask));
  w.mask = e.mask;
  w.cell = e.cell;
  w.depth = e.packed >> 16;
  w.reuseAxis = -1;  // the boxes in shared memory are another node's
  team.sync();
}

// Builds the subtree of one terminal depth-first into out (child and primitive offsets local to
// it). All lanes of the team run this uniformly; Team provides lane(), size(), leader(), sync(),
// mask64(n, pred) (bit j = pred(j) for j < n) and argmin(cost, index). `boxes` are the terminal's
// reference boxes (already clipped to its cell); deeper nodes clip the mesh's triangles again.
// Returns nodes and references used through *nodesUsed / *refsUsed (written by the leader).
// StreamingClip and reuseBoxes pick speed variants (clip_streaming.h, keepClamped) that build the
// same subtree; clampBoxes the fast-quality subtree (SmallWalk::clampFrom).
template <bool StreamingClip = false, typename Team>
SRT_CPU_GPU void buildSmallSubtree(Team& team, SmallShared& sh, const Terminal& t,
                                   const uint32_t* tris, const Bounds3f* boxes, int maxDepth,
                                   const TriangleMeshView& mesh, float eps, const SahParams& sah,
                                   const SmallOutput& out, uint32_t* nodesUsed, uint32_t* refsUsed,
                                   bool reuseBoxes = true, bool clampBoxes = false,
                                   float* clipBuffer = nullptr) {
  const uint32_t n = t.refCount;
  if (n == 0 || n > uint32_t(kSmallMax) || int(t.depth) >= maxDepth) {  // one leaf
    for (uint32_t j = team.lane(); j < n; j += team.size()) out.refs[j] = tris[j];
    if (team.leader()) {
      out.nodes[0].initLeaf(n, n == 1 ? tris[0] : 0u);
      *nodesUsed = 1;
      *refsUsed = n;
    }
    return;
  }
  loadTerminal(team, sh, tris, boxes, mesh, n);
  SmallWalk w{
      n == 64 ? ~0ull : (1ull << n) - 1, t.cell, t.depth, 0, 0, 0, 0, 0, -1, false,
      reuseBoxes && !clampBoxes, clampBoxes ? boxes : nullptr, clipBuffer};
  for (bool root = true;; root = false) {
    if (!root) clipToCell<StreamingClip>(team, sh, n, eps, w);
    const uint32_t count = uint32_t(popcount64(w.mask));
    float bestCost;
    const uint32_t best = bestPlane(team, sh, n, count, w, maxDepth, sah, &bestCost);
    if (best != ~0u && bestCost <= sah.leafCost(float(count)) &&
        splitNode(team, sh, n, best, out, w))
      continue;
    if (w.clampFrom && !root) {
      // Clamped boxes may hold triangles that miss the leaf's cell: the leaf keeps only those
      // the exact clip finds in it, as the clip variant's leaves do.
      const Bounds3f* from = w.clampFrom;
      team.sync();  // bestPlane's lanes have read sh.act, which the clip lists again
      w.clampFrom = nullptr;
      w.reuseAxis = -1;
      clipToCell<StreamingClip>(team, sh, n, eps, w);
      w.clampFrom = from;
    }
    writeLeaf(team, tris, n, uint32_t(popcount64(w.mask)), out, w);
    if (w.top == 0) break;
    popPending(team, sh, out, w);
  }
  if (team.leader()) {
    *nodesUsed = w.used;
    *refsUsed = w.usedRefs;
  }
}

}  // namespace srt::kdgpu
