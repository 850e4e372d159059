// Rays as a path tracer makes them, for the identical-hits tests: random identical-hits rays start
// anywhere in the bounds, a render's rays start ON surfaces (offset by the renderer's rule) and its
// shadow rays end just short of a light. Paths from the Conference Room's camera bounce
// diffusely; at every hit a shadow ray goes to a random point of one of the fifteen ceiling panels
// that scenes/examples/conference-room.json adds. Both trees trace every ray (closest and any
// hit); the paths go on along the first tree's hits.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "renderer/accel/kdtree.h"
#include "renderer/wavefront/scene_data.h"
#include "tests/accel/kdtree_test_util.h"

namespace srt::test {

// The Conference Room's OBJ with the JSON scene's emissive panels appended (two triangles each);
// *firstPanel: the first panel triangle.
inline TestMesh litConferenceRoomMesh(const std::string& objPath, uint32_t* firstPanel) {
  TestMesh m = loadObjMesh(objPath);
  *firstPanel = m.triangleCount();
  for (float x : {-600.f, -100.f, 400.f, 900.f, 1400.f})
    for (float z : {-600.f, -100.f, 400.f}) {
      const Vec3f a(x, 640.f, z), e1(120.f, 0.f, 0.f), e2(0.f, 0.f, 60.f);
      m.addTriangle(a, a + e1, a + e1 + e2);  // makeQuad's triangulation
      m.addTriangle(a, a + e1 + e2, a + e2);
    }
  return m;
}

constexpr float kRayEpsilon = 1e-5f;  // the renderer's (SceneView::rayEpsilon)

struct RenderRayCounts {
  size_t closest = 0, shadow = 0, differing = 0;
};

// `paths` paths of up to 5 bounces through trees a and b over `mesh`; differences are reported
// (the first few) through ADD_FAILURE and counted.
inline RenderRayCounts compareOnRenderRays(const TriangleMeshView& mesh, uint32_t firstPanel,
                                           const KdTreeView& a, const KdTreeView& b, size_t paths,
                                           uint32_t seed) {
  RenderRayCounts c;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u01(0.f, 1.f);
  auto unit = [&] {
    return normalize(Vec3f(2.f * u01(rng) - 1.f, 2.f * u01(rng) - 1.f, 2.f * u01(rng) - 1.f));
  };
  auto report = [&](const char* what, const Ray& r, bool ka, const Hit& ha, bool kb,
                    const Hit& hb) {
    if (c.differing++ < 5)
      ADD_FAILURE() << what << ": tree a " << describe(r, ka, ha) << " | tree b "
                    << describe(r, kb, hb);
  };
  const uint32_t panels = mesh.triangleCount - firstPanel;
  for (size_t p = 0; p < paths; ++p) {
    Ray r;
    r.o = Vec3f(1550.f, 380.f, -250.f);  // the JSON scene's camera
    r.d = unit();
    for (int bounce = 0; bounce < 5; ++bounce) {
      Hit ha, hb;
      const bool ka = intersectClosest(a, r, &ha), kb = intersectClosest(b, r, &hb);
      ++c.closest;
      if (ka != kb || (ka && (ha.triangle != hb.triangle || ha.t != hb.t)))
        report("closest hit", r, ka, ha, kb, hb);
      if (!ka) break;
      // The hit point and facing normal as surfaceAt() makes them.
      const uint32_t* idx = mesh.indices + 3 * size_t(ha.triangle);
      const Vec3f p0 = mesh.positions[idx[0]], p1 = mesh.positions[idx[1]],
                  p2 = mesh.positions[idx[2]];
      const Vec3f hitP = p0 * (1.f - ha.b1 - ha.b2) + p1 * ha.b1 + p2 * ha.b2;
      const float mag = hitPointMagnitude(p0, p1, p2, 1.f - ha.b1 - ha.b2, ha.b1, ha.b2);
      Vec3f ng = normalize(cross(p1 - p0, p2 - p0));
      if (dot(ng, r.d) > 0.f) ng = -ng;
      const uint32_t* e =
          mesh.indices + 3 * size_t(firstPanel + uint32_t(u01(rng) * panels) % panels);
      float s = u01(rng), t = u01(rng);
      if (s + t > 1.f) s = 1.f - s, t = 1.f - t;
      const Vec3f light = mesh.positions[e[0]] * (1.f - s - t) + mesh.positions[e[1]] * s +
                          mesh.positions[e[2]] * t;
      const Vec3f wi = normalize(light - hitP);
      if (dot(wi, ng) > 0.f) {  // shadow ray, as the path integrator's
        Ray sr;
        sr.o = offsetFromSurface(kRayEpsilon, hitP, mag, ng, wi);
        sr.d = wi;
        sr.tMax = length(light - sr.o) * (1.f - 1e-3f);
        const bool xa = intersectAny(a, sr), xb = intersectAny(b, sr);
        ++c.shadow;
        if (xa != xb)
          report(xa ? "shadow ray blocked in a only" : "shadow ray blocked in b only", sr, xa,
                 Hit{}, xb, Hit{});
      }
      Vec3f w = unit();
      if (dot(w, ng) < 0.f) w = -w;
      r.o = offsetFromSurface(kRayEpsilon, hitP, mag, ng, w);
      r.d = w;
      r.tMax = kInf;
    }
  }
  return c;
}

}  // namespace srt::test
