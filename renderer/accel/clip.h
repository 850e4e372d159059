// Polygon clipping shared by the kd-tree builders (CPU SAH and GPU), so both reference a triangle
// from exactly the same voxels ("perfect splits").
#pragma once

#include "primitives/common/host_device.h"
#include "base/math.h"

namespace srt {

// Keeps the part of a convex polygon on one side of an axis plane (Sutherland-Hodgman). New
// vertices lie exactly on the plane; coordinates equal at both ends of an edge stay exact.
// `out` needs room for n + 1 vertices.
SRT_CPU_GPU inline int clipPolygon(const Vec3f* in, int n, int axis, float plane, bool keepAbove,
                                   Vec3f* out) {
  int m = 0;
  for (int i = 0; i < n; ++i) {
    const Vec3f p = in[i], q = in[i + 1 == n ? 0 : i + 1];
    const bool inP = keepAbove ? p[axis] >= plane : p[axis] <= plane;
    const bool inQ = keepAbove ? q[axis] >= plane : q[axis] <= plane;
    if (inP) out[m++] = p;
    if (inP != inQ) {
      const float t = (plane - p[axis]) / (q[axis] - p[axis]);
      Vec3f r = p + (q - p) * t;
      for (int k = 0; k < 3; ++k)
        if (p[k] == q[k]) r[k] = p[k];
      r[axis] = plane;
      out[m++] = r;
    }
  }
  return m;
}

}  // namespace srt
