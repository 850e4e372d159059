// Lighting by an equirectangular environment map (scenes/scene.h's EnvironmentMap): bilinear
// radiance lookups, and importance sampling by a piecewise-constant distribution over the map
// proportional to luminance × sin(theta), the Jacobian of the latitude-longitude mapping
// (pbrt-v4's ImageInfiniteLight). The path tracer combines it with BSDF sampling by MIS.
#pragma once

#include <cmath>
#include <vector>

#include "base/math.h"
#include "primitives/common/host_device.h"
#include "renderer/shading/distribution2d.h"
#include "renderer/shading/sampling.h"
#include "scenes/scene.h"

namespace srt {

struct EnvironmentView {
  const Vec3f* texels = nullptr;  // null: no map (the uniform environment applies)
  int width = 0, height = 0;
  float scale = 1.f;
  float uOffset = 0.f;  // rotationDegrees / 360
  Distribution2DView distribution;
  SRT_CPU_GPU bool present() const { return texels != nullptr; }
};

// Map coordinates (u right, v down from straight up) of direction d (unit length).
SRT_CPU_GPU inline Vec2f directionToEquirect(Vec3f d, float uOffset) {
  float u = 0.5f + atan2f(d.x, -d.z) * (0.5f * kInvPi) + uOffset;
  u -= floorf(u);
  const float v = acosf(fminf(1.f, fmaxf(-1.f, d.y))) * kInvPi;
  return Vec2f{u, v};
}

SRT_CPU_GPU inline Vec3f equirectToDirection(Vec2f uv, float uOffset) {
  const float theta = uv.y * kPi, phi = (uv.x - 0.5f - uOffset) * (2.f * kPi);
  const float sinTheta = sinf(theta);
  return Vec3f(sinTheta * sinf(phi), cosf(theta), -sinTheta * cosf(phi));
}

// Bilinear, wrapping around in u and clamped at the poles in v; texel centres at half-integers.
SRT_CPU_GPU inline Vec3f lookupEquirect(const EnvironmentView& e, Vec2f uv) {
  float u = uv.x - floorf(uv.x);
  if (!(u >= 0.f && u <= 1.f)) u = 0.f;  // NaN directions: any texel, but no bad index
  const float v = uv.y >= 0.f ? fminf(uv.y, 1.f) : 0.f;
  const float x = u * float(e.width) - 0.5f, y = v * float(e.height) - 0.5f;
  const float x0f = floorf(x), y0f = floorf(y);
  const float fx = x - x0f, fy = y - y0f;
  int x0 = int(x0f) % e.width;
  x0 = x0 < 0 ? x0 + e.width : x0;
  const int x1 = x0 + 1 == e.width ? 0 : x0 + 1;
  const int y0 = y0f < 0.f ? 0 : int(y0f);
  const int y1 = y0f + 1.f >= float(e.height) ? e.height - 1 : int(y0f) + 1;
  const Vec3f a = e.texels[y0 * e.width + x0], b = e.texels[y0 * e.width + x1];
  const Vec3f c = e.texels[y1 * e.width + x0], d = e.texels[y1 * e.width + x1];
  return lerp(fy, lerp(fx, a, b), lerp(fx, c, d));
}

SRT_CPU_GPU inline Vec3f environmentRadiance(const EnvironmentView& e, Vec3f d) {
  return lookupEquirect(e, directionToEquirect(d, e.uOffset)) * e.scale;
}

// Solid-angle density of a map-coordinate density at direction d: dω = 2π² sin(theta) du dv.
SRT_CPU_GPU inline float equirectPdfToSolidAngle(float pdfUv, Vec3f d) {
  const float sinTheta = sqrtf(fmaxf(0.f, 1.f - d.y * d.y));
  return sinTheta > 0.f ? pdfUv / (2.f * kPi * kPi * sinTheta) : 0.f;
}

// Solid-angle density with which sampleEnvironment produces direction d.
SRT_CPU_GPU inline float environmentPdf(const EnvironmentView& e, Vec3f d) {
  return equirectPdfToSolidAngle(
      distribution2DPdf(e.distribution, directionToEquirect(d, e.uOffset)), d);
}

struct EnvironmentSample {
  Vec3f wi;         // towards the environment
  Vec3f Le;         // radiance arriving along -wi
  float pdf = 0.f;  // per unit solid angle
};

// False only at a pole (zero solid angle) or where the map has no weight.
SRT_CPU_GPU inline bool sampleEnvironment(const EnvironmentView& e, Vec2f u,
                                          EnvironmentSample* out) {
  float pdfUv = 0.f;
  const Vec2f uv = sampleDistribution2D(e.distribution, u, &pdfUv);
  const Vec3f wi = equirectToDirection(uv, e.uOffset);
  const float pdf = equirectPdfToSolidAngle(pdfUv, wi);
  if (!(pdf > 0.f)) return false;
  out->wi = wi;
  out->Le = lookupEquirect(e, uv) * e.scale;
  out->pdf = pdf;
  return true;
}

// What a path gathers when it escapes along d: the map (MIS-weighted against sampling it, picked
// with pickProbability, when bsdfPdf > 0), or the uniform environment, which is never sampled.
// bsdfPdf is 0 for camera rays and specular bounces: those see the map with full weight.
SRT_CPU_GPU inline Vec3f escapedRadiance(const EnvironmentView& e, Vec3f uniform, Vec3f d,
                                         float bsdfPdf, float pickProbability) {
  if (!e.present()) return uniform;
  const Vec3f L = environmentRadiance(e, d);
  if (!(bsdfPdf > 0.f) || isBlack(L)) return L;
  return L * powerHeuristic(1, bsdfPdf, 1, pickProbability * environmentPdf(e, d));
}

// Host side: the texels and the sampling distribution, built once per scene.
struct EnvironmentTable {
  std::vector<Vec3f> texels;
  Distribution2D distribution;
  int width = 0, height = 0;
  float scale = 1.f, uOffset = 0.f;
  bool importanceSampled = true;
};

// Throws std::invalid_argument naming the map for an empty image, texels that are negative or not
// finite, a scale that is negative or not finite, or a rotation that is not finite.
EnvironmentTable buildEnvironment(const EnvironmentMap& map);
// The view of a table whose arrays live at the given addresses (host data() or device copies).
EnvironmentView makeEnvironmentView(const EnvironmentTable& table, const Vec3f* texels,
                                    const float* marginalCdf, const float* conditionalCdf);
EnvironmentView hostView(const EnvironmentTable& table);

}  // namespace srt
