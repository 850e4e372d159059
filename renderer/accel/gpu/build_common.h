// The per-element steps of the GPU kd-tree build (Zhou et al. 2008), written once for the CUDA
// kernels and for the host reference (host_reference.cpp) that runs the same pipeline
// sequentially, so the CPU tests check the algorithm and the GPU tests check the plumbing.
//
// Node records of the build (not the final format):
//  - LargeNode: one per node of the large-node stage. Up to 6 empty-space cuts, then a
//    spatial-median split; its two children are handles (a later large node, or a terminal).
//  - Terminal: a node that left the large stage (<= smallNodeThreshold triangles, depth limit,
//    or unsplittable). The small-node stage turns each into a depth-first subtree in scratch.
// The finalize pass lays every record out depth-first in the KdNode format of kdtree.h.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdint>

#include "primitives/common/host_device.h"
#include "primitives/reduction/operators.h"
#include "renderer/accel/clip.h"
#include "renderer/accel/kdtree.h"

namespace srt::kdgpu {

using reduction::Aabb;

constexpr uint32_t kTerminalBit = 0x80000000u;  // child handle: terminal index, else large index
constexpr int kSmallMax = 64;                   // bitmask width of the small-node stage
constexpr int kCandidatesPerTri = 6;            // lo and hi of the clipped box on each axis
// Scratch a terminal of n triangles may use: nodes 8n + 1 at 8 * refStart + terminalIndex, leaf
// references 8n at 8 * refStart (the builder stops splitting before it would overflow).
constexpr uint32_t kScratchPerRef = 8;
// Once a large level holds more references than this many per triangle (triangles straddling
// every median split, e.g. long slivers), its children all go to the small-node stage: the
// reference count would otherwise double per level.
constexpr uint32_t kMaxReferenceGrowth = 8;

struct SahParams {
  float traversalCost = 15.f, intersectCost = 20.f, emptyBonus = 0.f;
};

struct LargeNode {
  Aabb cell;       // the node's region, before cuts
  Aabb inner;      // after the cuts; the split divides this one
  uint32_t depth;  // interior nodes above this one in the final tree
  uint32_t numCuts;
  uint32_t cutCodes;  // 3 bits per cut: axis << 1 | (1: the empty part is above the plane)
  float cutPos[6];
  float split;
  int axis;
  uint32_t noSplit;   // 1: nothing to split (a point or flat box): all references go below
  uint32_t child[2];  // below, above (handles)
};

struct Terminal {
  Aabb cell;
  uint32_t depth;
  uint32_t refStart, refCount;  // in the terminal reference arrays
};

// A node handed from one large level to the next.
struct LevelNode {
  Aabb cell;  // lo > hi: the root, whose cell is its references' bounds
  uint32_t depth;
};

SRT_CPU_GPU inline Aabb emptyAabb() {
  return reduction::AabbUnion::identity();
}
SRT_CPU_GPU inline bool isEmpty(const Aabb& b) {
  return b.lo[0] > b.hi[0] || b.lo[1] > b.hi[1] || b.lo[2] > b.hi[2];
}
SRT_CPU_GPU inline float area(const Aabb& b) {
  if (isEmpty(b)) return 0.f;
  const float dx = b.hi[0] - b.lo[0], dy = b.hi[1] - b.lo[1], dz = b.hi[2] - b.lo[2];
  return 2.f * (dx * dy + dy * dz + dz * dx);
}
SRT_CPU_GPU inline Bounds3f toBounds(const Aabb& b) {
  Bounds3f r;
  if (isEmpty(b)) return r;
  r.lo = Vec3f(b.lo[0], b.lo[1], b.lo[2]);
  r.hi = Vec3f(b.hi[0], b.hi[1], b.hi[2]);
  return r;
}

// Rounding allowance of the clipped boxes: 16 ulps of the largest coordinate (the CPU builder's).
SRT_CPU_GPU inline float clipEpsilon(const Aabb& rawBounds) {
  float m = 0.f;
  for (int k = 0; k < 3; ++k) m = fmaxf(m, fmaxf(fabsf(rawBounds.lo[k]), fabsf(rawBounds.hi[k])));
  return 16.f * FLT_EPSILON * m;
}

SRT_CPU_GPU inline bool finiteVec(Vec3f v) {
  using std::isfinite;  // the host overloads; CUDA provides its own
  return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

SRT_CPU_GPU inline void triangleVertices(const TriangleMeshView& mesh, uint32_t tri, Vec3f v[3]) {
  for (int i = 0; i < 3; ++i) v[i] = mesh.positions[mesh.indices[3 * size_t(tri) + i]];
}

// Bounds of the part of the triangle inside `voxel`, widened by eps where it is not flat (the CPU
// builder's clippedBounds, so both builders reference a triangle from the same voxels). False when
// the triangle misses the voxel.
SRT_CPU_GPU inline bool clippedBounds(const Vec3f v[3], const Aabb& voxel, float eps, Aabb* out) {
  Vec3f poly[2][12];
  for (int i = 0; i < 3; ++i) poly[0][i] = v[i];
  Aabb tb;
  for (int k = 0; k < 3; ++k) {
    tb.lo[k] = fminf(v[0][k], fminf(v[1][k], v[2][k]));
    tb.hi[k] = fmaxf(v[0][k], fmaxf(v[1][k], v[2][k]));
  }
  Aabb b = tb;
  int n = 3, cur = 0;
  bool clipped = false;
  for (int k = 0; k < 3 && n > 0; ++k) {
    if (tb.lo[k] < voxel.lo[k] - eps) {
      n = clipPolygon(poly[cur], n, k, voxel.lo[k] - eps, true, poly[1 - cur]);
      cur = 1 - cur;
      clipped = true;
    }
    if (n > 0 && tb.hi[k] > voxel.hi[k] + eps) {
      n = clipPolygon(poly[cur], n, k, voxel.hi[k] + eps, false, poly[1 - cur]);
      cur = 1 - cur;
      clipped = true;
    }
  }
  if (n == 0) return false;
  if (clipped) {
    for (int k = 0; k < 3; ++k) b.lo[k] = b.hi[k] = poly[cur][0][k];
    for (int i = 1; i < n; ++i)
      for (int k = 0; k < 3; ++k) {
        b.lo[k] = fminf(b.lo[k], poly[cur][i][k]);
        b.hi[k] = fmaxf(b.hi[k], poly[cur][i][k]);
      }
  }
  for (int k = 0; k < 3; ++k) {
    if (tb.lo[k] < tb.hi[k]) {  // flat triangles stay flat
      b.lo[k] = fmaxf(b.lo[k] - eps, tb.lo[k] - eps);
      b.hi[k] = fminf(b.hi[k] + eps, tb.hi[k] + eps);
    }
  }
  for (int k = 0; k < 3; ++k) {
    b.lo[k] = fmaxf(b.lo[k], voxel.lo[k]);
    b.hi[k] = fminf(b.hi[k], voxel.hi[k]);
    if (b.lo[k] > b.hi[k]) return false;
  }
  *out = b;
  return true;
}

SRT_CPU_GPU inline Aabb rawTriangleBox(const Vec3f v[3]) {
  Aabb b;
  for (int k = 0; k < 3; ++k) {
    b.lo[k] = fminf(v[0][k], fminf(v[1][k], v[2][k]));
    b.hi[k] = fmaxf(v[0][k], fmaxf(v[1][k], v[2][k]));
  }
  return b;
}

// The root's references: the triangle's box widened like clippedBounds against an infinite voxel.
SRT_CPU_GPU inline Aabb widenedTriangleBox(const Vec3f v[3], float eps) {
  Aabb b = rawTriangleBox(v);
  for (int k = 0; k < 3; ++k)
    if (b.lo[k] < b.hi[k]) b.lo[k] -= eps, b.hi[k] += eps;
  return b;
}

// Empty-space cutting and the spatial-median split (Zhou et al. section 4.2). `tight` is the
// reduction of the node's reference boxes; cuts are taken while the depth budget allows.
SRT_CPU_GPU inline LargeNode planLargeNode(const LevelNode& in, const Aabb& tightIn,
                                           float emptySpaceRatio, int maxDepth) {
  LargeNode n;
  const bool root = isEmpty(in.cell);
  n.cell = root ? tightIn : in.cell;
  n.depth = in.depth;
  n.numCuts = 0;
  n.cutCodes = 0;
  for (int i = 0; i < 6; ++i) n.cutPos[i] = 0.f;
  n.child[0] = n.child[1] = 0;
  Aabb tight;
  for (int k = 0; k < 3; ++k) {
    tight.lo[k] = fmaxf(tightIn.lo[k], n.cell.lo[k]);
    tight.hi[k] = fminf(tightIn.hi[k], n.cell.hi[k]);
  }
  Aabb b = n.cell;
  const int maxCuts = maxDepth - 1 - int(in.depth);
  if (!isEmpty(tight)) {
    for (int k = 0; k < 3; ++k) {
      const float extent = n.cell.hi[k] - n.cell.lo[k];
      if (!(extent > 0.f)) continue;
      for (int side = 0; side < 2; ++side) {
        const float gap = side == 0 ? tight.lo[k] - b.lo[k] : b.hi[k] - tight.hi[k];
        if (int(n.numCuts) < maxCuts && gap > emptySpaceRatio * extent) {
          const float pos = side == 0 ? tight.lo[k] : tight.hi[k];
          n.cutPos[n.numCuts] = pos;
          n.cutCodes |= uint32_t(k << 1 | side) << (3 * n.numCuts);
          ++n.numCuts;
          if (side == 0)
            b.lo[k] = pos;
          else
            b.hi[k] = pos;
        }
      }
    }
  }
  n.inner = b;
  const float dx = b.hi[0] - b.lo[0], dy = b.hi[1] - b.lo[1], dz = b.hi[2] - b.lo[2];
  n.axis = dx >= dy && dx >= dz ? 0 : (dy >= dz ? 1 : 2);
  const float mid = 0.5f * (b.lo[n.axis] + b.hi[n.axis]);
  n.noSplit = !(b.lo[n.axis] < mid && mid < b.hi[n.axis]);
  n.split = n.noSplit ? b.hi[n.axis] : mid;
  return n;
}

// Which side(s) of plane p on axis a a box belongs to; flat boxes on the plane go below. Shared by
// both stages so a reference is never dropped: every box is below, above, or both.
SRT_CPU_GPU inline bool goesBelow(const Aabb& b, int a, float p) {
  return b.lo[a] < p || (b.lo[a] == p && b.hi[a] == p);
}
SRT_CPU_GPU inline bool goesAbove(const Aabb& b, int a, float p) {
  return b.hi[a] > p;
}

SRT_CPU_GPU inline Aabb childCell(const LargeNode& n, int side) {
  Aabb c = n.inner;
  if (side == 0)
    c.hi[n.axis] = n.split;
  else
    c.lo[n.axis] = n.split;
  return c;
}

// Routes one reference of node n to its children; straddling triangles are clipped to each
// child's cell ("perfect splits"), which may drop a side the triangle only grazes.
SRT_CPU_GPU inline void routeReference(const LargeNode& n, const Aabb& box, const Vec3f v[3],
                                       float eps, bool* below, Aabb* boxBelow, bool* above,
                                       Aabb* boxAbove) {
  *below = goesBelow(box, n.axis, n.split);
  *above = goesAbove(box, n.axis, n.split);
  *boxBelow = *boxAbove = box;
  if (*below && *above) {
    *below = clippedBounds(v, childCell(n, 0), eps, boxBelow);
    *above = clippedBounds(v, childCell(n, 1), eps, boxAbove);
  }
}

// Final-tree nodes of a large node beyond its children: each cut adds an interior node and an
// empty leaf, the split one interior node.
SRT_CPU_GPU inline uint32_t largeOwnNodes(const LargeNode& n) {
  return 2 * n.numCuts + 1;
}

// Writes a large node's cuts and split at offset o of a subtree of `size` nodes, depth-first: a
// cut whose empty part is below puts the empty leaf next; one whose empty part is above puts it
// last in the subtree. Returns the offset of the below child (the above child follows it after
// belowSize nodes).
SRT_CPU_GPU inline uint32_t writeLargeNode(const LargeNode& n, uint32_t o, uint32_t size,
                                           uint32_t belowSize, KdNode* out) {
  uint32_t end = o + size;
  for (uint32_t c = 0; c < n.numCuts; ++c) {
    const uint32_t code = (n.cutCodes >> (3 * c)) & 7u;
    const int axis = int(code >> 1);
    if ((code & 1u) == 0) {  // empty below the plane
      out[o].initInterior(axis, n.cutPos[c], o + 2);
      out[o + 1].initLeaf(0, 0);
      o += 2;
    } else {
      out[o].initInterior(axis, n.cutPos[c], end - 1);
      out[end - 1].initLeaf(0, 0);
      o += 1;
      end -= 1;
    }
  }
  out[o].initInterior(n.axis, n.split, o + 1 + belowSize);
  return o + 1;
}

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
  Aabb cell;
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

SRT_CPU_GPU inline void storeBox(SmallShared& sh, uint32_t j, const Aabb& b) {
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
                                       const Aabb& cell, float invHalfArea, const SahParams& sah,
                                       bool* planarBelow) {
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
  const float da = cell.hi[(a + 1) % 3] - cell.lo[(a + 1) % 3];
  const float db = cell.hi[(a + 2) % 3] - cell.lo[(a + 2) % 3];
  const float dl = p - cell.lo[a], dr = cell.hi[a] - p;
  const float pl = (dl * (da + db) + da * db) * invHalfArea;
  const float pr = (dr * (da + db) + da * db) * invHalfArea;
  auto cost = [&](int l, int r) {
    const float lambda = (l == 0 || r == 0) ? 1.f - sah.emptyBonus : 1.f;
    return lambda * (sah.traversalCost + sah.intersectCost * (pl * float(l) + pr * float(r)));
  };
  const float below = cost(nl + np, nr), above = cost(nl, nr + np);
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

// Builds the subtree of one terminal depth-first into out (child and primitive offsets local to
// it). All lanes of the team run this uniformly; Team provides lane(), size(), leader(), sync(),
// mask64(n, pred) (bit j = pred(j) for j < n) and argmin(cost, index). `boxes` are the terminal's
// reference boxes (already clipped to its cell); deeper nodes clip the mesh's triangles again.
// Returns nodes and references used through *nodesUsed / *refsUsed (written by the leader).
template <typename Team>
SRT_CPU_GPU void buildSmallSubtree(Team& team, SmallShared& sh, const Terminal& t,
                                   const uint32_t* tris, const Aabb* boxes, int maxDepth,
                                   const TriangleMeshView& mesh, float eps, const SahParams& sah,
                                   const SmallOutput& out, uint32_t* nodesUsed,
                                   uint32_t* refsUsed) {
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
  for (uint32_t j = team.lane(); j < n; j += team.size()) {
    storeBox(sh, j, boxes[j]);
    Vec3f v[3];
    triangleVertices(mesh, tris[j], v);
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k) sh.vert[j][3 * i + k] = v[i][k];
  }
  team.sync();

  uint64_t mask = n == 64 ? ~0ull : (1ull << n) - 1;
  Aabb cell = t.cell;
  uint32_t depth = t.depth;
  uint32_t used = 0, usedRefs = 0, pending = 0, pendingRefs = 0;
  int top = 0;
  bool root = true;
  for (;;) {
    if (!root) {  // the node's boxes: its triangles clipped to its cell
      listActive(team, sh, mask, n);
      team.sync();
      const uint32_t before = uint32_t(popcount64(mask));
      for (uint32_t k = team.lane(); k < before; k += team.size()) {
        const uint32_t j = sh.act[k];
        const float* w = sh.vert[j];
        const Vec3f v[3] = {{w[0], w[1], w[2]}, {w[3], w[4], w[5]}, {w[6], w[7], w[8]}};
        Aabb b;
        if (clippedBounds(v, cell, eps, &b))
          storeBox(sh, j, b);
        else
          storeEmpty(sh, j);
      }
      team.sync();
      mask &= team.mask64(n, [&](uint32_t j) { return storedNonEmpty(sh, j); });
      team.sync();
    }
    root = false;
    const uint32_t count = uint32_t(popcount64(mask));
    listActive(team, sh, mask, n);
    team.sync();
    float bestCost = FLT_MAX;
    uint32_t best = ~0u;  // candidate << 1 | planar below
    const float a2 = area(cell);
    if (count > 0 && int(depth) < maxDepth && a2 > 0.f) {
      const float invHalfArea = 2.f / a2;
      // Candidates in increasing c per lane, so ties go to the lowest c as on the host.
      const uint32_t numCand = count * kCandidatesPerTri;
      for (uint32_t q = team.lane(); q < numCand; q += team.size()) {
        const uint32_t c =
            uint32_t(sh.act[q / kCandidatesPerTri]) * kCandidatesPerTri + q % kCandidatesPerTri;
        bool planarBelow = true;
        const float cost = candidateCost(sh, c, count, cell, invHalfArea, sah, &planarBelow);
        if (cost < bestCost) bestCost = cost, best = c << 1 | uint32_t(planarBelow);
      }
      team.argmin(&bestCost, &best);
    }
    bool split = best != ~0u && bestCost <= sah.intersectCost * float(count);
    uint64_t maskBelow = 0, maskAbove = 0;
    int axis = 0;
    float p = 0.f;
    if (split) {
      p = candidatePlane(sh, best >> 1, &axis);
      const bool planarBelow = best & 1u;
      maskBelow =
          mask & team.mask64(n, [&](uint32_t j) { return sideBelow(sh, j, axis, p, planarBelow); });
      maskAbove =
          mask & team.mask64(n, [&](uint32_t j) { return sideAbove(sh, j, axis, p, planarBelow); });
      const uint32_t refsAfter = usedRefs + uint32_t(popcount64(maskBelow)) +
                                 uint32_t(popcount64(maskAbove)) + pendingRefs;
      split =
          used + 3 + pending <= out.nodeCap && refsAfter <= out.refCap && top < kSmallStackDepth;
    }
    if (split) {
      Aabb cellAbove = cell;
      cell.hi[axis] = p;
      cellAbove.lo[axis] = p;
      if (team.leader()) {
        out.nodes[used].initInterior(axis, p, 0);  // above child patched when it is reached
        sh.stack[top] = {maskAbove, cellAbove, (depth + 1) << 16 | used << 2 | uint32_t(axis)};
      }
      ++top;
      ++used;
      ++pending;
      pendingRefs += uint32_t(popcount64(maskAbove));
      mask = maskBelow;
      ++depth;
      team.sync();
      continue;
    }
    // Leaf.
    if (count == 1) {
      if (team.leader()) out.nodes[used].initLeaf(1, tris[lowestBit64(mask)]);
    } else {
      for (uint32_t j = team.lane(); j < n; j += team.size())
        if (mask >> j & 1ull)
          out.refs[usedRefs + uint32_t(popcount64(mask & ((1ull << j) - 1)))] = tris[j];
      if (team.leader()) out.nodes[used].initLeaf(count, usedRefs);
      usedRefs += count > 1 ? count : 0;
    }
    ++used;
    if (top == 0) break;
    team.sync();
    const SmallStackEntry e = sh.stack[--top];
    const int eAxis = int(e.packed & 3u);
    if (team.leader())
      out.nodes[(e.packed & 0xffffu) >> 2].initInterior(eAxis, e.cell.lo[eAxis], used);
    --pending;
    pendingRefs -= uint32_t(popcount64(e.mask));
    mask = e.mask;
    cell = e.cell;
    depth = e.packed >> 16;
    team.sync();
  }
  if (team.leader()) {
    *nodesUsed = used;
    *refsUsed = usedRefs;
  }
}

// Copies a terminal's subtree into the final arrays, moving its child and primitive offsets.
SRT_CPU_GPU inline KdNode relocate(KdNode node, uint32_t nodeBase, uint32_t primBase) {
  if (!node.isLeaf())
    node.initInterior(node.axis(), node.split, node.aboveChild() + nodeBase);
  else if (node.primitiveCount() > 1)
    node.primitiveOffset += primBase;
  return node;
}

}  // namespace srt::kdgpu
