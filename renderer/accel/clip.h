// Triangle clipping shared by the kd-tree builders (CPU SAH and GPU), so both reference a triangle
// from exactly the same voxels ("perfect splits").
#pragma once

#include "base/math.h"
#include "primitives/common/host_device.h"

namespace srt {

// Where edge p-q meets the axis plane (one computation for every clipper, so all agree bit for
// bit, unfused on the device as on the host): exactly on the plane, coordinates equal at both
// ends stay exact.
template <typename V>
SRT_CPU_GPU inline void clipEdgePoint(const V& p, const V& q, int axis, float plane, V* r) {
  const float t = (plane - p[axis]) / (q[axis] - p[axis]);
  for (int k = 0; k < 3; ++k) (*r)[k] = p[k] == q[k] ? p[k] : addRn(p[k], mulRn(q[k] - p[k], t));
  (*r)[axis] = plane;
}

// clipPolygonOf for one axis known at compile time, so that the vertices carried in registers
// are indexed statically. Each vertex is read once and carried to the next edge: the buffers
// may be shared or local memory, which the compiler could not otherwise keep apart from `out`.
template <int Axis, typename V>
SRT_CPU_GPU inline int clipPolygonAxis(const V* in, int n, float plane, bool keepAbove, V* out) {
  if (n <= 0) return 0;
  const V first = in[0];
  const bool inFirst = keepAbove ? first[Axis] >= plane : first[Axis] <= plane;
  V p = first;
  bool inP = inFirst;
  int m = 0;
  for (int i = 0; i < n; ++i) {
    const bool last = i + 1 == n;
    const V q = last ? first : in[i + 1];
    const bool inQ = last ? inFirst : (keepAbove ? q[Axis] >= plane : q[Axis] <= plane);
    if (inP) out[m++] = p;
    if (inP != inQ) {
      V e;  // built in registers and stored once
      clipEdgePoint(p, q, Axis, plane, &e);
      out[m++] = e;
    }
    p = q;
    inP = inQ;
  }
  return m;
}

// Keeps the part of a convex polygon on one side of an axis plane (Sutherland-Hodgman). New
// vertices lie exactly on the plane; coordinates equal at both ends of an edge stay exact.
// `out` needs room for n + 1 vertices. V: Vec3f or anything indexable the same way.
template <typename V>
SRT_CPU_GPU inline int clipPolygonOf(const V* in, int n, int axis, float plane, bool keepAbove,
                                     V* out) {
  if (axis == 0) return clipPolygonAxis<0>(in, n, plane, keepAbove, out);
  if (axis == 1) return clipPolygonAxis<1>(in, n, plane, keepAbove, out);
  return clipPolygonAxis<2>(in, n, plane, keepAbove, out);
}

SRT_CPU_GPU inline int clipPolygon(const Vec3f* in, int n, int axis, float plane, bool keepAbove,
                                   Vec3f* out) {
  return clipPolygonOf(in, n, axis, plane, keepAbove, out);
}

// A polygon vertex left uninitialised (Vec3f zero-fills), for the clipper's scratch arrays.
struct ClipVertex {
  float c[3];
  SRT_CPU_GPU float operator[](int k) const { return c[k]; }
  SRT_CPU_GPU float& operator[](int k) { return c[k]; }
};

// std::min / std::max for floats, usable on the device; on the host fminf/fmaxf are libm calls.
SRT_CPU_GPU inline float clipMin(float a, float b) {
  return b < a ? b : a;
}
SRT_CPU_GPU inline float clipMax(float a, float b) {
  return a < b ? b : a;
}

// The triangle's own bounds, the extents every clipper tests the voxel's faces against.
SRT_CPU_GPU inline void triangleBounds(const Vec3f v[3], float lo[3], float hi[3]) {
  for (int k = 0; k < 3; ++k) {
    lo[k] = clipMin(v[0][k], clipMin(v[1][k], v[2][k]));
    hi[k] = clipMax(v[0][k], clipMax(v[1][k], v[2][k]));
  }
}

// A triangle being clipped to a voxel: its own bounds and the convex polygon left so far.
struct ClippedTriangle {
  float tlo[3], thi[3];  // bounds of the whole triangle
  ClipVertex poly[12];   // room for 3 vertices + one per clipping plane (at most 7 planes)
  int n;                 // 0: nothing left
  bool clipped;          // whether any plane cut it (else poly is the triangle)
};

// Whether a voxel face (keepAbove: its lower one), pushed out by eps, cuts the triangle's bounds
// tlo/thi: only then is the triangle clipped by it.
SRT_CPU_GPU inline bool faceCutsBounds(const float tlo[3], const float thi[3], int axis,
                                       float plane, bool keepAbove, float eps) {
  return keepAbove ? tlo[axis] < plane - eps : thi[axis] > plane + eps;
}

// Clips by one plane, pushed out by eps, when it cuts the triangle's bounds (keepAbove: the
// voxel's lower face).
SRT_CPU_GPU inline void clipToPlane(ClippedTriangle& c, int axis, float plane, bool keepAbove,
                                    float eps) {
  if (c.n == 0) return;
  if (!faceCutsBounds(c.tlo, c.thi, axis, plane, keepAbove, eps)) return;
  ClipVertex out[12];
  c.n = clipPolygonOf(c.poly, c.n, axis, keepAbove ? plane - eps : plane + eps, keepAbove, out);
  for (int i = 0; i < c.n; ++i) c.poly[i] = out[i];
  c.clipped = true;
}

// The triangle clipped to the six faces of [voxelLo, voxelHi], pushed out by eps.
SRT_CPU_GPU inline ClippedTriangle clipTriangle(const Vec3f v[3], const Vec3f& voxelLo,
                                                const Vec3f& voxelHi, float eps) {
  ClippedTriangle c;
  triangleBounds(v, c.tlo, c.thi);
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) c.poly[i][k] = v[i][k];
  c.n = 3;
  c.clipped = false;
  for (int k = 0; k < 3; ++k) {
    clipToPlane(c, k, voxelLo[k], true, eps);
    clipToPlane(c, k, voxelHi[k], false, eps);
  }
  return c;
}

// The polygon's bounds lo/hi widened by eps where the triangle (bounds tlo/thi) is not flat, and
// cut to the voxel.
SRT_CPU_GPU inline bool finishClippedBounds(float lo[3], float hi[3], const float tlo[3],
                                            const float thi[3], const Vec3f& voxelLo,
                                            const Vec3f& voxelHi, float eps, Vec3f* outLo,
                                            Vec3f* outHi) {
  for (int k = 0; k < 3; ++k) {
    if (tlo[k] < thi[k]) {  // flat triangles stay flat
      lo[k] = clipMax(lo[k] - eps, tlo[k] - eps);
      hi[k] = clipMin(hi[k] + eps, thi[k] + eps);
    }
    lo[k] = clipMax(lo[k], voxelLo[k]);
    hi[k] = clipMin(hi[k], voxelHi[k]);
    if (lo[k] > hi[k]) return false;
  }
  *outLo = Vec3f(lo[0], lo[1], lo[2]);
  *outHi = Vec3f(hi[0], hi[1], hi[2]);
  return true;
}

// Bounds of a clipped polygon (n vertices; when no face clipped it, the triangle's own bounds
// tlo/thi), widened by eps and cut to the voxel (finishClippedBounds); false when nothing is left.
template <typename V>
SRT_CPU_GPU inline bool polygonBounds(const V* poly, int n, bool clipped, const float tlo[3],
                                      const float thi[3], const Vec3f& voxelLo,
                                      const Vec3f& voxelHi, float eps, Vec3f* outLo, Vec3f* outHi) {
  if (n == 0) return false;
  float lo[3], hi[3];
  for (int k = 0; k < 3; ++k) {
    lo[k] = clipped ? poly[0][k] : tlo[k];
    hi[k] = clipped ? poly[0][k] : thi[k];
  }
  if (clipped)
    for (int i = 1; i < n; ++i)
      for (int k = 0; k < 3; ++k) {
        lo[k] = clipMin(lo[k], poly[i][k]);
        hi[k] = clipMax(hi[k], poly[i][k]);
      }
  return finishClippedBounds(lo, hi, tlo, thi, voxelLo, voxelHi, eps, outLo, outHi);
}

// Bounds of the clipped polygon, widened by eps (see clipTriangleBounds) and cut to the voxel;
// false when nothing is left in the voxel.
SRT_CPU_GPU inline bool clippedTriangleBounds(const ClippedTriangle& c, const Vec3f& voxelLo,
                                              const Vec3f& voxelHi, float eps, Vec3f* outLo,
                                              Vec3f* outHi) {
  return polygonBounds(c.poly, c.n, c.clipped, c.tlo, c.thi, voxelLo, voxelHi, eps, outLo, outHi);
}

// Bounds of the part of triangle v[] inside the voxel [voxelLo, voxelHi], into outLo/outHi; false
// when the triangle misses the voxel. Robustness: the bounds are widened by eps (a few ulps of the
// scene's largest coordinate) along the axes where the triangle is not flat, so a triangle is
// referenced by every voxel that rounding in the watertight test could let a ray hit it in; a
// triangle lying exactly in an axis plane stays flat (planar events). Only the voxel planes that
// cut the triangle's own bounds are clipped against.
SRT_CPU_GPU inline bool clipTriangleBounds(const Vec3f v[3], const Vec3f& voxelLo,
                                           const Vec3f& voxelHi, float eps, Vec3f* outLo,
                                           Vec3f* outHi) {
  const ClippedTriangle c = clipTriangle(v, voxelLo, voxelHi, eps);
  return clippedTriangleBounds(c, voxelLo, voxelHi, eps, outLo, outHi);
}

// clipTriangleBounds for both children of a voxel split at `pos` on `axis`, clipping to the
// parent once: the parent's polygon cut at the plane gives each child's part.
SRT_CPU_GPU inline void clipTriangleBoundsSplit(const Vec3f v[3], const Vec3f& voxelLo,
                                                const Vec3f& voxelHi, int axis, float pos,
                                                float eps, bool* inBelow, Vec3f* belowLo,
                                                Vec3f* belowHi, bool* inAbove, Vec3f* aboveLo,
                                                Vec3f* aboveHi) {
  const ClippedTriangle parent = clipTriangle(v, voxelLo, voxelHi, eps);
  Vec3f lo = voxelLo, hi = voxelHi;
  ClippedTriangle part = parent;
  clipToPlane(part, axis, pos, false, eps);
  hi[axis] = pos;
  *inBelow = clippedTriangleBounds(part, lo, hi, eps, belowLo, belowHi);
  part = parent;
  clipToPlane(part, axis, pos, true, eps);
  hi[axis] = voxelHi[axis];
  lo[axis] = pos;
  *inAbove = clippedTriangleBounds(part, lo, hi, eps, aboveLo, aboveHi);
}

}  // namespace srt
