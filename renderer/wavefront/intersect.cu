#include "renderer/backend/parallel_for.h"
#include "renderer/wavefront/stages.h"

namespace srt {

void traceClosest(const Backend& b, const SceneView& scene, const RayStreamRef& rays, Hit* hits) {
  parallelFor(b, rays.count, [=] SRT_CPU_GPU(uint32_t i) {
    if (rays.deviceCount && i >= *rays.deviceCount) return;
    if (rays.lanes && !rays.lanes[i]) return;
    const Ray ray = rays.ray(rays.slots ? rays.slots[i] : i);
    Hit hit;
    if (!intersectClosest(scene.accel, ray, &hit)) hit.triangle = kNoHit;
    hits[i] = hit;
  });
}

void traceShadows(const Backend& b, const SceneView& scene, const ShadowStream& shadows,
                  PathState state) {
  parallelFor(b, shadows.maxCount, [=] SRT_CPU_GPU(uint32_t i) {
    uint32_t j;
    Ray ray;
    if (!shadows.rayAt(i, j, ray) || intersectAny(scene.accel, ray)) return;
    const uint32_t slot = shadows.rays.pathSlot[j];
    // One shadow ray per path: no race.
    state.radianceDepth[slot].v += shadows.rays.contribution[j];
  });
}

}  // namespace srt
