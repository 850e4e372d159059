#include "renderer/wavefront/scene_data_motion.h"

#include <cmath>

#include "renderer/backend/parallel_for.h"

namespace srt {
namespace {

// Each product and sum rounded on its own (mulRn, addRn from base/math.h), as the host does: nvcc
// would otherwise fuse them into FMAs and the GPU's vertices would differ from flatten()'s in the
// last bit.
SRT_CPU_GPU inline float sqrtRn(float a) {
#if SRT_IS_GPU_CODE
  return __fsqrt_rn(a);
#else
  return std::sqrt(a);
#endif
}
SRT_CPU_GPU inline float reciprocalRn(float a) {
#if SRT_IS_GPU_CODE
  return __fdiv_rn(1.0f, a);
#else
  return 1.0f / a;
#endif
}

// a*x + b*y + c*z (+ d), left to right.
SRT_CPU_GPU inline float dot3(float a, float b, float c, Vec3f v) {
  return addRn(addRn(mulRn(a, v.x), mulRn(b, v.y)), mulRn(c, v.z));
}

// normalize(): v * (1 / sqrt(dot(v, v))).
SRT_CPU_GPU inline Vec3f normalizedRn(Vec3f v) {
  const float s = reciprocalRn(sqrtRn(dot3(v.x, v.y, v.z, v)));
  return {mulRn(v.x, s), mulRn(v.y, s), mulRn(v.z, s)};
}

}  // namespace

void transformPoints(const Backend& backend, const Vec3f* object, Vec3f* world, uint32_t count,
                     const Transform& x) {
  const Transform t = x;
  parallelFor(backend, count, [=] SRT_CPU_GPU(uint32_t i) {
    const Vec3f p = object[i];
    world[i] = {addRn(dot3(t.m[0][0], t.m[0][1], t.m[0][2], p), t.m[0][3]),
                addRn(dot3(t.m[1][0], t.m[1][1], t.m[1][2], p), t.m[1][3]),
                addRn(dot3(t.m[2][0], t.m[2][1], t.m[2][2], p), t.m[2][3])};
  });
}

void transformNormals(const Backend& backend, const Vec3f* object, Vec3f* world, uint32_t count,
                      const Transform& inverse) {
  const Transform inv = inverse;
  parallelFor(backend, count, [=] SRT_CPU_GPU(uint32_t i) {
    const Vec3f n = object[i];
    world[i] = normalizedRn({dot3(inv.m[0][0], inv.m[1][0], inv.m[2][0], n),
                             dot3(inv.m[0][1], inv.m[1][1], inv.m[2][1], n),
                             dot3(inv.m[0][2], inv.m[1][2], inv.m[2][2], n)});
  });
}

void gatherCorners(const Backend& backend, const Vec3f* positions, const uint32_t* indices,
                   PackedVertex* corners, uint32_t first, uint32_t count) {
  parallelFor(backend, count, [=] SRT_CPU_GPU(uint32_t i) {
    const Vec3f p = positions[indices[first + i]];
    corners[first + i] = {p.x, p.y, p.z, 0.f};
  });
}

void computeUnitTriangles(const Backend& backend, const PackedVertex* corners,
                          UnitTriangleRow* rows, uint32_t firstTriangle, uint32_t count) {
  parallelFor(backend, count, [=] SRT_CPU_GPU(uint32_t i) {
    const PackedVertex* c = corners + 3 * size_t(firstTriangle + i);
    unitTriangleRows({c[0].x, c[0].y, c[0].z}, {c[1].x, c[1].y, c[1].z}, {c[2].x, c[2].y, c[2].z},
                     rows + 3 * size_t(firstTriangle + i));
  });
}

}  // namespace srt
