// Next-event estimation towards emissive triangles chosen in proportion to their power
// (area × luminance(Ke)) by binary search in a CDF, plus the point-light helper the
// Whitted tracer uses. Emission is one-sided, as in pbrt and Mitsuba: an emitter shines towards
// its winding normal (a two-sided Cornell light 0.1 mm under the ceiling lights the ceiling with
// a firefly-making band); pdfs use |cos| at the light.
#pragma once

#include <cstdint>
#include <vector>

#include "base/math.h"
#include "primitives/common/host_device.h"
#include "renderer/shading/sampling.h"
#include "renderer/shading/texture.h"
#include "scenes/scene.h"

namespace srt {

// Host-built arrays; the renderer copies each to the device and fills an EmitterView with the
// copies' pointers (or uses hostView() on the CPU). Index e runs over emitters, t over triangles.
struct EmitterTable {
  std::vector<uint32_t> triangles;         // [e] triangle id in the FlatGeometry
  std::vector<Vec3f> radiance;             // [e] Ke of its material
  std::vector<float> areas;                // [e] triangle area, as sampling divides by it
  std::vector<float> cdf;                  // [e] Σ_{e' < e} pmf, n + 1 entries, cdf[n] = 1
  std::vector<float> pmf;                  // [e] cdf[e + 1] - cdf[e] ≈ power[e] / totalPower
  std::vector<int32_t> triangleToEmitter;  // [t] e, or -1 for triangles that do not emit
  std::vector<int32_t> keTextures;         // [e] emission map of its material, -1: none; empty
                                           // when no emitter has one
  double totalPower = 0.0;                 // Σ area × luminance(Ke)
  size_t size() const { return triangles.size(); }
};

struct EmitterView {
  const uint32_t* triangles = nullptr;
  const Vec3f* radiance = nullptr;
  const float* areas = nullptr;
  const float* cdf = nullptr;  // count + 1 entries
  const float* pmf = nullptr;
  const int32_t* triangleToEmitter = nullptr;
  // Emission maps: keTextures[e] indexes textures, read at uvs interpolated over the triangle;
  // null when no emitter has a map (or the mesh has no uvs).
  const int32_t* keTextures = nullptr;
  const Vec2f* uvs = nullptr;
  const TextureView* textures = nullptr;
  uint32_t count = 0;          // emitters
  uint32_t triangleCount = 0;  // entries of triangleToEmitter
};

// Emitters are triangles whose material has luminance(Ke) > 0 and whose area is > 0. Throws
// std::invalid_argument naming the triangle when a material id or vertex index is out of range,
// or when a Ke is negative or not finite. With `textures`, a material's emission map (keTexture)
// scales its triangles' power by the map's mean over each triangle (16 stratified lookups), and a
// triangle where the map reads black there is left to BSDF sampling.
EmitterTable buildEmitters(const FlatGeometry& geometry, const std::vector<Material>& materials,
                           const std::vector<Texture>* textures = nullptr);
EmitterView hostView(const EmitterTable& table);

struct LightSample {
  Vec3f p;   // point on the emitter
  Vec3f n;   // its geometric normal (from the winding; emission ignores the side)
  Vec3f Le;  // emitted radiance towards refPoint
  Vec3f wi;  // unit direction refPoint -> p
  float distance = 0.f;
  float pdf = 0.f;  // per unit solid angle at refPoint
  uint32_t triangle = 0;
};

SRT_CPU_GPU inline float triangleArea(Vec3f p0, Vec3f p1, Vec3f p2) {
  return 0.5f * length(cross(p1 - p0, p2 - p0));
}

// The half of an emitter sample that does not depend on the shading point: the emitter uc picks
// with probability pmf[e] (a CDF rather than an alias table because the alias table would split
// uc's 24 bits between the bin and the coin; here every emitter keeps full resolution, and the pmf
// is the CDF's own differences, so frequencies match emitterPdf exactly) and the uniform point u
// picks on it. A stage may fetch it before the hit's surface, so the two chains of loads overlap.
struct EmitterPoint {
  Vec3f p;             // point on the emitter
  Vec3f n;             // its unit winding normal
  Vec3f barycentrics;  // of p, for an emission map
  uint32_t emitter = 0;
  uint32_t triangle = 0;  // the emitter's triangle id
  bool valid = false;     // false with no emitters or a degenerate triangle
};

SRT_CPU_GPU inline EmitterPoint pointOnEmitter(const EmitterView& v, const Vec3f* positions,
                                               const uint32_t* indices, Vec2f u, float uc) {
  EmitterPoint out;
  if (v.count == 0) return out;
  // Largest e with cdf[e] <= uc; cdf[count] = 1 > uc, so pmf[e] > 0 for the one found.
  uint32_t lo = 0, hi = v.count;
  while (lo + 1 < hi) {
    const uint32_t mid = (lo + hi) / 2;
    if (v.cdf[mid] <= uc)
      lo = mid;
    else
      hi = mid;
  }
  const uint32_t t = v.triangles[lo];
  const Vec3f p0 = positions[indices[3 * t]], p1 = positions[indices[3 * t + 1]],
              p2 = positions[indices[3 * t + 2]];
  const Vec3f b = sampleUniformTriangle(u);
  const Vec3f cr = cross(p1 - p0, p2 - p0);
  const float crLen = length(cr);
  if (crLen == 0.f) return out;
  out.p = p0 * b.x + p1 * b.y + p2 * b.z;
  out.n = cr / crLen;
  out.barycentrics = b;
  out.emitter = lo;
  out.triangle = t;
  out.valid = true;
  return out;
}

// The other half: the picked point seen from refPoint, its density converted to solid angle.
// False when the point is invalid, at refPoint or seen from behind.
SRT_CPU_GPU inline bool emitterSampleFrom(const EmitterView& v, const uint32_t* indices,
                                          const EmitterPoint& ep, Vec3f refPoint,
                                          LightSample* out) {
  if (!ep.valid) return false;
  const Vec3f d = ep.p - refPoint;
  const float dist2 = lengthSquared(d);
  if (dist2 == 0.f) return false;
  const float dist = sqrtf(dist2);
  const Vec3f wi = d / dist;
  // Emitters are one-sided, as in pbrt and Mitsuba: they shine towards their winding normal.
  if (dot(ep.n, wi) >= 0.f) return false;
  const uint32_t e = ep.emitter;
  const float pdf = pdfAreaToSolidAngle(v.pmf[e] / v.areas[e], dist2, dot(ep.n, wi));
  if (!(pdf > 0.f)) return false;
  out->p = ep.p;
  out->n = ep.n;
  out->Le = v.radiance[e];
  const uint32_t t = ep.triangle;
  if (v.keTextures && v.uvs && v.keTextures[e] >= 0) {
    const Vec3f b = ep.barycentrics;
    const Vec2f a = v.uvs[indices[3 * t]], b1 = v.uvs[indices[3 * t + 1]],
                c = v.uvs[indices[3 * t + 2]];
    const Vec2f uv{a.x * b.x + b1.x * b.y + c.x * b.z, a.y * b.x + b1.y * b.y + c.y * b.z};
    out->Le = out->Le * lookup(v.textures[v.keTextures[e]], uv);
  }
  out->wi = wi;
  out->distance = dist;
  out->pdf = pdf;
  out->triangle = t;
  return true;
}

// Both halves: an emitter picked by uc, a point on it by u, as seen from refPoint. False with no
// emitters, or when the point is degenerate (at refPoint or seen edge-on).
SRT_CPU_GPU inline bool sampleEmitter(const EmitterView& v, const Vec3f* positions,
                                      const uint32_t* indices, Vec3f refPoint, Vec2f u, float uc,
                                      LightSample* out) {
  return emitterSampleFrom(v, indices, pointOnEmitter(v, positions, indices, u, uc), refPoint, out);
}

// Solid-angle density with which sampleEmitter would have produced hitPoint on triangle
// `triangle` seen from refPoint; 0 for triangles that do not emit. For MIS weights when a
// BSDF-sampled ray hits an emitter; lightNormal is the triangle's geometric normal (either side).
SRT_CPU_GPU inline float emitterPdf(const EmitterView& v, uint32_t triangle, Vec3f refPoint,
                                    Vec3f hitPoint, Vec3f lightNormal) {
  if (triangle >= v.triangleCount) return 0.f;
  const int32_t e = v.triangleToEmitter[triangle];
  if (e < 0) return 0.f;
  const Vec3f d = hitPoint - refPoint;
  const float dist2 = lengthSquared(d);
  if (dist2 == 0.f) return 0.f;
  const float len = length(lightNormal);
  if (len == 0.f) return 0.f;
  const float cosL = dot(lightNormal, d) / (len * sqrtf(dist2));
  return pdfAreaToSolidAngle(v.pmf[e] / v.areas[e], dist2, cosL);
}

// A point light as seen from refPoint: direction, distance, and incident radiance-like
// Li = I / d² (the delta light's contribution is f · |cos θi| · Li · visibility).
struct PointLightSample {
  Vec3f wi;
  float distance = 0.f;
  Vec3f Li;
};

SRT_CPU_GPU inline bool samplePointLight(const PointLight& light, Vec3f refPoint,
                                         PointLightSample* out) {
  const Vec3f d = light.position - refPoint;
  const float dist2 = lengthSquared(d);
  if (dist2 == 0.f) return false;
  out->distance = sqrtf(dist2);
  out->wi = d / out->distance;
  out->Li = light.intensity / dist2;
  return true;
}

}  // namespace srt
