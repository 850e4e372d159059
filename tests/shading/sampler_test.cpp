// Sampler determinism and uniformity, the warping functions, MIS weights and pdf conversions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>
#include <vector>

#include "renderer/shading/rng.h"
#include "renderer/shading/sampling.h"
#include "tests/shading/chi2.h"

namespace srt {
namespace {

std::vector<float> sequence(uint32_t pixel, uint32_t sample, uint32_t bounce, uint32_t seed,
                            int n) {
  Sampler s = Sampler::at(pixel, sample, bounce, seed);
  std::vector<float> v(n);
  for (float& x : v) x = s.next1D();
  return v;
}

TEST(Sampler, SameKeySameNumbersBitForBit) {
  for (uint32_t p : {0u, 1u, 12345u, 0xffffffffu}) {
    const auto a = sequence(p, 7, 3, 42, 64), b = sequence(p, 7, 3, 42, 64);
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float))) << "pixel " << p;
  }
}

TEST(Sampler, EveryKeyFieldChangesTheSequence) {
  const auto base = sequence(10, 20, 3, 4, 8);
  const std::vector<std::vector<float>> others = {
      sequence(11, 20, 3, 4, 8), sequence(10, 21, 3, 4, 8), sequence(10, 20, 4, 4, 8),
      sequence(10, 20, 3, 5, 8), sequence(20, 10, 3, 4, 8),  // swapped pixel/sample
      sequence(10, 20, 4, 3, 8)};                            // swapped bounce/seed
  for (size_t i = 0; i < others.size(); ++i) {
    int equal = 0;
    for (int d = 0; d < 8; ++d) equal += base[d] == others[i][d];
    EXPECT_LE(equal, 1) << "variant " << i << " repeats the base sequence";
  }
}

TEST(Sampler, NoTwoKeysShareAFirstPair) {
  // 2^16 keys over all four fields; 48 bits of (dim0, dim1) should not collide.
  std::set<std::pair<float, float>> seen;
  for (uint32_t p = 0; p < 64; ++p)
    for (uint32_t s = 0; s < 16; ++s)
      for (uint32_t b = 0; b < 8; ++b)
        for (uint32_t seed = 0; seed < 8; ++seed) {
          Sampler smp = Sampler::at(p, s, b, seed);
          const Vec2f u = smp.next2D();
          EXPECT_TRUE(seen.insert({u.x, u.y}).second) << p << " " << s << " " << b << " " << seed;
        }
}

TEST(Sampler, ValuesAreIn01With24BitMantissa) {
  for (uint32_t p = 0; p < 2000; ++p) {
    Sampler s = Sampler::at(p, p * 3, 1, 9);
    for (int d = 0; d < 16; ++d) {
      const float x = s.next1D();
      ASSERT_GE(x, 0.f);
      ASSERT_LT(x, 1.f);
      const float scaled = x * 16777216.f;
      ASSERT_EQ(scaled, std::floor(scaled)) << "not a multiple of 2^-24";
    }
  }
}

TEST(Sampler, SetDimensionReproducesThatDimension) {
  Sampler a = Sampler::at(5, 6, 7, 8);
  std::vector<float> all(12);
  for (float& x : all) x = a.next1D();
  for (uint32_t d = 0; d < 12; ++d) {
    Sampler b = Sampler::at(5, 6, 7, 8);
    b.setDimension(d);
    EXPECT_EQ(all[d], b.next1D()) << "dimension " << d;
  }
  Sampler c = Sampler::at(5, 6, 7, 8);
  c.setDimension(4);
  const Vec2f u = c.next2D();
  EXPECT_EQ(u.x, all[4]);
  EXPECT_EQ(u.y, all[5]);
  EXPECT_EQ(c.dimension, 6u);
}

// χ² of a histogram against the uniform distribution.
double uniformPValue(const std::vector<double>& counts, double total) {
  std::vector<double> expected(counts.size(), total / counts.size());
  const auto r = test::chi2Test(counts, expected);
  EXPECT_TRUE(r.failure.empty()) << r.failure;
  return r.pValue;
}

TEST(Sampler, UniformIn1DAcrossPixelsAndDimensions) {
  // Across pixels at a fixed dimension (what a wavefront uses), and along the dimensions.
  constexpr int kBins = 256, kN = 1 << 20;
  std::vector<double> acrossPixels(kBins), alongDims(kBins);
  for (int i = 0; i < kN; ++i) {
    Sampler s = Sampler::at(uint32_t(i), 0, 0, 1);
    acrossPixels[int(s.next1D() * kBins)] += 1;
  }
  Sampler s = Sampler::at(77, 0, 0, 1);
  for (int i = 0; i < kN; ++i) alongDims[int(s.next1D() * kBins)] += 1;
  const double alpha = test::sidak(0.01, 3);
  EXPECT_GT(uniformPValue(acrossPixels, kN), alpha);
  EXPECT_GT(uniformPValue(alongDims, kN), alpha);
}

TEST(Sampler, UniformAndIndependentIn2D) {
  // Pairs of neighbouring pixels and of (sample, sample + 1) must look independent: a 2D
  // histogram of (value at key k, value at key k + 1) is uniform.
  constexpr int kRes = 32, kN = 1 << 20;
  std::vector<double> pairs(kRes * kRes), pixels(kRes * kRes), samples(kRes * kRes);
  for (int i = 0; i < kN; ++i) {
    Sampler s = Sampler::at(uint32_t(i), 3, 2, 5);
    const Vec2f u = s.next2D();
    pairs[int(u.x * kRes) * kRes + int(u.y * kRes)] += 1;
    Sampler n = Sampler::at(uint32_t(i) + 1, 3, 2, 5);
    Sampler s0 = Sampler::at(uint32_t(i), 3, 2, 5);
    pixels[int(s0.next1D() * kRes) * kRes + int(n.next1D() * kRes)] += 1;
    Sampler a = Sampler::at(9, uint32_t(i), 2, 5), b = Sampler::at(9, uint32_t(i) + 1, 2, 5);
    samples[int(a.next1D() * kRes) * kRes + int(b.next1D() * kRes)] += 1;
  }
  const double alpha = test::sidak(0.01, 3);
  EXPECT_GT(uniformPValue(pairs, kN), alpha);
  EXPECT_GT(uniformPValue(pixels, kN), alpha);
  EXPECT_GT(uniformPValue(samples, kN), alpha);
}

Vec2f u2(Sampler& s) {
  return s.next2D();
}

TEST(Warps, CosineHemisphere) {
  Sampler s = Sampler::at(1, 0, 0, 0);
  double sumCos = 0;
  constexpr int kN = 200000;
  for (int i = 0; i < kN; ++i) {
    const Vec3f w = sampleCosineHemisphere(u2(s));
    ASSERT_NEAR(length(w), 1.f, 1e-5f);
    ASSERT_GE(w.z, 0.f);
    sumCos += w.z;
  }
  EXPECT_NEAR(sumCos / kN, 2.0 / 3.0, 0.005);  // E[cos] under cos/π
  EXPECT_FLOAT_EQ(cosineHemispherePdf(1.f), kInvPi);
  EXPECT_EQ(cosineHemispherePdf(-0.5f), 0.f);
}

TEST(Warps, UniformSphereAndHemisphere) {
  Sampler s = Sampler::at(2, 0, 0, 0);
  constexpr int kN = 200000;
  double sphereZ = 0, sphereZ2 = 0, hemiZ = 0;
  for (int i = 0; i < kN; ++i) {
    const Vec3f a = sampleUniformSphere(u2(s));
    const Vec3f b = sampleUniformHemisphere(u2(s));
    ASSERT_NEAR(length(a), 1.f, 1e-5f);
    ASSERT_NEAR(length(b), 1.f, 1e-5f);
    ASSERT_GE(b.z, 0.f);
    sphereZ += a.z, sphereZ2 += a.z * a.z, hemiZ += b.z;
  }
  EXPECT_NEAR(sphereZ / kN, 0.0, 0.005);
  EXPECT_NEAR(sphereZ2 / kN, 1.0 / 3.0, 0.005);
  EXPECT_NEAR(hemiZ / kN, 0.5, 0.005);
  EXPECT_FLOAT_EQ(uniformSpherePdf() * 4.f * kPi, 1.f);
  EXPECT_FLOAT_EQ(uniformHemispherePdf() * 2.f * kPi, 1.f);
}

TEST(Warps, ConcentricDiskIsUniformOverTheDisk) {
  Sampler s = Sampler::at(3, 0, 0, 0);
  constexpr int kN = 200000;
  double r2 = 0;
  int quadrant[4] = {0, 0, 0, 0};
  for (int i = 0; i < kN; ++i) {
    const Vec2f d = sampleUniformDiskConcentric(u2(s));
    ASSERT_LE(d.x * d.x + d.y * d.y, 1.f + 1e-6f);
    r2 += d.x * d.x + d.y * d.y;
    ++quadrant[(d.x >= 0) + 2 * (d.y >= 0)];
  }
  EXPECT_NEAR(r2 / kN, 0.5, 0.005);
  for (int q = 0; q < 4; ++q) EXPECT_NEAR(quadrant[q] / double(kN), 0.25, 0.005);
  const Vec2f centre = sampleUniformDiskConcentric(Vec2f{0.5f, 0.5f});
  EXPECT_EQ(centre.x, 0.f);
  EXPECT_EQ(centre.y, 0.f);
}

TEST(Warps, UniformTriangleBarycentrics) {
  Sampler s = Sampler::at(4, 0, 0, 0);
  constexpr int kN = 200000;
  double mean[3] = {0, 0, 0};
  int cornerB0 = 0;
  for (int i = 0; i < kN; ++i) {
    const Vec3f b = sampleUniformTriangle(u2(s));
    ASSERT_GE(b.x, 0.f);
    ASSERT_GE(b.y, 0.f);
    ASSERT_GE(b.z, 0.f);
    ASSERT_NEAR(b.x + b.y + b.z, 1.f, 1e-6f);
    for (int k = 0; k < 3; ++k) mean[k] += b[k];
    cornerB0 += b.x > 0.5f;  // the corner sub-triangle at vertex 0 has 1/4 of the area
  }
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(mean[k] / kN, 1.0 / 3.0, 0.003) << k;
  EXPECT_NEAR(cornerB0 / double(kN), 0.25, 0.004);
}

TEST(Mis, PowerHeuristic) {
  for (float f : {0.1f, 1.f, 7.f})
    for (float g : {0.f, 0.3f, 2.f})
      EXPECT_NEAR(powerHeuristic(1, f, 1, g) + powerHeuristic(1, g, 1, f), 1.f, 1e-6f);
  EXPECT_FLOAT_EQ(powerHeuristic(1, 1.f, 1, 1.f), 0.5f);
  EXPECT_FLOAT_EQ(powerHeuristic(1, 3.f, 1, 1.f), 0.9f);
  EXPECT_EQ(powerHeuristic(1, 0.f, 1, 0.f), 0.f);
  EXPECT_EQ(powerHeuristic(1, INFINITY, 1, 5.f), 1.f);
  EXPECT_EQ(powerHeuristic(1, 5.f, 1, INFINITY), 0.f);
}

TEST(Mis, AreaSolidAngleConversionsRoundTrip) {
  const float pA = 0.25f, d2 = 9.f, c = -0.5f;
  const float pW = pdfAreaToSolidAngle(pA, d2, c);
  EXPECT_FLOAT_EQ(pW, 0.25f * 9.f / 0.5f);
  EXPECT_FLOAT_EQ(pdfSolidAngleToArea(pW, d2, c), pA);
  EXPECT_EQ(pdfAreaToSolidAngle(pA, d2, 0.f), 0.f);  // edge-on: no solid angle
  EXPECT_EQ(pdfSolidAngleToArea(pW, 0.f, c), 0.f);
}

}  // namespace
}  // namespace srt
