// Fresnel terms and the GGX (Trowbridge-Reitz) microfacet distribution with visible-normal
// sampling (Heitz 2018), in the local shading frame (+z is the normal). Follows pbrt-v4's
// util/scattering.h.
#pragma once

#include <cmath>

#include "primitives/common/host_device.h"
#include "base/math.h"

namespace srt {

// Unpolarised Fresnel reflectance of a smooth dielectric boundary. cosThetaI is measured against
// a normal on the side of the medium with index 1 relative to `eta` = n_inside / n_outside; a
// negative cosThetaI means the ray arrives from inside (eta is inverted). 1 under total internal
// reflection.
SRT_CPU_GPU inline float fresnelDielectric(float cosThetaI, float eta) {
  cosThetaI = clampf(cosThetaI, -1.f, 1.f);
  if (cosThetaI < 0.f) {
    eta = 1.f / eta;
    cosThetaI = -cosThetaI;
  }
  const float sin2I = 1.f - cosThetaI * cosThetaI;
  const float sin2T = sin2I / (eta * eta);
  if (sin2T >= 1.f) return 1.f;
  const float cosT = sqrtf(fmaxf(0.f, 1.f - sin2T));
  const float rParl = (eta * cosThetaI - cosT) / (eta * cosThetaI + cosT);
  const float rPerp = (cosThetaI - eta * cosT) / (cosThetaI + eta * cosT);
  return 0.5f * (rParl * rParl + rPerp * rPerp);
}

// Refracts wi (pointing away from the surface) through a boundary with normal n and relative
// index eta = n_inside / n_outside, n pointing outside. Works from either side: *etap receives the
// index ratio actually used (eta entering, 1/eta leaving) and *wt the transmitted direction
// (pointing away, on the other side). False under total internal reflection.
SRT_CPU_GPU inline bool refract(Vec3f wi, Vec3f n, float eta, float* etap, Vec3f* wt) {
  float cosI = dot(n, wi);
  if (cosI < 0.f) {
    eta = 1.f / eta;
    cosI = -cosI;
    n = -n;
  }
  const float sin2I = fmaxf(0.f, 1.f - cosI * cosI);
  const float sin2T = sin2I / (eta * eta);
  if (sin2T >= 1.f) return false;
  const float cosT = sqrtf(1.f - sin2T);
  *wt = -wi / eta + n * (cosI / eta - cosT);
  *etap = eta;
  return true;
}

// Schlick's approximation for a conductor-like tint f0 (the Glossy lobe's ks).
SRT_CPU_GPU inline Vec3f fresnelSchlick(Vec3f f0, float cosTheta) {
  const float m = clampf(1.f - cosTheta, 0.f, 1.f);
  const float m5 = (m * m) * (m * m) * m;
  return f0 + (Vec3f(1.f) - f0) * m5;
}

// Isotropic GGX with roughness alpha; directions in the local frame, upper hemisphere.
struct GgxDistribution {
  float alpha = 1.f;

  // Normal distribution D(wh), normalised so that ∫ D(wh) cos θh dωh = 1.
  SRT_CPU_GPU float D(Vec3f wh) const {
    if (wh.z <= 0.f) return 0.f;
    const float a2 = alpha * alpha;
    const float t = wh.z * wh.z * (a2 - 1.f) + 1.f;
    return a2 / (kPi * t * t);
  }
  // Smith's auxiliary function: G1 = 1 / (1 + Lambda).
  SRT_CPU_GPU float lambda(Vec3f w) const {
    const float z2 = w.z * w.z;
    if (z2 <= 0.f) return kInf;
    const float tan2 = fmaxf(0.f, 1.f - z2) / z2;
    return 0.5f * (sqrtf(1.f + alpha * alpha * tan2) - 1.f);
  }
  SRT_CPU_GPU float G1(Vec3f w) const { return 1.f / (1.f + lambda(w)); }
  // Height-correlated masking-shadowing.
  SRT_CPU_GPU float G(Vec3f wo, Vec3f wi) const { return 1.f / (1.f + lambda(wo) + lambda(wi)); }

  // Density of the visible normal wh seen from wo: G1(wo) max(0, wo·wh) D(wh) / cos θo.
  SRT_CPU_GPU float visibleD(Vec3f wo, Vec3f wh) const {
    if (wo.z <= 0.f) return 0.f;
    return G1(wo) * fmaxf(0.f, dot(wo, wh)) * D(wh) / wo.z;
  }

  // Samples a visible normal for wo (wo.z > 0): Heitz 2018, "Sampling the GGX Distribution of
  // Visible Normals".
  SRT_CPU_GPU Vec3f sampleWh(Vec3f wo, Vec2f u) const {
    const Vec3f vh = normalize(Vec3f(alpha * wo.x, alpha * wo.y, wo.z));
    const float lensq = vh.x * vh.x + vh.y * vh.y;
    const Vec3f t1 =
        lensq > 0.f ? Vec3f(-vh.y, vh.x, 0.f) * (1.f / sqrtf(lensq)) : Vec3f(1.f, 0.f, 0.f);
    const Vec3f t2 = cross(vh, t1);
    const float r = sqrtf(u.x);
    const float phi = 2.f * kPi * u.y;
    const float p1 = r * cosf(phi);
    float p2 = r * sinf(phi);
    const float s = 0.5f * (1.f + vh.z);
    p2 = (1.f - s) * sqrtf(fmaxf(0.f, 1.f - p1 * p1)) + s * p2;
    const Vec3f nh = t1 * p1 + t2 * p2 + vh * sqrtf(fmaxf(0.f, 1.f - p1 * p1 - p2 * p2));
    return normalize(Vec3f(alpha * nh.x, alpha * nh.y, fmaxf(1e-6f, nh.z)));
  }
};

}  // namespace srt
