// Whitted's shading stage: local lighting from point lights and emitters (with shadow rays),
// emission and environment, and up to two children per ray at mirrors and glass, written to
// candidate slots 2i and 2i+1 for the compaction that forms the next stream.
#include "renderer/backend/parallel_for.h"
#include "renderer/shading/rng.h"
#include "renderer/shading/sampling.h"
#include "renderer/wavefront/stages.h"

namespace srt {
namespace {
// Children weaker than this are not traced (Hall & Greenberg's adaptive depth control).
constexpr float kMinChildWeight = 1e-3f;

SRT_CPU_GPU inline void countShadowRay(uint32_t* counter) {
#if SRT_IS_GPU_CODE
  atomicAdd(counter, 1u);
#else
#pragma omp atomic
  *counter += 1;
#endif
}
}  // namespace

void shadeWhitted(const Backend& b, const SceneView& scene, const WhittedStream& rays,
                  const Hit* hits, SampleKey key, uint32_t bounce, uint32_t maxDepth,
                  const WhittedOutputs& out) {
  parallelFor(b, rays.count, [=] SRT_CPU_GPU(uint32_t i) {
    out.childKeep[2 * i] = 0;
    out.childKeep[2 * i + 1] = 0;
    if (rays.lanes && !rays.lanes[i]) return;
    const uint32_t pixel = rays.rays.pixel[i];
    const Vec3f weight = rays.rays.weight[i];
    Ray ray;
    ray.o = rays.rays.origin[i];
    ray.d = rays.rays.direction[i];
    const Hit hit = hits[i];
    Vec3f L(0.f);

    if (hit.triangle == kNoHit) {
      L = escapedRadiance(scene.environmentMap, scene.environment, ray.d, 0.f, 0.f);  // unsampled
    } else {
      const SurfaceHit h = surfaceAt(scene, ray, hit);
      const DeviceMaterial& m = scene.materials[h.material];
      if (h.windingFront) L += emittedRadiance(m, scene.textures, h.uv);  // one-sided emitters
      const Bsdf bsdf = makeBsdf(m, scene.textures, bsdfNormal(h, m.type), h.uv);
      const Vec3f wo = -ray.d;
      if (!bsdf.isSpecular()) {
        // Point lights: one shadow ray each.
        for (uint32_t l = 0; l < scene.numPointLights; ++l) {
          const PointLight pl = scene.pointLights[l];
          const Vec3f toLight = pl.position - h.p;
          const float dist2 = lengthSquared(toLight);
          const Vec3f wi = toLight / sqrtf(dist2);
          if (dot(wi, h.ng) <= 0.f) continue;
          Ray shadow;
          shadow.o = offsetOrigin(scene, h.p, h.ng, wi);
          shadow.d = wi;
          shadow.tMax = length(pl.position - shadow.o);
          countShadowRay(out.shadowRays);
          if (intersectAny(scene.accel, shadow)) continue;
          L += bsdf.f(wo, wi) * pl.intensity * (absDot(wi, h.ns) / dist2);
        }
        // Emissive triangles: one sample, so area lights cast soft shadows over the samples.
        Sampler sampler = Sampler::at(pixel, key.sample, bounce + 1, key.seed);
        const Vec2f u = sampler.next2D();
        const float uc = sampler.next1D();
        LightSample ls;
        if (sampleEmitter(scene.emitters, scene.accel.mesh.positions, scene.accel.mesh.indices, h.p,
                          u, uc, &ls) &&
            ls.pdf > 0.f) {
          const Vec3f wi = normalize(ls.p - h.p);
          if (dot(wi, h.ng) > 0.f) {
            Ray shadow;
            shadow.o = offsetOrigin(scene, h.p, h.ng, wi);
            shadow.d = wi;
            shadow.tMax = length(ls.p - shadow.o) * (1.f - 1e-3f);
            countShadowRay(out.shadowRays);
            if (!intersectAny(scene.accel, shadow))
              L += bsdf.f(wo, wi) * ls.Le * (absDot(wi, h.ns) / ls.pdf);
          }
        }
      } else if (bounce < maxDepth) {
        // Mirror: one reflected child. Glass: reflected and refracted children split by Fresnel.
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
        const Vec3f w0 = weight * reflectWeight;
        if (maxComponent(w0) > kMinChildWeight) {
          out.children.pixel[2 * i] = pixel;
          out.children.origin[2 * i] = offsetOrigin(scene, h.p, h.ng, wr);
          out.children.direction[2 * i] = wr;
          out.children.weight[2 * i] = w0;
          out.childKeep[2 * i] = 1;
        }
        const Vec3f w1 = weight * refractWeight;
        if (maxComponent(w1) > kMinChildWeight) {
          out.children.pixel[2 * i + 1] = pixel;
          out.children.origin[2 * i + 1] = offsetOrigin(scene, h.p, h.ng, refractDir);
          out.children.direction[2 * i + 1] = refractDir;
          out.children.weight[2 * i + 1] = w1;
          out.childKeep[2 * i + 1] = 1;
        }
      }
    }
    L *= weight;
    if (!isBlack(L)) out.film.add(pixel, L);
  });
}

}  // namespace srt
