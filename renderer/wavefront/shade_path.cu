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

void shadePaths(const Backend& b, const SceneView& scene, const PathStream& paths, const Hit* hits,
                uint32_t seed, uint32_t maxDepth, const ShadeOutputs& out) {
  parallelFor(b, paths.count, [=] SRT_CPU_GPU(uint32_t i) {
    out.shadowKeep[i] = 0;
    if (!paths.inStream(i)) {
      if (!paths.slots) out.keep[i] = 0;  // past the stream: no stale flag for the compaction
      return;
    }
    const PathState st = paths.state;
    const uint32_t s = paths.slot(i);
    if (!paths.live(i)) {
      out.keep[s] = 0;  // a dead lane stays dead (nothing is compacted)
      return;
    }
    const Vec3fAnd originPixel = st.originPixel[s], directionSample = st.directionSample[s];
    const Vec3fAnd throughputPdf = st.throughputPdf[s], radianceDepth = st.radianceDepth[s];
    const uint32_t bounce = radianceDepth.u;
    countByDepth(out.depths.raysIn, bounce);
    const Hit hit = hits[i];
    Vec3f throughput = throughputPdf.v;
    Vec3f radiance = radianceDepth.v;
    const float prevPdf = throughputPdf.f;
    Ray ray;
    ray.o = originPixel.v;
    ray.d = directionSample.v;
    bool alive = false;
    uint32_t depth = bounce;
    const LightPickProbabilities pick = lightPicks(scene);

    if (hit.triangle == kNoHit) {
      radiance += throughput * escapedRadiance(scene.environmentMap, scene.environment, ray.d,
                                               prevPdf, pick.environment);
    } else {
      SurfaceHit h = surfaceAt(scene, ray, hit);
      const DeviceMaterial& m = scene.materials[h.material];
      if (hasNormalDetail(m) && scene.uvs) {  // bump and normal maps
        const Vec3f n = detailNormalOnTriangle(m, scene.textures, scene.accel.mesh.positions,
                                               scene.accel.mesh.indices, scene.uvs, h.triangle,
                                               h.uv, h.nsOutward);
        h.nsOutward = n;
        h.ns = h.frontFace ? n : -n;
      }
      if (isCutOut(m, scene.textures, h.uv)) {
        // No surface here (an alpha cut-out): the ray goes on unchanged from just past it, with
        // the same bounce (so the same random numbers), throughput and BSDF pdf.
        Vec3fAnd packed = originPixel;
        packed.v = offsetOrigin(scene, h, ray.d);
        st.originPixel[s] = packed;
        st.radianceDepth[s] = radianceDepth;
        out.keep[s] = 1;
        countByDepth(out.depths.raysAlive, bounce);
        return;
      }
      if (h.windingFront && !isBlack(m.ke)) {  // one-sided emitters
        float w = 1.f;
        if (prevPdf > 0.f) {
          const float lightPdf =
              pick.emitters * emitterPdf(scene.emitters, h.triangle, ray.o, h.p, h.ng);
          w = powerHeuristic(1, prevPdf, 1, lightPdf);
        }
        radiance += throughput * emittedRadiance(m, scene.textures, h.uv) * w;
      }
      if (bounce < maxDepth) {
        Sampler sampler = Sampler::at(originPixel.u, directionSample.u, bounce + 1, seed);
        const Bsdf bsdf = makeBsdf(m, scene.textures, bsdfNormal(h, m.type), h.uv);
        const Vec3f wo = -ray.d;
        const Vec2f uLight = sampler.next2D();
        const float uLightPick = sampler.next1D();
        const float uLobe = sampler.next1D();
        const Vec2f uBsdf = sampler.next2D();
        const float uRoulette = sampler.next1D();

        // Next-event estimation: one shadow ray, to the emitters (a power-sampled triangle), to
        // a point light picked uniformly or to the environment map; each kind with the
        // probability lightPicks gives.
        if (!bsdf.isSpecular()) {
          Vec3f lightPoint, Le, wi;
          float pdf = 0.f;
          bool delta = false, atInfinity = false;
          const float pEmitters = pick.emitters;
          if (uLightPick < pEmitters) {
            LightSample ls;
            if (sampleEmitter(scene.emitters, scene.accel.mesh.positions, scene.accel.mesh.indices,
                              h.p, uLight, uLightPick / pEmitters, &ls)) {
              lightPoint = ls.p, Le = ls.Le, pdf = ls.pdf * pEmitters;
            }
          } else if (uLightPick < pEmitters + pick.pointLights) {
            const float u = (uLightPick - pEmitters) / pick.pointLights;
            uint32_t l = uint32_t(u * float(scene.numPointLights));
            if (l >= scene.numPointLights) l = scene.numPointLights - 1;
            const PointLight pl = scene.pointLights[l];
            lightPoint = pl.position;
            const float d2 = lengthSquared(pl.position - h.p);
            Le = pl.intensity / d2;  // radiant intensity over distance squared
            pdf = pick.pointLights / float(scene.numPointLights);
            delta = true;
          } else if (pick.environment > 0.f) {
            EnvironmentSample es;
            if (sampleEnvironment(scene.environmentMap, uLight, &es))
              wi = es.wi, Le = es.Le, pdf = es.pdf * pick.environment, atInfinity = true;
          }
          if (pdf > 0.f) {
            if (!atInfinity) {
              const Vec3f toLight = lightPoint - h.p;
              wi = toLight / length(toLight);
            }
            const Vec3f f = bsdf.f(wo, wi) * absDot(wi, h.ns);
            if (!isBlack(f) && dot(wi, h.ng) > 0.f) {
              const float w = delta ? 1.f : powerHeuristic(1, pdf, 1, bsdf.pdf(wo, wi));
              const Vec3f origin = offsetOrigin(scene, h, wi);
              out.shadowCandidates.pathSlot[i] = s;
              out.shadowCandidates.origin[i] = origin;
              out.shadowCandidates.direction[i] = wi;
              out.shadowCandidates.tMax[i] =
                  atInfinity ? kInf : length(lightPoint - origin) * (1.f - 1e-3f);
              out.shadowCandidates.contribution[i] = throughput * f * Le * (w / pdf);
              out.shadowKeep[i] = 1;
              countByDepth(out.depths.shadowRays, bounce);
            }
          }
        }

        // Continue the path by sampling the BSDF.
        BsdfSample bs;
        if (bsdf.sample(wo, uLobe, uBsdf, &bs) && bs.pdf > 0.f && !isBlack(bs.f)) {
          throughput *= bs.f * (absDot(bs.wi, h.ns) / bs.pdf);
          alive = !isBlack(throughput);
          // Russian roulette from the third bounce on, with survival ∝ throughput.
          if (alive && bounce >= 2) {
            const float q = fmaxf(0.05f, 1.f - maxComponent(throughput));
            if (uRoulette < q)
              alive = false;
            else
              throughput = throughput / (1.f - q);
          }
          if (alive) {
            Vec3fAnd packed = originPixel;
            packed.v = offsetOrigin(scene, h, bs.wi);
            st.originPixel[s] = packed;
            packed = directionSample;
            packed.v = bs.wi;
            st.directionSample[s] = packed;
            packed.v = throughput, packed.f = bs.specular ? 0.f : bs.pdf;
            st.throughputPdf[s] = packed;
            depth = bounce + 1;
            countByDepth(out.depths.raysAlive, bounce);
          }
        }
      }
    }
    Vec3fAnd packed;
    packed.v = radiance, packed.u = depth;
    st.radianceDepth[s] = packed;
    out.keep[s] = alive;
  });
}

}  // namespace srt
