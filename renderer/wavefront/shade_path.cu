// The path tracer's shading stage: emission (MIS-weighted against light sampling), next-event
// estimation towards emissive triangles sampled by power, point lights or the environment map,
// BSDF sampling and Russian roulette.
#include "renderer/backend/parallel_for.h"
#include "renderer/shading/environment.h"
#include "renderer/shading/normal_map.h"
#include "renderer/shading/rng.h"
#include "renderer/shading/sampling.h"
#include "renderer/wavefront/stages.h"

namespace srt {
namespace {

// The random numbers of one bounce, in the order the images depend on.
struct BounceNumbers {
  Vec2f uLight;
  float uLightPick, uLobe;
  Vec2f uBsdf;
  float uRoulette;
};

SRT_CPU_GPU inline BounceNumbers bounceNumbers(uint32_t pixel, uint32_t sample, uint32_t bounce,
                                               uint32_t seed) {
  Sampler sampler = Sampler::at(pixel, sample, bounce + 1, seed);
  BounceNumbers n;
  n.uLight = sampler.next2D();
  n.uLightPick = sampler.next1D();
  n.uLobe = sampler.next1D();
  n.uBsdf = sampler.next2D();
  n.uRoulette = sampler.next1D();
  return n;
}

// Where next-event estimation sends its shadow ray and what arrives from there; pdf 0: nothing.
struct LightChoice {
  Vec3f point, Le, wi;
  float pdf = 0.f;
  bool delta = false, atInfinity = false;
};

// One light sample: an emitter (its point fetched before the surface, see pointOnEmitter), a
// point light picked uniformly or the environment map, each kind with the probability lightPicks
// gives.
SRT_CPU_GPU inline LightChoice chooseLight(const SceneView& scene,
                                           const LightPickProbabilities& pick,
                                           const EmitterPoint& emitter, Vec3f p,
                                           const BounceNumbers& n) {
  LightChoice c;
  const float pEmitters = pick.emitters;
  if (n.uLightPick < pEmitters) {
    LightSample ls;
    if (emitterSampleFrom(scene.emitters, scene.accel.mesh.indices, emitter, p, &ls))
      c.point = ls.p, c.Le = ls.Le, c.pdf = ls.pdf * pEmitters;
  } else if (n.uLightPick < pEmitters + pick.pointLights) {
    const float u = (n.uLightPick - pEmitters) / pick.pointLights;
    uint32_t l = uint32_t(u * float(scene.numPointLights));
    if (l >= scene.numPointLights) l = scene.numPointLights - 1;
    const PointLight pl = scene.pointLights[l];
    c.point = pl.position;
    const float d2 = lengthSquared(pl.position - p);
    c.Le = pl.intensity / d2;  // radiant intensity over distance squared
    c.pdf = pick.pointLights / float(scene.numPointLights);
    c.delta = true;
  } else if (pick.environment > 0.f) {
    EnvironmentSample es;
    if (sampleEnvironment(scene.environmentMap, n.uLight, &es))
      c.wi = es.wi, c.Le = es.Le, c.pdf = es.pdf * pick.environment, c.atInfinity = true;
  }
  if (c.pdf > 0.f && !c.atInfinity) {
    const Vec3f toLight = c.point - p;
    c.wi = toLight / length(toLight);
  }
  return c;
}

// The shadow ray towards a chosen light, as a candidate at stream position i when the light can
// reach the surface through the BSDF; false when it cannot.
SRT_CPU_GPU inline bool proposeShadowRay(const SceneView& scene, const SurfaceHit& h,
                                         const Bsdf& bsdf, Vec3f wo, const LightChoice& light,
                                         Vec3f throughput, uint32_t i, uint32_t slot,
                                         const ShadeOutputs& out) {
  const Vec3f f = bsdf.f(wo, light.wi) * absDot(light.wi, h.ns);
  if (isBlack(f) || !(dot(light.wi, h.ng) > 0.f)) return false;
  const float w = light.delta ? 1.f : powerHeuristic(1, light.pdf, 1, bsdf.pdf(wo, light.wi));
  const Vec3f origin = offsetOrigin(scene, h, light.wi);
  out.shadowCandidates.pathSlot[i] = slot;
  out.shadowCandidates.origin[i] = origin;
  out.shadowCandidates.direction[i] = light.wi;
  out.shadowCandidates.tMax[i] =
      light.atInfinity ? kInf : length(light.point - origin) * (1.f - 1e-3f);
  out.shadowCandidates.contribution[i] = throughput * f * light.Le * (w / light.pdf);
  out.shadowKeep[i] = 1;
  return true;
}

// Samples the BSDF for the path's next direction, with Russian roulette from the third bounce
// on (survival ∝ throughput). Writes the continued path to its slot; false: the path ends.
SRT_CPU_GPU inline bool continuePath(const SceneView& scene, const SurfaceHit& h, const Bsdf& bsdf,
                                     Vec3f wo, const BounceNumbers& n, Vec3f throughput,
                                     Vec3fAnd originPixel, Vec3fAnd directionSample,
                                     const PathState& st, uint32_t slot, uint32_t bounce) {
  BsdfSample bs;
  if (!bsdf.sample(wo, n.uLobe, n.uBsdf, &bs) || !(bs.pdf > 0.f) || isBlack(bs.f)) return false;
  throughput *= bs.f * (absDot(bs.wi, h.ns) / bs.pdf);
  if (isBlack(throughput)) return false;
  if (bounce >= 2) {
    const float q = fmaxf(0.05f, 1.f - maxComponent(throughput));
    if (n.uRoulette < q) return false;
    throughput = throughput / (1.f - q);
  }
  originPixel.v = offsetOrigin(scene, h, bs.wi);
  st.originPixel[slot] = originPixel;
  directionSample.v = bs.wi;
  st.directionSample[slot] = directionSample;
  Vec3fAnd packed;
  packed.v = throughput, packed.f = bs.specular ? 0.f : bs.pdf;
  st.throughputPdf[slot] = packed;
  return true;
}

// The hit's surface with its material's bump or normal map applied.
SRT_CPU_GPU inline SurfaceHit detailedSurfaceAt(const SceneView& scene, const Ray& ray,
                                                const Hit& hit, const DeviceMaterial** material) {
  SurfaceHit h = surfaceAt(scene, ray, hit);
  const DeviceMaterial& m = scene.materials[h.material];
  if (hasNormalDetail(m) && scene.uvs) {
    const Vec3f n =
        detailNormalOnTriangle(m, scene.textures, scene.accel.mesh.positions,
                               scene.accel.mesh.indices, scene.uvs, h.triangle, h.uv, h.nsOutward);
    h.nsOutward = n;
    h.ns = h.frontFace ? n : -n;
  }
  *material = &m;
  return h;
}

// What shading one path at a surface did: it goes on (alive), sent a shadow ray, or passed
// through an alpha cut-out (alive at the same bounce).
struct ShadeResult {
  bool alive = false, shadowRay = false, cutOut = false;
};

// The path's bounce as shadeSurface needs it.
struct PathBounce {
  LightPickProbabilities pick;
  EmitterPoint emitter;
  BounceNumbers n;
  Vec3f throughput;
  float prevPdf;
  uint32_t bounce, maxDepth;
};

// A path at a surface: emission (MIS-weighted), a shadow ray towards a light, the next direction.
SRT_CPU_GPU inline ShadeResult shadeSurface(const SceneView& scene, const Ray& ray, const Hit& hit,
                                            const PathBounce& p, Vec3fAnd originPixel,
                                            Vec3fAnd directionSample, const PathState& st,
                                            uint32_t i, uint32_t s, const ShadeOutputs& out,
                                            Vec3f& radiance) {
  ShadeResult r;
  const DeviceMaterial* material;
  const SurfaceHit h = detailedSurfaceAt(scene, ray, hit, &material);
  const DeviceMaterial& m = *material;
  if (isCutOut(m, scene.textures, h.uv)) {
    // No surface here (an alpha cut-out): the ray goes on unchanged from just past it, with the
    // same bounce (so the same random numbers), throughput and BSDF pdf.
    originPixel.v = offsetOrigin(scene, h, ray.d);
    st.originPixel[s] = originPixel;
    r.alive = r.cutOut = true;
    return r;
  }
  if (h.windingFront && !isBlack(m.ke)) {  // one-sided emitters
    float w = 1.f;
    if (p.prevPdf > 0.f) {
      const float lightPdf =
          p.pick.emitters * emitterPdf(scene.emitters, h.triangle, ray.o, h.p, h.ng);
      w = powerHeuristic(1, p.prevPdf, 1, lightPdf);
    }
    radiance += p.throughput * emittedRadiance(m, scene.textures, h.uv) * w;
  }
  if (p.bounce >= p.maxDepth) return r;
  const Bsdf bsdf = makeBsdf(m, scene.textures, bsdfNormal(h, m.type), h.uv);
  const Vec3f wo = -ray.d;
  if (!bsdf.isSpecular()) {
    const LightChoice light = chooseLight(scene, p.pick, p.emitter, h.p, p.n);
    if (light.pdf > 0.f)
      r.shadowRay = proposeShadowRay(scene, h, bsdf, wo, light, p.throughput, i, s, out);
  }
  r.alive = continuePath(scene, h, bsdf, wo, p.n, p.throughput, originPixel, directionSample, st, s,
                         p.bounce);
  return r;
}

}  // namespace

void shadePaths(const Backend& b, const SceneView& scene, const PathStream& paths, const Hit* hits,
                uint32_t seed, uint32_t maxDepth, const ShadeOutputs& out) {
  const auto body = [=] SRT_CPU_GPU(uint32_t i) {
    out.shadowKeep[i] = 0;
    uint32_t s;
    if (!paths.liveSlot(i, out.keep, s)) return;
    const PathState st = paths.state;
    const Vec3fAnd originPixel = st.originPixel[s], directionSample = st.directionSample[s];
    const Vec3fAnd throughputPdf = st.throughputPdf[s], radianceDepth = st.radianceDepth[s];
    const uint32_t bounce = radianceDepth.u;
    const Hit hit = hits[i];
    const Vec3f throughput = throughputPdf.v;
    Vec3f radiance = radianceDepth.v;
    const float prevPdf = throughputPdf.f;
    const Ray ray{originPixel.v, directionSample.v};
    const LightPickProbabilities pick = lightPicks(scene);
    const BounceNumbers n = bounceNumbers(originPixel.u, directionSample.u, bounce, seed);
    // The emitter sample needs no surface: its chain of loads runs beside the hit's.
    EmitterPoint emitter;
    if (hit.triangle != kNoHit && bounce < maxDepth && n.uLightPick < pick.emitters)
      emitter = pointOnEmitter(scene.emitters, scene.accel.mesh.positions, scene.accel.mesh.indices,
                               n.uLight, n.uLightPick / pick.emitters);

    ShadeResult r;
    if (hit.triangle == kNoHit)
      radiance += throughput * escapedRadiance(scene.environmentMap, scene.environment, ray.d,
                                               prevPdf, pick.environment);
    else
      r = shadeSurface(scene, ray, hit, {pick, emitter, n, throughput, prevPdf, bounce, maxDepth},
                       originPixel, directionSample, st, i, s, out, radiance);
    Vec3fAnd packed;
    packed.v = radiance, packed.u = r.alive && !r.cutOut ? bounce + 1 : bounce;
    st.radianceDepth[s] = packed;
    out.keep[s] = r.alive;
    countShaded(out.depths, bounce, r.shadowRay, r.alive);
  };
  // The stage waits on its loads more than it computes: blocks of 128 and more warps an SM than
  // its registers would allow (96 instead of 127: 20 warps, not 16) keep more loads in flight.
  // Texture lookups share L1, and there more warps cost more misses than they hide, so textured
  // scenes keep the compiler's registers (bench/tracer/RESULTS.md).
  if (scene.textures != nullptr)
    parallelForAtOccupancy<128, 4>(b, paths.count, body);
  else
    parallelForAtOccupancy<128, 5>(b, paths.count, body);
}

}  // namespace srt
