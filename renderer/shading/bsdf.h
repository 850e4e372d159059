// The BSDFs of the four material types, evaluated in a local frame around the shading normal.
// Conventions (pbrt-v4's): wo and wi are world-space unit vectors pointing away from the surface;
// f excludes the cosine; a sample's path weight is f * |dot(wi, n)| / pdf. For the specular types
// (Dielectric, Mirror) f() and pdf() are 0 and sample() returns f with the 1/|cos θi| folded in
// and pdf = the discrete probability of the chosen lobe.
//
// Sidedness: Diffuse, Glossy and Mirror are two-sided (they reflect into wo's hemisphere
// whichever side of n it is on), so OBJ files with inconsistent windings still render. Dielectric
// needs n pointing out of the object: dot(wo, n) < 0 means wo is inside the glass.
//
// Glossy: GGX lobe with Schlick Fresnel tinted by ks, plus an energy-coupled diffuse base
// (Ashikhmin-Shirley 2000: kd (1 - ks) 28/(23π) (1 - (1 - cos θo/2)^5) (1 - (1 - cos θi/2)^5)),
// which keeps albedo <= 1 for any kd, ks in [0,1] and stays reciprocal; a plain Lambert kd/π
// under the lobe would exceed 1 at grazing angles.
#pragma once

#include <cmath>

#include "primitives/common/host_device.h"
#include "base/math.h"
#include "renderer/shading/material.h"
#include "renderer/shading/microfacet.h"
#include "renderer/shading/sampling.h"
#include "renderer/shading/texture.h"

namespace srt {

struct BsdfSample {
  Vec3f f;          // BSDF value (specular: includes 1/|cos θi|)
  Vec3f wi;         // world space, pointing away from the surface
  float pdf = 0.f;  // solid angle density, or the lobe probability for specular samples
  bool specular = false;
};

// Ashikhmin-Shirley's diffuse angular factor, 1 - (1 - cos/2)^5.
SRT_CPU_GPU inline float ashikhminDiffuseFactor(float cosTheta) {
  const float m = 1.f - 0.5f * fabsf(cosTheta);
  return 1.f - (m * m) * (m * m) * m;
}

struct Bsdf {
  Frame frame;
  MaterialType type = MaterialType::Diffuse;
  Vec3f kd;  // textured diffuse colour
  Vec3f ks;  // Glossy Fresnel tint at normal incidence / Mirror tint
  float alpha = 1.f;
  float eta = 1.5f;  // Dielectric: n_inside / n_outside

  SRT_CPU_GPU bool isSpecular() const {
    return type == MaterialType::Dielectric || type == MaterialType::Mirror;
  }

  SRT_CPU_GPU Vec3f f(Vec3f wo, Vec3f wi) const {
    return fLocal(frame.toLocal(wo), frame.toLocal(wi));
  }
  SRT_CPU_GPU float pdf(Vec3f wo, Vec3f wi) const {
    return pdfLocal(frame.toLocal(wo), frame.toLocal(wi));
  }
  // uc picks a lobe, u the direction within it. False when no direction can be produced (then
  // *out is unspecified and the path ends).
  SRT_CPU_GPU bool sample(Vec3f wo, float uc, Vec2f u, BsdfSample* out) const {
    Vec3f wiLocal;
    if (!sampleLocal(frame.toLocal(wo), uc, u, &wiLocal, out)) return false;
    out->wi = frame.toWorld(wiLocal);
    return true;
  }

  // ---- Local frame: +z is the shading normal. ----

  SRT_CPU_GPU Vec3f fLocal(Vec3f wo, Vec3f wi) const {
    if (isSpecular() || wo.z == 0.f) return Vec3f(0.f);
    if (wo.z < 0.f) wo.z = -wo.z, wi.z = -wi.z;  // two-sided: flip into the upper hemisphere
    if (wi.z <= 0.f) return Vec3f(0.f);
    if (type == MaterialType::Diffuse) return kd * kInvPi;
    return glossySpecular(wo, wi) + glossyDiffuse(wo, wi);
  }

  SRT_CPU_GPU float pdfLocal(Vec3f wo, Vec3f wi) const {
    if (isSpecular() || wo.z == 0.f) return 0.f;
    if (wo.z < 0.f) wo.z = -wo.z, wi.z = -wi.z;
    if (wi.z <= 0.f) return 0.f;
    if (type == MaterialType::Diffuse) return cosineHemispherePdf(wi.z);
    const float pSpec = glossySpecularProbability(wo);
    return pSpec * glossySpecularPdf(wo, wi) + (1.f - pSpec) * cosineHemispherePdf(wi.z);
  }

  SRT_CPU_GPU bool sampleLocal(Vec3f wo, float uc, Vec2f u, Vec3f* wi, BsdfSample* out) const {
    if (wo.z == 0.f) return false;
    switch (type) {
      case MaterialType::Dielectric:
        return sampleDielectric(wo, uc, wi, out);
      case MaterialType::Mirror: {
        *wi = Vec3f(-wo.x, -wo.y, wo.z);
        out->f = ks / fabsf(wi->z);
        out->pdf = 1.f;
        out->specular = true;
        return !isBlack(ks);
      }
      default:
        break;
    }
    const float side = wo.z < 0.f ? -1.f : 1.f;
    const Vec3f woUp(wo.x, wo.y, fabsf(wo.z));
    Vec3f w;
    if (type == MaterialType::Diffuse || uc >= glossySpecularProbability(woUp)) {
      w = sampleCosineHemisphere(u);
    } else {
      const GgxDistribution ggx{alpha};
      w = reflect(woUp, ggx.sampleWh(woUp, u));
    }
    if (w.z <= 0.f) return false;  // the sampled microfacet reflects below the horizon
    out->f = fLocal(woUp, w);
    out->pdf = pdfLocal(woUp, w);
    out->specular = false;
    *wi = Vec3f(w.x, w.y, w.z * side);
    return out->pdf > 0.f;
  }

  // ---- Glossy pieces (wo, wi in the upper hemisphere). ----

  SRT_CPU_GPU Vec3f glossySpecular(Vec3f wo, Vec3f wi) const {
    Vec3f wh = wo + wi;
    if (lengthSquared(wh) == 0.f) return Vec3f(0.f);
    wh = normalize(wh);
    const GgxDistribution ggx{alpha};
    const Vec3f F = fresnelSchlick(ks, dot(wo, wh));
    return F * (ggx.D(wh) * ggx.G(wo, wi) / (4.f * wo.z * wi.z));
  }
  SRT_CPU_GPU Vec3f glossyDiffuse(Vec3f wo, Vec3f wi) const {
    constexpr float kNorm = 28.f / (23.f * kPi);
    return kd * (Vec3f(1.f) - ks) *
           (kNorm * ashikhminDiffuseFactor(wo.z) * ashikhminDiffuseFactor(wi.z));
  }
  SRT_CPU_GPU float glossySpecularPdf(Vec3f wo, Vec3f wi) const {
    Vec3f wh = wo + wi;
    if (lengthSquared(wh) == 0.f) return 0.f;
    wh = normalize(wh);
    const float woDotWh = dot(wo, wh);
    if (woDotWh <= 0.f) return 0.f;
    const GgxDistribution ggx{alpha};
    return ggx.visibleD(wo, wh) / (4.f * woDotWh);
  }
  // Lobe choice by the lobes' approximate albedos at wo (depends on wo only, so pdf() agrees).
  SRT_CPU_GPU float glossySpecularProbability(Vec3f wo) const {
    const float ws = luminance(fresnelSchlick(ks, wo.z));
    const float wd = luminance(kd * (Vec3f(1.f) - ks)) * ashikhminDiffuseFactor(wo.z);
    return ws + wd > 0.f ? ws / (ws + wd) : 0.f;
  }

  // ---- Dielectric: Fresnel-weighted choice between mirror reflection and refraction. ----

  SRT_CPU_GPU bool sampleDielectric(Vec3f wo, float uc, Vec3f* wi, BsdfSample* out) const {
    const float R = fresnelDielectric(wo.z, eta);
    const float T = 1.f - R;
    out->specular = true;
    if (uc < R || T <= 0.f) {
      *wi = Vec3f(-wo.x, -wo.y, wo.z);
      out->f = Vec3f(R / fabsf(wi->z));
      out->pdf = R;
      return R > 0.f;
    }
    float etap;
    if (!refract(wo, Vec3f(0.f, 0.f, 1.f), eta, &etap, wi)) return false;
    // Radiance is not invariant across the boundary: L_t = L_i / etap² (etap = n_t / n_i on the
    // camera path's side), pbrt's TransportMode::Radiance.
    out->f = Vec3f(T / (fabsf(wi->z) * etap * etap));
    out->pdf = T;
    return T > 0.f;
  }
};

// Builds the BSDF at a hit: kd modulated by the material's texture at uv (textures may be null
// when no material uses one); shadingNormal need not be normalised.
SRT_CPU_GPU inline Bsdf makeBsdf(const DeviceMaterial& m, const TextureView* textures,
                                 Vec3f shadingNormal, Vec2f uv) {
  Bsdf b;
  const float len = length(shadingNormal);
  b.frame = Frame::fromNormal(len > 0.f ? shadingNormal / len : Vec3f(0.f, 0.f, 1.f));
  b.type = m.type;
  b.kd = m.kd;
  if (m.kdTexture >= 0 && textures != nullptr) b.kd = b.kd * lookup(textures[m.kdTexture], uv);
  b.ks = m.ks;
  b.alpha = clampf(m.alpha, kMinAlpha, 1.f);
  b.eta = m.ior;
  return b;
}

}  // namespace srt
