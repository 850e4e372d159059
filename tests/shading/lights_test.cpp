// Emitter table and next-event estimation: power-proportional choice, pdf consistency between
// sampleEmitter and emitterPdf, and the solid-angle pdf integrating to one.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "renderer/shading/lights.h"
#include "renderer/shading/rng.h"
#include "tests/shading/chi2.h"

namespace srt {
namespace {

// Five triangles: three emitters of different sizes, radiances and orientations, all wound to face
// the origin (emission is one-sided), one diffuse, one emissive but degenerate. Material 2 has
// Ke = 0.
struct TestScene {
  FlatGeometry geometry;
  std::vector<Material> materials;
};

TestScene makeScene() {
  TestScene s;
  Material diffuse, bright, dim, black;
  diffuse.name = "diffuse";
  bright.name = "bright", bright.ke = Vec3f(10.f, 8.f, 6.f);
  dim.name = "dim", dim.ke = Vec3f(0.5f, 1.f, 2.f);
  black.name = "black";
  s.materials = {diffuse, bright, black, dim};
  auto tri = [&](Vec3f a, Vec3f b, Vec3f c, uint32_t material) {
    const uint32_t base = uint32_t(s.geometry.positions.size());
    s.geometry.positions.insert(s.geometry.positions.end(), {a, b, c});
    s.geometry.indices.insert(s.geometry.indices.end(), {base, base + 1, base + 2});
    s.geometry.materialIds.push_back(material);
  };
  tri({-1, 2, -1}, {1, 2, -1}, {0, 2, 1}, 1);     // 0: ceiling at y = 2, facing -y
  tri({2, -1, -1}, {2, -1, 1.5f}, {2, 1, 0}, 3);  // 1: wall at x = 2, facing -x
  tri({-3, -1, -2}, {-3, 1, -2}, {-3, 0, 2}, 1);  // 2: wall at x = -3, larger, facing +x
  tri({0, -2, 0}, {1, -2, 0}, {0, -2, 1}, 0);     // 3: diffuse floor piece
  tri({0, 0, 3}, {1, 1, 3}, {2, 2, 3}, 1);        // 4: emissive but zero area
  tri({0, 0, -3}, {1, 0, -3}, {0, 1, -3}, 2);     // 5: Ke = 0
  return s;
}

TEST(Emitters, TableHoldsEmissiveTrianglesWithPowerPmf) {
  const TestScene s = makeScene();
  const EmitterTable t = buildEmitters(s.geometry, s.materials);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t.triangles, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(t.triangleToEmitter, (std::vector<int32_t>{0, 1, 2, -1, -1, -1}));
  ASSERT_EQ(t.cdf.size(), 4u);
  EXPECT_EQ(t.cdf.front(), 0.f);
  EXPECT_EQ(t.cdf.back(), 1.f);
  double total = 0;
  std::vector<double> power;
  for (size_t e = 0; e < t.size(); ++e) {
    const Vec3f* p = s.geometry.positions.data() + 3 * t.triangles[e];
    power.push_back(triangleArea(p[0], p[1], p[2]) * luminance(t.radiance[e]));
    total += power.back();
  }
  EXPECT_NEAR(t.totalPower, total, 1e-6 * total);
  double pmfSum = 0;
  for (size_t e = 0; e < t.size(); ++e) {
    EXPECT_NEAR(t.pmf[e], power[e] / total, 1e-6) << "emitter " << e;
    pmfSum += t.pmf[e];
  }
  EXPECT_NEAR(pmfSum, 1.0, 1e-6);
}

TEST(Emitters, EmitOnlyTowardsTheirWindingNormal) {
  const TestScene s = makeScene();
  const EmitterTable t = buildEmitters(s.geometry, s.materials);
  const EmitterView v = hostView(t);
  // Above the ceiling (y = 2 facing -y) and outside both walls nothing shines towards the point.
  int front = 0, back = 0;
  for (int i = 0; i < 10000; ++i) {
    Sampler smp = Sampler::at(uint32_t(i), 0, 2, 3);
    const float uc = smp.next1D();
    const Vec2f u = smp.next2D();
    LightSample ls;
    back += sampleEmitter(v, s.geometry.positions.data(), s.geometry.indices.data(),
                          Vec3f(0.f, 5.f, 0.f), u, uc, &ls) &&
            ls.triangle == 0;
    front += sampleEmitter(v, s.geometry.positions.data(), s.geometry.indices.data(),
                           Vec3f(0.f), u, uc, &ls) &&
             ls.triangle == 0;
  }
  EXPECT_EQ(back, 0) << "the ceiling shone upwards";
  EXPECT_GT(front, 1000);
}

TEST(Emitters, ChoiceFrequencyIsProportionalToPower) {
  const TestScene s = makeScene();
  const EmitterTable t = buildEmitters(s.geometry, s.materials);
  const EmitterView v = hostView(t);
  constexpr int kN = 1000000;
  std::vector<double> counts(t.size(), 0.0), expected(t.size());
  for (size_t e = 0; e < t.size(); ++e) expected[e] = kN * double(t.pmf[e]);
  for (int i = 0; i < kN; ++i) {
    Sampler smp = Sampler::at(uint32_t(i), 0, 1, 3);
    const float uc = smp.next1D();
    LightSample ls;
    ASSERT_TRUE(sampleEmitter(v, s.geometry.positions.data(), s.geometry.indices.data(), Vec3f(0.f),
                              smp.next2D(), uc, &ls));
    const int32_t e = t.triangleToEmitter[ls.triangle];
    ASSERT_GE(e, 0) << "sampled a triangle that does not emit";
    counts[e] += 1;
  }
  const test::Chi2Result r = test::chi2Test(counts, expected);
  EXPECT_TRUE(r.failure.empty()) << r.failure;
  EXPECT_GT(r.pValue, 0.01);
}

TEST(Emitters, SampledPdfEqualsEmitterPdfAtTheSamePoint) {
  const TestScene s = makeScene();
  const EmitterTable t = buildEmitters(s.geometry, s.materials);
  const EmitterView v = hostView(t);
  for (Vec3f ref : {Vec3f(0.f), Vec3f(0.5f, -1.f, 0.3f), Vec3f(1.9f, 0.f, 0.f)}) {
    for (int i = 0; i < 20000; ++i) {
      Sampler smp = Sampler::at(uint32_t(i), 1, 1, 3);
      const float uc = smp.next1D();
      LightSample ls;
      if (!sampleEmitter(v, s.geometry.positions.data(), s.geometry.indices.data(), ref,
                         smp.next2D(), uc, &ls))
        continue;
      ASSERT_NEAR(length(ls.wi), 1.f, 1e-5f);
      ASSERT_NEAR(length(ls.p - ref), ls.distance, 1e-4f * ls.distance);
      EXPECT_TRUE(ls.Le == t.radiance[t.triangleToEmitter[ls.triangle]]);
      // The normal the renderer would compute at the hit, possibly flipped: the pdf must not
      // depend on which way the caller's normal points.
      const float pdf = emitterPdf(v, ls.triangle, ref, ls.p, ls.n * (i % 2 ? -3.f : 1.f));
      ASSERT_NEAR(pdf, ls.pdf, 1e-4f * ls.pdf) << "sample " << i;
    }
  }
  EXPECT_EQ(emitterPdf(v, 3, Vec3f(0.f), Vec3f(0.5f, -2.f, 0.2f), Vec3f(0, 1, 0)), 0.f);
  EXPECT_EQ(emitterPdf(v, 999, Vec3f(0.f), Vec3f(0.5f, -2.f, 0.2f), Vec3f(0, 1, 0)), 0.f);
}

// Möller-Trumbore; t > 0 of the hit or -1.
float intersect(Vec3f o, Vec3f d, Vec3f p0, Vec3f p1, Vec3f p2) {
  const Vec3f e1 = p1 - p0, e2 = p2 - p0, pv = cross(d, e2);
  const float det = dot(e1, pv);
  if (std::fabs(det) < 1e-12f) return -1.f;
  const Vec3f tv = o - p0;
  const float u = dot(tv, pv) / det;
  if (u < 0.f || u > 1.f) return -1.f;
  const Vec3f qv = cross(tv, e1);
  const float w = dot(d, qv) / det;
  if (w < 0.f || u + w > 1.f) return -1.f;
  const float tt = dot(e2, qv) / det;
  return tt > 0.f ? tt : -1.f;
}

TEST(Emitters, SolidAnglePdfIntegratesToOne) {
  // ∫ pdf dω over the sphere of directions, summing over every emitter a direction crosses
  // (the pdf counts all of them, occluded or not), by uniform sphere sampling.
  const TestScene s = makeScene();
  const EmitterTable t = buildEmitters(s.geometry, s.materials);
  const EmitterView v = hostView(t);
  const Vec3f ref(0.2f, 0.1f, -0.1f);
  constexpr int kN = 2000000;
  double sum = 0, sum2 = 0;
  for (int i = 0; i < kN; ++i) {
    Sampler smp = Sampler::at(uint32_t(i), 2, 0, 0);
    const Vec3f d = sampleUniformSphere(smp.next2D());
    double est = 0;
    for (size_t tri = 0; tri < s.geometry.triangleCount(); ++tri) {
      const Vec3f* p = s.geometry.positions.data() + 3 * tri;
      const float hit = intersect(ref, d, p[0], p[1], p[2]);
      if (hit < 0.f) continue;
      const Vec3f n = cross(p[1] - p[0], p[2] - p[0]);
      est += emitterPdf(v, uint32_t(tri), ref, ref + d * hit, n) / uniformSpherePdf();
    }
    sum += est, sum2 += est * est;
  }
  const double mean = sum / kN, sigma = std::sqrt((sum2 / kN - mean * mean) / kN);
  EXPECT_NEAR(mean, 1.0, 4 * sigma + 1e-3) << "sigma " << sigma;
  EXPECT_LT(sigma, 0.01) << "estimate too noisy to mean anything";
}

TEST(Emitters, NoEmittersMeansNoSamples) {
  TestScene s = makeScene();
  for (Material& m : s.materials) m.ke = Vec3f(0.f);
  const EmitterTable t = buildEmitters(s.geometry, s.materials);
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.totalPower, 0.0);
  const EmitterView v = hostView(t);
  LightSample ls;
  EXPECT_FALSE(sampleEmitter(v, s.geometry.positions.data(), s.geometry.indices.data(), Vec3f(0.f),
                             Vec2f{0.5f, 0.5f}, 0.5f, &ls));
  EXPECT_EQ(emitterPdf(v, 0, Vec3f(0.f), Vec3f(0, 2, 0), Vec3f(0, 1, 0)), 0.f);
  const EmitterTable empty = buildEmitters(FlatGeometry{}, {});
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_TRUE(empty.triangleToEmitter.empty());
}

TEST(Emitters, SingleEmitterTakesEveryUc) {
  TestScene s = makeScene();
  s.geometry.materialIds = {1, 0, 0, 0, 0, 0};
  const EmitterTable t = buildEmitters(s.geometry, s.materials);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t.pmf[0], 1.f);
  const EmitterView v = hostView(t);
  for (float uc : {0.f, 0.5f, 0.99999994f}) {
    LightSample ls;
    ASSERT_TRUE(sampleEmitter(v, s.geometry.positions.data(), s.geometry.indices.data(), Vec3f(0.f),
                              Vec2f{0.3f, 0.6f}, uc, &ls));
    EXPECT_EQ(ls.triangle, 0u);
  }
}

TEST(Emitters, BadInputThrowsWithTheTriangle) {
  TestScene s = makeScene();
  s.geometry.materialIds[4] = 17;
  try {
    buildEmitters(s.geometry, s.materials);
    ADD_FAILURE() << "bad material id accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("triangle 4"), std::string::npos) << e.what();
  }
  s = makeScene();
  s.geometry.materialIds.pop_back();
  EXPECT_THROW(buildEmitters(s.geometry, s.materials), std::invalid_argument);
  s = makeScene();
  s.geometry.indices[0] = 1000;
  EXPECT_THROW(buildEmitters(s.geometry, s.materials), std::invalid_argument);
  s = makeScene();
  s.materials[3].ke = Vec3f(NAN, 0.f, 0.f);
  EXPECT_THROW(buildEmitters(s.geometry, s.materials), std::invalid_argument);
}

TEST(PointLights, InverseSquareFalloff) {
  const PointLight light{Vec3f(0.f, 4.f, 0.f), Vec3f(16.f, 32.f, 8.f)};
  PointLightSample pl;
  ASSERT_TRUE(samplePointLight(light, Vec3f(0.f, 0.f, 3.f), &pl));
  EXPECT_FLOAT_EQ(pl.distance, 5.f);
  EXPECT_NEAR(pl.wi.y, 0.8f, 1e-6f);
  EXPECT_NEAR(pl.wi.z, -0.6f, 1e-6f);
  EXPECT_FLOAT_EQ(pl.Li.x, 16.f / 25.f);
  EXPECT_FLOAT_EQ(pl.Li.y, 32.f / 25.f);
  EXPECT_FALSE(samplePointLight(light, light.position, &pl));
}

}  // namespace
}  // namespace srt
