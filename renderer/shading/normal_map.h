// Shading-normal detail from MTL maps: normal maps (`norm`, tangent-space RGB) and bump maps
// (`bump`/`map_bump`, heights whose texel-to-texel differences tilt the normal, scaled by -bm).
// Both give a tangent-space normal, turned into world space by the triangle's uv frame (dp/du,
// dp/dv made orthonormal around the interpolated normal), as pbrt and Cycles do.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/math.h"
#include "primitives/common/host_device.h"
#include "renderer/shading/material.h"
#include "renderer/shading/texture.h"

namespace srt {

SRT_CPU_GPU inline bool hasNormalDetail(const DeviceMaterial& m) {
  return m.bumpTexture >= 0 || m.normalTexture >= 0;
}

// dp/du and dp/dv of the triangle (p, t) (pbrt-v4's Triangle). False when its uvs are degenerate.
SRT_CPU_GPU inline bool triangleUvFrame(const Vec3f p[3], const Vec2f t[3], Vec3f* dpdu,
                                        Vec3f* dpdv) {
  const float du02 = t[0].x - t[2].x, dv02 = t[0].y - t[2].y;
  const float du12 = t[1].x - t[2].x, dv12 = t[1].y - t[2].y;
  const Vec3f dp02 = p[0] - p[2], dp12 = p[1] - p[2];
  const float det = du02 * dv12 - dv02 * du12;
  if (!(fabsf(det) > 1e-20f)) return false;
  const float inv = 1.f / det;
  *dpdu = (dp02 * dv12 - dp12 * dv02) * inv;
  *dpdv = (dp12 * du02 - dp02 * du12) * inv;
  return true;
}

// The tangent-space normal the material's maps give at uv: a normal map's RGB remapped from
// [0,1] to [-1,1], or from a bump map the central differences one texel apart (height steps of
// one over one texel tilt by 45° at bumpScale 1). (0, 0, 1) leaves the normal as it is.
SRT_CPU_GPU inline Vec3f tangentSpaceNormal(const DeviceMaterial& m, const TextureView* textures,
                                            Vec2f uv) {
  if (m.normalTexture >= 0) {
    const Vec3f c = lookup(textures[m.normalTexture], uv);
    return Vec3f(2.f * c.x - 1.f, 2.f * c.y - 1.f, 2.f * c.z - 1.f);
  }
  const TextureView& t = textures[m.bumpTexture];
  if (t.texels == nullptr || t.width <= 0 || t.height <= 0) return Vec3f(0.f, 0.f, 1.f);
  const float du = 1.f / float(t.width), dv = 1.f / float(t.height);
  const float dhdx =
      0.5f * (lookup(t, Vec2f{uv.x + du, uv.y}).x - lookup(t, Vec2f{uv.x - du, uv.y}).x);
  const float dhdy =
      0.5f * (lookup(t, Vec2f{uv.x, uv.y + dv}).x - lookup(t, Vec2f{uv.x, uv.y - dv}).x);
  return Vec3f(-m.bumpScale * dhdx, -m.bumpScale * dhdy, 1.f);
}

// The authored (outward) shading normal n with the material's detail applied; n itself when the
// uv frame is degenerate or the result would not be finite.
SRT_CPU_GPU inline Vec3f detailNormal(const DeviceMaterial& m, const TextureView* textures,
                                      Vec2f uv, Vec3f n, Vec3f dpdu, Vec3f dpdv) {
  Vec3f t = dpdu - n * dot(n, dpdu);
  const float tLen = length(t);
  if (!(tLen > 0.f)) return n;
  t = t / tLen;
  Vec3f b = cross(n, t);
  if (dot(b, dpdv) < 0.f) b = -b;  // mirrored uvs
  const Vec3f ts = tangentSpaceNormal(m, textures, uv);
  const Vec3f d = t * ts.x + b * ts.y + n * ts.z;
  const float len = length(d);
  return len > 0.f && len < kInf ? d / len : n;  // also refuses NaN and overflow
}

// detailNormal for triangle `tri` of an indexed mesh with per-vertex uvs.
SRT_CPU_GPU inline Vec3f detailNormalOnTriangle(const DeviceMaterial& m,
                                                const TextureView* textures, const Vec3f* positions,
                                                const uint32_t* indices, const Vec2f* uvs,
                                                uint32_t tri, Vec2f uv, Vec3f n) {
  const Vec3f p[3] = {positions[indices[3 * tri]], positions[indices[3 * tri + 1]],
                      positions[indices[3 * tri + 2]]};
  const Vec2f t[3] = {uvs[indices[3 * tri]], uvs[indices[3 * tri + 1]], uvs[indices[3 * tri + 2]]};
  Vec3f dpdu, dpdv;
  if (!triangleUvFrame(p, t, &dpdu, &dpdv)) return n;
  return detailNormal(m, textures, uv, n, dpdu, dpdv);
}

}  // namespace srt
