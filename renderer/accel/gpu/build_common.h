// The basics of the GPU kd-tree build (Zhou et al. 2008), written once for the CUDA kernels and
// for the host reference (host_reference.cpp) that runs the same pipeline sequentially, so the CPU
// tests check the algorithm and the GPU tests check the plumbing: boxes, clipping, SAH constants.
// The large-node stage's per-node steps are in large_node_split.h, the small-node stage's subtree
// builder in small_node_build.h, the per-thread bodies of every kernel in build_steps.h.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdint>

#include "base/math.h"
#include "primitives/common/host_device.h"
#include "renderer/accel/clip.h"
#include "renderer/accel/clip_streaming.h"
#include "renderer/accel/kdtree.h"

namespace srt::kdgpu {

constexpr uint32_t kTerminalBit = 0x80000000u;  // child handle: terminal index, else large index
constexpr int kSmallMax = 64;                   // bitmask width of the small-node stage
constexpr int kCandidatesPerTri = 6;            // lo and hi of the clipped box on each axis
// Scratch a terminal of n triangles may use (GpuKdBuildOptions::scratchPerRef, S): nodes S n + 1
// at S * refStart + terminalIndex, leaf references S n at S * refStart (the builder stops
// splitting before it would overflow). The budget, not the SAH, ends subtrees when it is short:
// with 8 the Conference Room's tree cost 1.07x the CPU builder's by the SAH, 1.01x with 16; with
// 16 Sponza's took 1.093x the CPU tree's triangle tests per random ray, 0.991x with 32.
// Once a large level holds more references than this many per triangle (triangles straddling
// every split, e.g. long slivers), its children all go to the small-node stage: the reference
// count would otherwise double per level.
constexpr uint32_t kMaxReferenceGrowth = 8;

// The CPU builder's SAH constants (KdBuildOptions): K_T, K_I and the empty bonus.
struct SahParams {
  float traversalCost = kSahTraversalCost, intersectCost = kSahIntersectCost,
        emptyBonus = kSahEmptyBonus;
  // Cost of splitting a node of `nl` + `nr` references at a plane whose children have areas
  // `pl` and `pr` relative to the node's: lambda (K_T + K_I (pl nl + pr nr)).
  SRT_CPU_GPU float splitCost(float pl, float pr, float nl, float nr) const {
    const float lambda = (nl == 0.f || nr == 0.f) ? 1.f - emptyBonus : 1.f;
    // Unfused (mulRn, addRn): the device rounds as the host reference does.
    return mulRn(lambda,
                 addRn(traversalCost, mulRn(intersectCost, addRn(mulRn(pl, nl), mulRn(pr, nr)))));
  }
  SRT_CPU_GPU float leafCost(float n) const { return intersectCost * n; }
};

// Areas of the two halves of `cell` split at p on axis a, relative to the cell's (invHalfArea:
// 2 / area(cell)).
SRT_CPU_GPU inline void childAreas(const Bounds3f& cell, int a, float p, float invHalfArea,
                                   float* pl, float* pr) {
  const float da = cell.hi[(a + 1) % 3] - cell.lo[(a + 1) % 3];
  const float db = cell.hi[(a + 2) % 3] - cell.lo[(a + 2) % 3];
  const float dl = p - cell.lo[a], dr = cell.hi[a] - p;
  const float side = mulRn(da, db);  // unfused, as the host reference rounds
  *pl = mulRn(addRn(mulRn(dl, da + db), side), invHalfArea);
  *pr = mulRn(addRn(mulRn(dr, da + db), side), invHalfArea);
}

// A node that left the large stage (<= smallNodeThreshold references, the depth limit, or a leaf
// by the SAH). The small-node stage turns each into a depth-first subtree in scratch.
struct Terminal {
  Bounds3f cell;
  uint32_t depth;
  uint32_t refStart, refCount;  // in the terminal reference arrays
};

// Boxes are base/math.h Bounds3f throughout (empty: lo = +inf, hi = -inf, Bounds3f's default);
// only the segmented reduction's adapter (segmented_boxes.cpp) sees the primitive's own type.
SRT_CPU_GPU inline Bounds3f emptyBounds() {
  return Bounds3f();
}
// The tree's bounds: an empty box in its canonical form.
SRT_CPU_GPU inline Bounds3f canonical(const Bounds3f& b) {
  return b.empty() ? Bounds3f() : b;
}

// Rounding allowance of the clipped boxes: 16 ulps of the largest coordinate (the CPU builder's).
SRT_CPU_GPU inline float clipEpsilon(const Bounds3f& rawBounds) {
  float m = 0.f;
  for (int k = 0; k < 3; ++k) m = fmaxf(m, fmaxf(fabsf(rawBounds.lo[k]), fabsf(rawBounds.hi[k])));
  return 16.f * FLT_EPSILON * m;
}

SRT_CPU_GPU inline bool finiteVec(Vec3f v) {
  using std::isfinite;  // the host overloads; CUDA provides its own
  return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

SRT_CPU_GPU inline void triangleVertices(const TriangleMeshView& mesh, uint32_t tri, Vec3f v[3]) {
  if (mesh.corners) {  // the same values without the index indirection
    for (int i = 0; i < 3; ++i) v[i] = loadCorner(mesh.corners + 3 * size_t(tri) + i);
    return;
  }
  for (int i = 0; i < 3; ++i) v[i] = mesh.positions[mesh.indices[3 * size_t(tri) + i]];
}

// Bounds of the part of the triangle inside `voxel`, widened by eps where it is not flat: the one
// clipping routine of both builders (clip.h), so both reference a triangle from the same voxels.
// False when the triangle misses the voxel.
// Streaming: the same bounds from the register-only clipper (clip_streaming.h).
template <bool Streaming = false>
SRT_CPU_GPU inline bool clippedBounds(const Vec3f v[3], const Bounds3f& voxel, float eps,
                                      Bounds3f* out) {
  if constexpr (Streaming)
    return clipTriangleBoundsStreaming(v, voxel.lo, voxel.hi, eps, &out->lo, &out->hi);
  else
    return clipTriangleBounds(v, voxel.lo, voxel.hi, eps, &out->lo, &out->hi);
}

SRT_CPU_GPU inline Bounds3f rawTriangleBox(const Vec3f v[3]) {
  Bounds3f b;
  for (int k = 0; k < 3; ++k) {
    b.lo[k] = fminf(v[0][k], fminf(v[1][k], v[2][k]));
    b.hi[k] = fmaxf(v[0][k], fmaxf(v[1][k], v[2][k]));
  }
  return b;
}

// The root's references: the triangle's box widened like clippedBounds against an infinite voxel.
SRT_CPU_GPU inline Bounds3f widenedTriangleBox(const Vec3f v[3], float eps) {
  Bounds3f b = rawTriangleBox(v);
  for (int k = 0; k < 3; ++k)
    if (b.lo[k] < b.hi[k]) b.lo[k] -= eps, b.hi[k] += eps;
  return b;
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
