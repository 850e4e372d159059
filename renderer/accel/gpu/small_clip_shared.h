// The small-node stage's clip with its polygon buffers in memory the caller gives (a lane's
// slice of shared memory) instead of clip.h's arrays in local memory, which the small kernel
// reaches through L1 at one to three active lanes (bench/accel/RESULTS.md). The same planes in
// the same order through the same Sutherland-Hodgman pass (clipPolygonAxis) and bounds: the same
// bounds, bit for bit, as clipTriangleBounds.
#pragma once

#include "renderer/accel/clip.h"

namespace srt::kdgpu {

// A triangle clipped by the six faces of a cell has at most 3 + 6 vertices.
constexpr int kClipPolyMax = 9;
// Floats of one lane's two buffers; odd, so lanes at the same vertex hit different banks.
constexpr int kClipLaneFloats = 2 * kClipPolyMax * 3 + 1;
// Dynamic shared memory for the buffers of a block of `threads`.
constexpr size_t clipBufferBytes(uint32_t threads) {
  return size_t(threads) * kClipLaneFloats * sizeof(float);
}

// The two faces of the cell on axis K (the lower first, as clipTriangle) that cut the triangle's
// bounds, clipped from polygon *a into *b and swapped; stops when nothing is left.
template <int K>
SRT_CPU_GPU inline void clipBufferFacesOf(ClipVertex*& a, ClipVertex*& b, int& n, bool& clipped,
                                          const float tlo[3], const float thi[3],
                                          const Bounds3f& cell, float eps) {
#if SRT_IS_GPU_CODE
#pragma unroll 1
#endif
  for (int side = 0; side < 2 && n > 0; ++side) {
    const bool keepAbove = side == 0;
    const float plane = keepAbove ? cell.lo[K] : cell.hi[K];
    if (!faceCutsBounds(tlo, thi, K, plane, keepAbove, eps)) continue;
    n = clipPolygonAxis<K>(a, n, keepAbove ? plane - eps : plane + eps, keepAbove, b);
    ClipVertex* t = a;
    a = b, b = t;
    clipped = true;
  }
}

// clipTriangleBounds(v, cell.lo, cell.hi, eps, ...) with its polygons in buf (kClipLaneFloats).
SRT_CPU_GPU inline bool clippedBoundsInBuffer(float* buf, const Vec3f v[3], const Bounds3f& cell,
                                              float eps, Bounds3f* out) {
  ClipVertex* a = reinterpret_cast<ClipVertex*>(buf);
  ClipVertex* b = a + kClipPolyMax;
  float tlo[3], thi[3];
  triangleBounds(v, tlo, thi);
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) a[i][k] = v[i][k];
  int n = 3;
  bool clipped = false;
  clipBufferFacesOf<0>(a, b, n, clipped, tlo, thi, cell, eps);
  clipBufferFacesOf<1>(a, b, n, clipped, tlo, thi, cell, eps);
  clipBufferFacesOf<2>(a, b, n, clipped, tlo, thi, cell, eps);
  return polygonBounds(a, n, clipped, tlo, thi, cell.lo, cell.hi, eps, &out->lo, &out->hi);
}

}  // namespace srt::kdgpu
