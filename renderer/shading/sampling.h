// Warping functions from [0,1)^2 to directions and points, their densities, multiple importance
// sampling weights and area <-> solid angle conversions (pbrt-v4 util/sampling.h).
#pragma once

#include <cmath>

#include "base/math.h"
#include "primitives/common/host_device.h"

namespace srt {

// Shirley-Chiu concentric map to the unit disk (low distortion; thin-lens apertures).
SRT_CPU_GPU inline Vec2f sampleUniformDiskConcentric(Vec2f u) {
  const float ox = 2.f * u.x - 1.f, oy = 2.f * u.y - 1.f;
  if (ox == 0.f && oy == 0.f) return Vec2f{0.f, 0.f};
  float r, theta;
  if (fabsf(ox) > fabsf(oy)) {
    r = ox;
    theta = (kPi / 4.f) * (oy / ox);
  } else {
    r = oy;
    theta = kPi / 2.f - (kPi / 4.f) * (ox / oy);
  }
  return Vec2f{r * cosf(theta), r * sinf(theta)};
}

// Cosine-weighted hemisphere around +z (Malley's method): pdf = cos(theta) / pi.
SRT_CPU_GPU inline Vec3f sampleCosineHemisphere(Vec2f u) {
  const Vec2f d = sampleUniformDiskConcentric(u);
  const float z = sqrtf(fmaxf(0.f, 1.f - d.x * d.x - d.y * d.y));
  return Vec3f(d.x, d.y, z);
}
SRT_CPU_GPU inline float cosineHemispherePdf(float cosTheta) {
  return fmaxf(cosTheta, 0.f) * kInvPi;
}

// The point of the unit sphere at height z and azimuth 2 pi v: uniform over the zone z spans
// when z and v are (Archimedes' hat-box theorem).
SRT_CPU_GPU inline Vec3f spherePointAt(float z, float v) {
  const float r = sqrtf(fmaxf(0.f, 1.f - z * z));
  const float phi = 2.f * kPi * v;
  return Vec3f(r * cosf(phi), r * sinf(phi), z);
}

// Uniform over the hemisphere around +z: pdf = 1 / (2 pi).
SRT_CPU_GPU inline Vec3f sampleUniformHemisphere(Vec2f u) {
  return spherePointAt(u.x, u.y);
}
SRT_CPU_GPU inline float uniformHemispherePdf() {
  return 0.5f * kInvPi;
}

// Uniform over the unit sphere: pdf = 1 / (4 pi).
SRT_CPU_GPU inline Vec3f sampleUniformSphere(Vec2f u) {
  return spherePointAt(1.f - 2.f * u.x, u.y);
}
SRT_CPU_GPU inline float uniformSpherePdf() {
  return 0.25f * kInvPi;
}

// Uniform point on a triangle as barycentrics (b0, b1, b2), p = b0 p0 + b1 p1 + b2 p2;
// pdf = 1 / area.
SRT_CPU_GPU inline Vec3f sampleUniformTriangle(Vec2f u) {
  const float su0 = sqrtf(u.x);
  const float b0 = 1.f - su0;
  const float b1 = u.y * su0;
  return Vec3f(b0, b1, fmaxf(0.f, 1.f - b0 - b1));
}

// Veach's power heuristic (beta = 2) for nf samples of f and ng of g. An infinite fPdf (a delta
// lobe the other technique cannot hit) gets weight 1.
SRT_CPU_GPU inline float powerHeuristic(int nf, float fPdf, int ng, float gPdf) {
  const float f = nf * fPdf, g = ng * gPdf;
  if (f * f > 3.0e38f) return 1.f;  // overflowed to infinity: a delta lobe
  const float denom = f * f + g * g;
  return denom > 0.f ? (f * f) / denom : 0.f;
}

// Densities per unit area at a point y and per unit solid angle seen from x are related by
// dω = |cos θ_y| dA / |x - y|²; dist2 = |x - y|², cosAtY = cos θ_y at the sampled point.
SRT_CPU_GPU inline float pdfAreaToSolidAngle(float pdfArea, float dist2, float cosAtY) {
  const float c = fabsf(cosAtY);
  return c > 0.f ? pdfArea * dist2 / c : 0.f;
}
SRT_CPU_GPU inline float pdfSolidAngleToArea(float pdfSolidAngle, float dist2, float cosAtY) {
  return dist2 > 0.f ? pdfSolidAngle * fabsf(cosAtY) / dist2 : 0.f;
}

}  // namespace srt
