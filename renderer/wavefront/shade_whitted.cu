// Whitted's shading stage: local lighting from point lights and emitters (with shadow rays),
// emission and environment, added to the film at once; up to two children per ray at mirrors and
// glass. The first child goes on in the ray's slot; a second one waits on the spill stack of its
// depth (SpillStacks) until the refill gives it a slot.
#include "renderer/backend/parallel_for.h"
#include "renderer/shading/rng.h"
#include "renderer/shading/sampling.h"
#include "renderer/wavefront/stages.h"

namespace srt {
namespace {
// Children weaker than this are not traced (Hall & Greenberg's adaptive depth control).
constexpr float kMinChildWeight = 1e-3f;

SRT_CPU_GPU inline uint32_t pushIndex(uint32_t* top) {
#if SRT_IS_GPU_CODE
  return atomicAdd(top, 1u);
#else
  uint32_t at;
#pragma omp atomic capture
  at = (*top)++;
  return at;
#endif
}

// A ray's record in the pool (or on a spill stack): origin and pixel, direction and sample,
// weight and depth.
struct WhittedRay {
  Vec3fAnd originPixel, directionSample, weightDepth;
};

SRT_CPU_GPU inline WhittedRay childRay(const SceneView& scene, const SurfaceHit& h, Vec3f dir,
                                       Vec3f weight, uint32_t pixel, uint32_t sample,
                                       uint32_t depth) {
  WhittedRay r;
  r.originPixel.v = offsetOrigin(scene, h, dir), r.originPixel.u = pixel;
  r.directionSample.v = dir, r.directionSample.u = sample;
  r.weightDepth.v = weight, r.weightDepth.u = depth;
  return r;
}

// Onto the stack of the child's depth; a full stack (never, see SpillStacks) is flagged for the
// host rather than written past.
SRT_CPU_GPU inline void spill(const WhittedOutputs& out, const WhittedRay& r) {
  const uint32_t depth = r.weightDepth.u;
  const uint32_t at = pushIndex(&out.ctl->spillTop[depth]);
  if (at >= out.spill.perDepth) return;  // planSpillRefill flags the overflow
  const size_t i = size_t(depth - 1) * out.spill.perDepth + at;
  out.spill.rays.originPixel[i] = r.originPixel;
  out.spill.rays.directionSample[i] = r.directionSample;
  out.spill.rays.weightDepth[i] = r.weightDepth;
}

// Local light at a diffuse or glossy hit, added to L (after the hit's emission, in this order:
// the sums are the images' bits): one shadow ray a point light, traced here, and one emitter
// sample, whose shadow ray is traced here or, deferred, written for the shadow stage.
SRT_CPU_GPU inline void addDirectLight(const SceneView& scene, const SurfaceHit& h,
                                       const Bsdf& bsdf, Vec3f wo, uint32_t pixel, uint32_t sample,
                                       uint32_t bounce, uint32_t seed, uint32_t i, uint32_t slot,
                                       const WhittedOutputs& out, Vec3f& L) {
  for (uint32_t l = 0; l < scene.numPointLights; ++l) {
    const PointLight pl = scene.pointLights[l];
    const Vec3f toLight = pl.position - h.p;
    const float dist2 = lengthSquared(toLight);
    const Vec3f wi = toLight / sqrtf(dist2);
    if (dot(wi, h.ng) <= 0.f) continue;
    Ray shadow;
    shadow.o = offsetOrigin(scene, h, wi);
    shadow.d = wi;
    shadow.tMax = length(pl.position - shadow.o);
    countByDepth(out.depths.shadowRays, bounce);
    if (intersectAny(scene.accel, shadow)) continue;
    L += bsdf.f(wo, wi) * pl.intensity * (absDot(wi, h.ns) / dist2);
  }
  // Emissive triangles: one sample, so area lights cast soft shadows over the samples.
  Sampler sampler = Sampler::at(pixel, sample, bounce + 1, seed);
  const Vec2f u = sampler.next2D();
  const float uc = sampler.next1D();
  LightSample ls;
  if (!sampleEmitter(scene.emitters, scene.accel.mesh.positions, scene.accel.mesh.indices, h.p, u,
                     uc, &ls) ||
      !(ls.pdf > 0.f))
    return;
  const Vec3f wi = normalize(ls.p - h.p);
  if (!(dot(wi, h.ng) > 0.f)) return;
  Ray shadow;
  shadow.o = offsetOrigin(scene, h, wi);
  shadow.d = wi;
  shadow.tMax = length(ls.p - shadow.o) * (1.f - 1e-3f);
  countByDepth(out.depths.shadowRays, bounce);
  const Vec3f c = bsdf.f(wo, wi) * ls.Le * (absDot(wi, h.ns) / ls.pdf);
  if (out.shadowKeep) {  // traced by the shadow stage, added to radianceDepth if unoccluded
    out.shadows.pathSlot[i] = slot;
    out.shadows.origin[i] = shadow.o;
    out.shadows.direction[i] = shadow.d;
    out.shadows.tMax[i] = shadow.tMax;
    out.shadows.contribution[i] = c;
    out.shadowKeep[i] = 1;
  } else if (!intersectAny(scene.accel, shadow)) {
    L += c;
  }
}

// Mirror: one reflected child. Glass: reflected and refracted children split by Fresnel. The
// first child takes the ray's slot; with two, the refracted one is spilled. True: a child took
// the slot.
SRT_CPU_GPU inline bool spawnChildren(const SceneView& scene, const SurfaceHit& h,
                                      const DeviceMaterial& m, Vec3f wo, Vec3f weight,
                                      uint32_t pixel, uint32_t sample, uint32_t bounce,
                                      const PathState& st, uint32_t slot,
                                      const WhittedOutputs& out) {
  const float cosO = dot(wo, h.ns);
  Vec3f reflectWeight, refractWeight(0.f);
  Vec3f refractDir;
  if (m.type == MaterialType::Dielectric) {
    // Entering when the ray hit the front face; eta is inside over outside.
    const float eta = h.frontFace ? m.ior : 1.f / m.ior;
    const float F = fresnelDielectric(fabsf(cosO), eta);
    float etap = 1.f;
    if (refract(wo, h.ns, eta, &etap, &refractDir)) {
      reflectWeight = Vec3f(F);
      refractWeight = Vec3f((1.f - F) / (etap * etap));
    } else {
      reflectWeight = Vec3f(1.f);  // total internal reflection
    }
  } else {
    reflectWeight = m.ks;
  }
  const Vec3f wr = reflect(wo, h.ns);
  const Vec3f w0 = weight * reflectWeight, w1 = weight * refractWeight;
  const bool reflected = maxComponent(w0) > kMinChildWeight;
  const bool refracted = maxComponent(w1) > kMinChildWeight;
  if (reflected || refracted) {
    const WhittedRay c = reflected ? childRay(scene, h, wr, w0, pixel, sample, bounce + 1)
                                   : childRay(scene, h, refractDir, w1, pixel, sample, bounce + 1);
    st.originPixel[slot] = c.originPixel;
    st.directionSample[slot] = c.directionSample;
    st.throughputPdf[slot] = c.weightDepth;
    countByDepth(out.depths.raysAlive, bounce);
  }
  if (reflected && refracted) {
    spill(out, childRay(scene, h, refractDir, w1, pixel, sample, bounce + 1));
    countByDepth(out.depths.raysAlive, bounce);
  }
  return reflected || refracted;
}
}  // namespace

void shadeWhitted(const Backend& b, const SceneView& scene, const PathStream& rays, const Hit* hits,
                  uint32_t seed, uint32_t maxDepth, const WhittedOutputs& out) {
  const bool deferred = out.shadowKeep != nullptr;
  parallelFor(b, rays.count, [=] SRT_CPU_GPU(uint32_t i) {
    if (deferred) out.shadowKeep[i] = 0;
    uint32_t s;
    if (!rays.liveSlot(i, out.keep, s)) return;
    const PathState st = rays.state;
    const Vec3fAnd originPixel = st.originPixel[s], directionSample = st.directionSample[s];
    const Vec3fAnd weightDepth = st.throughputPdf[s];
    const uint32_t pixel = originPixel.u, sample = directionSample.u, bounce = weightDepth.u;
    const Vec3f weight = weightDepth.v;
    countByDepth(out.depths.raysIn, bounce);
    const Ray ray{originPixel.v, directionSample.v};
    const Hit hit = hits[i];
    Vec3f L(0.f);
    bool keep = false;

    if (hit.triangle == kNoHit) {
      L = escapedRadiance(scene.environmentMap, scene.environment, ray.d, 0.f, 0.f);  // unsampled
    } else {
      const SurfaceHit h = surfaceAt(scene, ray, hit);
      const DeviceMaterial& m = scene.materials[h.material];
      if (h.windingFront) L += emittedRadiance(m, scene.textures, h.uv);  // one-sided emitters
      const Bsdf bsdf = makeBsdf(m, scene.textures, bsdfNormal(h, m.type), h.uv);
      const Vec3f wo = -ray.d;
      if (!bsdf.isSpecular())
        addDirectLight(scene, h, bsdf, wo, pixel, sample, bounce, seed, i, s, out, L);
      else if (bounce < maxDepth)
        keep = spawnChildren(scene, h, m, wo, weight, pixel, sample, bounce, st, s, out);
    }
    out.keep[s] = keep;
    if (deferred && !keep) {
      // The shadow stage may still add to it; finishWhitted weighs it and adds it to the film
      // (in the inline order of operations: the same sums bit for bit).
      Vec3fAnd radiance;
      radiance.v = L, radiance.u = bounce;
      st.radianceDepth[s] = radiance;
      return;
    }
    L *= weight;
    if (!isBlack(L)) out.film.add(pixel, L);
  });
}

void finishWhitted(const Backend& b, const PathStream& rays, const uint8_t* keep,
                   const FixedFilm& film) {
  parallelFor(b, rays.count, [=] SRT_CPU_GPU(uint32_t i) {
    if (!rays.inStream(i) || !rays.live(i)) return;
    const uint32_t s = rays.slot(i);
    if (keep[s]) return;  // a child took the slot: its ray added its light in shading
    const Vec3f L = rays.state.radianceDepth[s].v * rays.state.throughputPdf[s].v;
    if (!isBlack(L)) film.add(rays.state.originPixel[s].u, L);
  });
}

}  // namespace srt
