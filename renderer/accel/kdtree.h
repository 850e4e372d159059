// kd-tree format and traversal, shared by every builder (CPU SAH now, GPU later) and both backends.
//
// Layout (pbrt-v4's KdTreeAggregate): an array of 8-byte nodes in depth-first order. An interior
// node's below child is the next node, its above child is stored. A leaf holds its primitive
// count, and either the one primitive inline or an offset into the primitive index array.
//
// Nodes are in depth-first order (a builder that works level by level, like Zhou et al. 2008, ends
// with a relayout pass). Interior nodes need above > index + 1.
//
// Traversal is front-to-back with a fixed per-thread stack of kKdMaxDepth entries: a builder must
// produce trees with at most kKdMaxDepth interior levels on any root-to-leaf path (the SAH builder
// enforces it, computeStats() checks it). Hits are accepted in (0, ray.tMax); hits are not clipped
// to a node's interval, so a triangle in several leaves needs no mailbox. No recursion, no std::.
//
// The closest hit is the least (t, triangle index) over every triangle the ray hits, whatever the
// tree: each triangle is tested against the running nearest t widened by a margin far above the
// test's rounding (updateClosest), so every triangle that could win, ties included, reaches the
// comparison and its t does not depend on the order of the tests; and a node is skipped only when
// its interval starts strictly after the nearest t, so every leaf
// that could hold a hit at that t, and thus every tie, is tested. Different trees over the same
// mesh therefore give the same triangle and t on every ray, with either triangle test: Woop's
// unit-triangle test when the mesh view carries its rows (the renderer's views), else the
// watertight test.
#pragma once

#include <cstdint>

#include "base/math.h"
#include "primitives/common/host_device.h"

namespace srt {

// Deepest tree any builder may produce; also the traversal stack size (12 bytes per entry).
constexpr int kKdMaxDepth = 64;

// The SAH constants every builder defaults to (KdBuildOptions, GpuKdBuildOptions, the GPU
// builder's SahParams): Wald & Havran's K_I = 20 and K_T = 40, not their 15. With the
// unit-triangle test a node step is worth two triangle tests: on the H100 every bench scene
// rendered 1-2% faster than with 20 (and 1.5-4% than 15), on trees a third the size that both
// builders make 20-45% faster. Only the ratio matters. The empty bonus scales the cost of a split
// that cuts off empty space by 1 - bonus (the paper's lambda = 0.8 is 0.2); 0: on the H100 every
// scene of bench/tracer rendered 3-6% faster without it.
constexpr float kSahTraversalCost = 40.f, kSahIntersectCost = 20.f, kSahEmptyBonus = 0.f;
// Relative widening of the per-node ray intervals, so rounding in the plane distances never culls a
// child the ray really reaches (hits are not clipped to the interval, so this only costs visits).
constexpr float kKdIntervalSlack = 1e-5f;

struct KdNode {
  // Leaf: flags = count << 2 | 3. Interior: flags = aboveChild << 2 | axis.
  union {
    float split;
    uint32_t onePrimitive;
    uint32_t primitiveOffset;
  };
  uint32_t flags;

  SRT_CPU_GPU void initLeaf(uint32_t count, uint32_t primitiveOrOffset) {
    flags = (count << 2) | 3u;
    onePrimitive = primitiveOrOffset;  // same storage as primitiveOffset
  }
  SRT_CPU_GPU void initInterior(int axis, float pos, uint32_t above) {
    split = pos;
    flags = (above << 2) | uint32_t(axis);
  }
  SRT_CPU_GPU bool isLeaf() const { return (flags & 3u) == 3u; }
  SRT_CPU_GPU int axis() const { return int(flags & 3u); }
  SRT_CPU_GPU uint32_t aboveChild() const { return flags >> 2; }
  SRT_CPU_GPU uint32_t primitiveCount() const { return flags >> 2; }
};
static_assert(sizeof(KdNode) == 8, "KdNode must stay 8 bytes");

// Largest node count / leaf primitive count the 30-bit fields hold.
constexpr uint32_t kKdMaxField = (1u << 30) - 1;

// A triangle corner padded to 16 bytes, so a GPU thread fetches it in one vector load.
struct alignas(16) PackedVertex {
  float x, y, z, unused;
};

// A triangle as the linear map from world space onto its unit triangle (Woop 2004), taken about
// its first corner p0: for a point x, row 0 and row 1 dotted with x - p0 give x's barycentric
// weights of corners 1 and 2, row 2 its height above the plane in normal lengths. Row k's w holds
// p0's k-th coordinate. Three rows a triangle, 48 bytes like its corners.
struct alignas(16) UnitTriangleRow {
  float x, y, z, w;
};

// Indexed triangles; the pointers may point to host or device memory.
struct TriangleMeshView {
  const Vec3f* positions = nullptr;
  const uint32_t* indices = nullptr;  // 3 per triangle
  uint32_t triangleCount = 0;
  // Optional, for traversal: the three corners of every triangle in order (3 per triangle), the
  // same values as positions[indices[...]], fetched without the index indirection.
  const PackedVertex* corners = nullptr;
  // Optional, for traversal: every triangle's unit-triangle map (3 rows per triangle,
  // unitTriangleRows). When set, traversal tests rays with intersectUnitTriangle instead of the
  // watertight test; the renderer always sets it (SceneData), the persistent kernels need it.
  const UnitTriangleRow* unitTriangles = nullptr;
};

struct KdTreeView {
  const KdNode* nodes = nullptr;
  const uint32_t* primIndices = nullptr;
  Bounds3f bounds;
  TriangleMeshView mesh;
};

struct Hit {
  float t = kInf;
  uint32_t triangle = ~0u;
  float b1 = 0, b2 = 0;  // barycentrics of vertices 1 and 2; vertex 0 has 1 - b1 - b2
};

// a * b - c * d to within an ulp (Kahan's algorithm, pbrt-v4's DifferenceOfProducts). Exactly zero
// when a * b == c * d, whether or not the compiler contracts to FMA, which plain a * b - c * d is
// not: contracted, it turns into the rounding error of c * d and degenerate triangles get "hit".
SRT_CPU_GPU inline float differenceOfProducts(float a, float b, float c, float d) {
  const float cd = c * d;
  return fmaf(a, b, -cd) + fmaf(-c, d, cd);
}

// Read-only loads for traversal: on the GPU through the read-only data path (__ldg), since
// nodes, indices and vertices never change while rays are traced.
SRT_CPU_GPU SRT_INLINE KdNode loadNode(const KdTreeView& tree, uint32_t index) {
#if SRT_IS_GPU_CODE
  // One 8-byte load (node arrays are whole allocations, so every node is 8-byte aligned).
  const uint2 raw = __ldg(reinterpret_cast<const uint2*>(tree.nodes) + index);
  KdNode node;
  node.onePrimitive = raw.x;
  node.flags = raw.y;
  return node;
#else
  return tree.nodes[index];
#endif
}

SRT_CPU_GPU SRT_INLINE uint32_t loadIndex(const uint32_t* p) {
#if SRT_IS_GPU_CODE
  return __ldg(p);
#else
  return *p;
#endif
}

SRT_CPU_GPU SRT_INLINE Vec3f loadCorner(const PackedVertex* p) {
#if SRT_IS_GPU_CODE
  const float4 q = __ldg(reinterpret_cast<const float4*>(p));
  return Vec3f(q.x, q.y, q.z);
#else
  return Vec3f(p->x, p->y, p->z);
#endif
}

SRT_CPU_GPU SRT_INLINE Vec3f loadVertex(const Vec3f* p) {
#if SRT_IS_GPU_CODE
  return Vec3f(__ldg(&p->x), __ldg(&p->y), __ldg(&p->z));
#else
  return *p;
#endif
}

// The per-ray half of the watertight test: the axis permutation that makes the ray's largest
// direction component z, and the shear that maps the ray onto +z. Computed once per ray (or per
// leaf) instead of once per triangle: the same operations, so the same bits as doing it inline.
struct WatertightRay {
  int kx, ky, kz;
  float sx, sy, sz;
};

SRT_CPU_GPU inline WatertightRay watertightRay(const Vec3f& d) {
  WatertightRay w;
  const float ax = fabsf(d.x), ay = fabsf(d.y), az = fabsf(d.z);
  w.kz = ax > ay ? (ax > az ? 0 : 2) : (ay > az ? 1 : 2);
  w.kx = w.kz + 1 == 3 ? 0 : w.kz + 1;
  w.ky = w.kx + 1 == 3 ? 0 : w.kx + 1;
  if (d[w.kz] < 0.f) {  // keep the winding
    const int s = w.kx;
    w.kx = w.ky;
    w.ky = s;
  }
  w.sx = d[w.kx] / d[w.kz];
  w.sy = d[w.ky] / d[w.kz];
  w.sz = 1.f / d[w.kz];
  return w;
}

// Watertight ray/triangle test (Woop, Benthin, Wald 2013, as in pbrt-v4): no ray passes between
// two triangles sharing an edge. Every multiply-add is an explicit fmaf, so the CPU and the GPU
// compute the same bits whatever the contraction settings. Edge functions that come out exactly
// zero are redone in double. Returns true for a hit with t in (0, tMax).
SRT_CPU_GPU inline bool intersectTriangle(const Ray& ray, const WatertightRay& w, float tMax,
                                          Vec3f p0, Vec3f p1, Vec3f p2, float* tHit, float* b1,
                                          float* b2) {
  const int kx = w.kx, ky = w.ky, kz = w.kz;
  const float sx = w.sx, sy = w.sy, sz = w.sz;
  const Vec3f a = p0 - ray.o, b = p1 - ray.o, c = p2 - ray.o;
  // Shear so the ray runs along +z through the origin.
  const float axs = fmaf(-sx, a[kz], a[kx]), ays = fmaf(-sy, a[kz], a[ky]);
  const float bxs = fmaf(-sx, b[kz], b[kx]), bys = fmaf(-sy, b[kz], b[ky]);
  const float cxs = fmaf(-sx, c[kz], c[kx]), cys = fmaf(-sy, c[kz], c[ky]);
  float u = differenceOfProducts(cxs, bys, cys, bxs);   // weight of p0
  float v = differenceOfProducts(axs, cys, ays, cxs);   // weight of p1
  float w2 = differenceOfProducts(bxs, ays, bys, axs);  // weight of p2
  if (u == 0.f || v == 0.f || w2 == 0.f) {
    u = float(double(cxs) * double(bys) - double(cys) * double(bxs));
    v = float(double(axs) * double(cys) - double(ays) * double(cxs));
    w2 = float(double(bxs) * double(ays) - double(bys) * double(axs));
  }
  if ((u < 0.f || v < 0.f || w2 < 0.f) && (u > 0.f || v > 0.f || w2 > 0.f)) return false;
  const float det = u + v + w2;
  if (det == 0.f) return false;
  const float az_ = sz * a[kz], bz_ = sz * b[kz], cz_ = sz * c[kz];
  const float tScaled = fmaf(u, az_, fmaf(v, bz_, w2 * cz_));
  if (det < 0.f && (tScaled >= 0.f || tScaled < tMax * det)) return false;
  if (det > 0.f && (tScaled <= 0.f || tScaled > tMax * det)) return false;
  const float inv = 1.f / det;
  const float t = tScaled * inv;
  if (!(t > 0.f && t < tMax)) return false;  // also rejects NaN from non-finite input
  *tHit = t;
  *b1 = v * inv;
  *b2 = w2 * inv;
  return true;
}

// The unit-triangle map of (p0, p1, p2): with e1 = p1 - p0, e2 = p2 - p0 and n = e1 x e2, the rows
// are (e2 x n, n x e1, n) / |n|^2, in double and rounded once. Every multiply-add is an explicit
// fma, so the host and the device compute the same bits. A degenerate triangle gets zero rows:
// its t is 0 / 0, which no test accepts.
SRT_CPU_GPU inline void unitTriangleRows(Vec3f p0, Vec3f p1, Vec3f p2, UnitTriangleRow* rows) {
  const double e1[3] = {double(p1.x) - p0.x, double(p1.y) - p0.y, double(p1.z) - p0.z};
  const double e2[3] = {double(p2.x) - p0.x, double(p2.y) - p0.y, double(p2.z) - p0.z};
  const auto cross = [](const double* u, const double* v, double* out) {
    out[0] = fma(u[1], v[2], -(u[2] * v[1]));
    out[1] = fma(u[2], v[0], -(u[0] * v[2]));
    out[2] = fma(u[0], v[1], -(u[1] * v[0]));
  };
  double r[3][3];
  cross(e1, e2, r[2]);
  cross(e2, r[2], r[0]);
  cross(r[2], e1, r[1]);
  const double nn = fma(r[2][0], r[2][0], fma(r[2][1], r[2][1], r[2][2] * r[2][2]));
  const bool degenerate = !(nn > 0.0 && nn < 1e300);  // also NaN and inf corners
  const float corner[3] = {p0.x, p0.y, p0.z};
  for (int k = 0; k < 3; ++k) {
    rows[k] = degenerate ? UnitTriangleRow{0.f, 0.f, 0.f, corner[k]}
                         : UnitTriangleRow{float(r[k][0] / nn), float(r[k][1] / nn),
                                           float(r[k][2] / nn), corner[k]};
  }
}

SRT_CPU_GPU SRT_INLINE UnitTriangleRow loadRow(const UnitTriangleRow* p) {
#if SRT_IS_GPU_CODE
  const float4 q = __ldg(reinterpret_cast<const float4*>(p));
  return {q.x, q.y, q.z, q.w};
#else
  return *p;
#endif
}

SRT_CPU_GPU SRT_INLINE float rowDot(const UnitTriangleRow& r, Vec3f v) {
  return fmaf(r.x, v.x, fmaf(r.y, v.y, r.z * v.z));
}

// The corners of `tri`: from the corner array when the mesh has one, else through the indices.
SRT_CPU_GPU SRT_INLINE void meshCorners(const TriangleMeshView& mesh, uint32_t tri, Vec3f* p0,
                                        Vec3f* p1, Vec3f* p2) {
  if (mesh.corners) {
    const PackedVertex* c = mesh.corners + 3 * size_t(tri);
    *p0 = loadCorner(c);
    *p1 = loadCorner(c + 1);
    *p2 = loadCorner(c + 2);
  } else {
    const uint32_t* idx = mesh.indices + 3 * size_t(tri);
    *p0 = loadVertex(mesh.positions + loadIndex(idx));
    *p1 = loadVertex(mesh.positions + loadIndex(idx + 1));
    *p2 = loadVertex(mesh.positions + loadIndex(idx + 2));
  }
}

// Woop's unit-triangle test (as in Aila & Laine's GPU kernels; the mesh carries its rows): the
// ray's height above the plane gives t, then the two weights at t. True for a hit with t in
// (0, tMax) inside the triangle, edges included. Fewer operations than the watertight test and no
// per-ray setup, but not watertight: two triangles sharing an edge weigh a point on it with
// different rows, so a ray through the edge can round outside both and slip between them (in a
// band of about 1e-7 |o - p0| / height; bench/tracer/RESULTS.md has the rates). Handing that band
// to the watertight test, or widening the triangle, were measured: slower, or hits that depend on
// the tree.
SRT_CPU_GPU SRT_INLINE bool intersectUnitTriangle(const TriangleMeshView& mesh, uint32_t tri,
                                                  Vec3f o, Vec3f d, float tMax, float* tHit,
                                                  float* b1, float* b2) {
  const UnitTriangleRow* rows = mesh.unitTriangles + 3 * size_t(tri);
  const UnitTriangleRow m0 = loadRow(rows), m1 = loadRow(rows + 1), m2 = loadRow(rows + 2);
  const Vec3f q(o.x - m0.w, o.y - m1.w, o.z - m2.w);
  const float t = -rowDot(m2, q) / rowDot(m2, d);
  if (!(t > 0.f && t < tMax)) return false;  // also NaN: degenerate, parallel, non-finite
  const float u = fmaf(t, rowDot(m0, d), rowDot(m0, q));
  const float v = fmaf(t, rowDot(m1, d), rowDot(m1, q));
  if (!(u >= 0.f && v >= 0.f && u + v <= 1.f)) return false;
  *tHit = t;
  *b1 = u;
  *b2 = v;
  return true;
}

SRT_CPU_GPU inline bool intersectMeshTriangle(const TriangleMeshView& mesh, uint32_t tri,
                                              const Ray& ray, const WatertightRay& w, float tMax,
                                              Hit* hit) {
  float t, b1, b2;
  bool found;
  if (mesh.unitTriangles) {
    found = intersectUnitTriangle(mesh, tri, ray.o, ray.d, tMax, &t, &b1, &b2);
  } else {
    Vec3f p0, p1, p2;
    meshCorners(mesh, tri, &p0, &p1, &p2);
    found = intersectTriangle(ray, w, tMax, p0, p1, p2, &t, &b1, &b2);
  }
  if (!found) return false;
  hit->t = t;
  hit->triangle = tri;
  hit->b1 = b1;
  hit->b2 = b2;
  return true;
}

// The per-ray setup intersectMeshTriangle needs for `mesh`: the watertight test's shear, or
// nothing when the mesh tests by its unit-triangle rows (no divisions spent on an unused shear).
SRT_CPU_GPU SRT_INLINE WatertightRay triangleSetup(const TriangleMeshView& mesh, const Vec3f& d) {
  return mesh.unitTriangles ? WatertightRay{} : watertightRay(d);
}

SRT_CPU_GPU inline bool intersectMeshTriangle(const TriangleMeshView& mesh, uint32_t tri,
                                              const Ray& ray, float tMax, Hit* hit) {
  return intersectMeshTriangle(mesh, tri, ray, triangleSetup(mesh, ray.d), tMax, hit);
}

// Whether a hit at (t, tri) is nearer than `best`: lower t, or the same t and a lower triangle.
SRT_CPU_GPU inline bool nearerHit(float t, uint32_t tri, bool haveBest, const Hit& best) {
  return !haveBest || t < best.t || (t == best.t && tri < best.triangle);
}

// The closest-hit step of every traversal: tests `tri` and keeps it in *best when it is nearer
// (nearerHit). The test's limit is the best t so far widened by kTieMargin, not the exact best t:
// the scaled test rounds differently from the final t, and a hit whose t equals the best (a tie
// the lower index must win whatever order a tree visits them in) must never be cut by it. A
// margin far above the few ulps of rounding keeps every possible winner, so the result is the
// one a test against ray.tMax gives, without a division for every farther triangle.
constexpr float kTieMargin = 1e-5f;
SRT_CPU_GPU SRT_INLINE bool updateClosest(const TriangleMeshView& mesh, uint32_t tri,
                                          const Ray& ray, const WatertightRay& w, bool haveBest,
                                          Hit* best) {
  Hit h;
  const float limit = haveBest ? fminf(ray.tMax, best->t * (1.f + kTieMargin)) : ray.tMax;
  if (!intersectMeshTriangle(mesh, tri, ray, w, limit, &h)) return false;
  if (!nearerHit(h.t, tri, haveBest, *best)) return false;
  *best = h;
  return true;
}

// updateClosest for traversals that keep the running nearest t: `closest` is the best hit's t, or
// ray.tMax before the first hit. The same limit and the same winner (before the first hit every
// hit has t < ray.tMax), without the branch on `haveBest` in the triangle loop.
SRT_CPU_GPU SRT_INLINE bool updateClosestBelow(const TriangleMeshView& mesh, uint32_t tri,
                                               const Ray& ray, const WatertightRay& w,
                                               float closest, Hit* best) {
  Hit h;
  const float limit = fminf(ray.tMax, closest * (1.f + kTieMargin));
  if (!intersectMeshTriangle(mesh, tri, ray, w, limit, &h)) return false;
  if (!(h.t < closest || (h.t == closest && tri < best->triangle))) return false;
  *best = h;
  return true;
}

namespace detail {

// Parametric range of the ray inside b, clamped to [0, ray.tMax] and widened by kKdIntervalSlack.
// Zero direction components are handled explicitly (no 0 * inf).
SRT_CPU_GPU inline bool clipRayToBounds(const Bounds3f& b, const Ray& ray, float* t0, float* t1) {
  float tMin = 0.f, tMax = ray.tMax;
  for (int k = 0; k < 3; ++k) {
    const float o = ray.o[k], d = ray.d[k];
    if (d == 0.f) {
      if (o < b.lo[k] || o > b.hi[k]) return false;
      continue;
    }
    const float inv = 1.f / d;
    float tNear = (b.lo[k] - o) * inv, tFar = (b.hi[k] - o) * inv;
    if (tNear > tFar) {
      const float s = tNear;
      tNear = tFar;
      tFar = s;
    }
    tMin = fmaxf(tMin, tNear * (1.f - kKdIntervalSlack));
    tMax = fminf(tMax, tFar * (1.f + kKdIntervalSlack));
  }
  if (!(tMin <= tMax)) return false;
  *t0 = tMin;
  *t1 = tMax;
  return true;
}

struct KdStackEntry {
  uint32_t node;
  float tMin, tMax;
};

// Where a ray (not parallel to the split plane) meets an interior node's children: the one it
// enters first and the other, and whether the plane lies inside [tMin, tMax] (widened by
// kKdIntervalSlack): then the walk visits `first` up to splitTMax and pushes `second` from
// splitTMin, else only `first` (plane behind or past the interval) or only `second`.
struct KdSplitStep {
  uint32_t first, second;
  enum Visit { kFirst, kSecond, kBoth } visit;
  float splitTMin, splitTMax;
};
SRT_CPU_GPU inline KdSplitStep kdSplitStep(float split, float o, float d, float invD,
                                           uint32_t below, uint32_t above, float tMin, float tMax) {
  const float tPlane = (split - o) * invD;
  const bool belowFirst = o < split || (o == split && d < 0.f);
  KdSplitStep s{belowFirst ? below : above, belowFirst ? above : below, KdSplitStep::kBoth,
                fmaxf(tMin, tPlane * (1.f - kKdIntervalSlack)),
                fminf(tMax, tPlane * (1.f + kKdIntervalSlack))};
  if (tPlane <= 0.f || tPlane > tMax * (1.f + kKdIntervalSlack))
    s.visit = KdSplitStep::kFirst;
  else if (tPlane < tMin * (1.f - kKdIntervalSlack))
    s.visit = KdSplitStep::kSecond;
  return s;
}

// Front-to-back traversal; kAnyHit stops at the first hit in (0, ray.tMax), otherwise *hit ends
// as the least (t, triangle) (see the file comment).
template <bool kAnyHit>
SRT_CPU_GPU inline bool traverseKdTree(const KdTreeView& tree, const Ray& ray, Hit* hit) {
  float tMin, tMax;
  if (tree.nodes == nullptr || !clipRayToBounds(tree.bounds, ray, &tMin, &tMax)) return false;
  const Vec3f invDir(1.f / ray.d.x, 1.f / ray.d.y, 1.f / ray.d.z);
  const WatertightRay shear = triangleSetup(tree.mesh, ray.d);
  float closest = ray.tMax;
  bool found = false;
  KdStackEntry stack[kKdMaxDepth];
  int top = 0;
  uint32_t index = 0;
  for (;;) {
    const KdNode node = loadNode(tree, index);
    // A hit before this node's interval is closer than anything the node holds: skip it (not
    // break: the slack lets a later stack entry start a little before this one).
    if (closest < tMin) {
      // fall through to the pop below
    } else if (!node.isLeaf()) {
      const int axis = node.axis();
      const float split = node.split, o = ray.o[axis], d = ray.d[axis];
      const uint32_t below = index + 1, above = node.aboveChild();
      if (d == 0.f) {  // parallel to the plane: the side holding the origin, both if on it
        if (o < split) {
          index = below;
        } else if (o > split) {
          index = above;
        } else {
          if (top < kKdMaxDepth) stack[top++] = {above, tMin, tMax};
          index = below;
        }
        continue;
      }
      const KdSplitStep s = kdSplitStep(split, o, d, invDir[axis], below, above, tMin, tMax);
      index = s.visit == KdSplitStep::kSecond ? s.second : s.first;
      if (s.visit == KdSplitStep::kBoth) {
        if (top < kKdMaxDepth) stack[top++] = {s.second, s.splitTMin, tMax};
        tMax = s.splitTMax;
      }
      continue;
    } else {
      const uint32_t count = node.primitiveCount();
      for (uint32_t i = 0; i < count; ++i) {
        const uint32_t tri =
            count == 1 ? node.onePrimitive : loadIndex(tree.primIndices + node.primitiveOffset + i);
        if (kAnyHit) {
          if (intersectMeshTriangle(tree.mesh, tri, ray, shear, ray.tMax, hit)) return true;
        } else if (updateClosestBelow(tree.mesh, tri, ray, shear, closest, hit)) {
          closest = hit->t;
          found = true;
        }
      }
    }
    if (top == 0) break;
    --top;
    index = stack[top].node;
    tMin = stack[top].tMin;
    tMax = stack[top].tMax;
  }
  return found;
}

}  // namespace detail

// Closest hit in (0, ray.tMax); *hit is written only when this returns true.
SRT_CPU_GPU inline bool intersectClosest(const KdTreeView& tree, const Ray& ray, Hit* hit) {
  Hit h;
  if (!detail::traverseKdTree<false>(tree, ray, &h)) return false;
  *hit = h;
  return true;
}

// Whether anything blocks the ray in (0, ray.tMax) (shadow rays).
SRT_CPU_GPU inline bool intersectAny(const KdTreeView& tree, const Ray& ray) {
  Hit h;
  return detail::traverseKdTree<true>(tree, ray, &h);
}

}  // namespace srt
