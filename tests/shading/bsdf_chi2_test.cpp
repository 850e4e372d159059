// χ² tests of sampled directions against pdf() (pbrt-v4's bsdfs_test.cpp, Mitsuba's
// ChiSquareTest): sample() histograms over (cos θ, φ) in the local frame over the whole sphere,
// expected counts by integrating pdf() over each bin with Simpson's rule.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "renderer/shading/bsdf.h"
#include "renderer/shading/rng.h"
#include "tests/shading/chi2.h"

namespace srt {
namespace {

constexpr int kCosBins = 20, kPhiBins = 40;
constexpr int kSamples = 500000;

struct Case {
  std::string name;
  DeviceMaterial material;
  float cosThetaO;
};

int binOf(Vec3f w) {
  const float c = clampf(w.z, -1.f, 1.f);
  float phi = std::atan2(w.y, w.x);
  if (phi < 0.f) phi += 2.f * kPi;
  const int i = std::min(kCosBins - 1, int((c + 1.f) * 0.5f * kCosBins));
  const int j = std::min(kPhiBins - 1, int(phi / (2.f * kPi) * kPhiBins));
  return i * kPhiBins + j;
}

// dω = d(cos θ) dφ, so the bin's probability is a plain 2D integral over (cos θ, φ).
test::Chi2Result runCase(const Case& c) {
  // Local frame = world frame (normal +z), so binning in world coordinates is binning in local.
  const Bsdf b = makeBsdf(c.material, nullptr, Vec3f(0.f, 0.f, 1.f), Vec2f{});
  const float s = std::sqrt(1.f - c.cosThetaO * c.cosThetaO);
  const Vec3f wo(s * std::cos(0.6f), s * std::sin(0.6f), c.cosThetaO);

  std::vector<double> observed(kCosBins * kPhiBins, 0.0), expected(observed.size(), 0.0);
  for (int i = 0; i < kSamples; ++i) {
    Sampler smp = Sampler::at(uint32_t(i), 0, 0, 12345);
    const float uc = smp.next1D();
    BsdfSample bs;
    if (!b.sample(wo, uc, smp.next2D(), &bs)) continue;
    observed[binOf(bs.wi)] += 1;
  }
  auto pdf = [&](double cosT, double phi) {
    const double sinT = std::sqrt(std::fmax(0.0, 1.0 - cosT * cosT));
    const Vec3f wi(float(sinT * std::cos(phi)), float(sinT * std::sin(phi)), float(cosT));
    return double(b.pdf(wo, wi));
  };
  for (int i = 0; i < kCosBins; ++i)
    for (int j = 0; j < kPhiBins; ++j) {
      const double c0 = -1.0 + 2.0 * i / kCosBins, c1 = -1.0 + 2.0 * (i + 1) / kCosBins;
      const double p0 = 2.0 * kPi * j / kPhiBins, p1 = 2.0 * kPi * (j + 1) / kPhiBins;
      expected[i * kPhiBins + j] = kSamples * test::simpson2D(pdf, c0, c1, p0, p1, 16);
    }
  return test::chi2Test(observed, expected);
}

std::vector<Case> cases() {
  std::vector<Case> out;
  auto add = [&](const std::string& name, MaterialType t, Vec3f kd, Vec3f ks, float alpha) {
    for (float c : {0.95f, 0.6f, 0.2f, -0.5f}) {
      DeviceMaterial m;
      m.type = t, m.kd = kd, m.ks = ks, m.alpha = alpha;
      out.push_back({name + " cos(wo)=" + std::to_string(c), m, c});
    }
  };
  add("diffuse", MaterialType::Diffuse, Vec3f(0.5f), Vec3f(0.f), 1.f);
  for (float alpha : {0.15f, 0.3f, 0.6f, 1.f}) {
    add("glossy a=" + std::to_string(alpha), MaterialType::Glossy, Vec3f(0.f), Vec3f(0.8f),
        alpha);  // the microfacet lobe alone
    add("glossy+diffuse a=" + std::to_string(alpha), MaterialType::Glossy, Vec3f(0.6f), Vec3f(0.2f),
        alpha);
  }
  return out;
}

TEST(BsdfChi2, SampledDirectionsFollowPdf) {
  const auto all = cases();
  const double threshold = test::sidak(0.01, int(all.size()));
  for (const Case& c : all) {
    const test::Chi2Result r = runCase(c);
    std::printf("  %-40s p = %.4f (dof %d)\n", c.name.c_str(), r.pValue, r.dof);
    EXPECT_TRUE(r.failure.empty()) << c.name << ": " << r.failure;
    EXPECT_GT(r.pValue, threshold) << c.name << ": p = " << r.pValue << " (dof " << r.dof << ")";
  }
}

// The test must be able to fail: a sampler drawing from a pdf other than the one pdf() reports
// (here uniform hemisphere against cosine-weighted) is rejected.
TEST(BsdfChi2, DetectsAMismatchedPdf) {
  DeviceMaterial m;
  const Bsdf b = makeBsdf(m, nullptr, Vec3f(0.f, 0.f, 1.f), Vec2f{});
  const Vec3f wo(0.f, 0.f, 1.f);
  std::vector<double> observed(kCosBins * kPhiBins, 0.0), expected(observed.size(), 0.0);
  constexpr int kN = 100000;
  for (int i = 0; i < kN; ++i) {
    Sampler smp = Sampler::at(uint32_t(i), 0, 0, 1);
    observed[binOf(sampleUniformHemisphere(smp.next2D()))] += 1;
  }
  auto pdf = [&](double cosT, double phi) {
    const double sinT = std::sqrt(std::fmax(0.0, 1.0 - cosT * cosT));
    return double(
        b.pdf(wo, Vec3f(float(sinT * std::cos(phi)), float(sinT * std::sin(phi)), float(cosT))));
  };
  for (int i = 0; i < kCosBins; ++i)
    for (int j = 0; j < kPhiBins; ++j)
      expected[i * kPhiBins + j] =
          kN * test::simpson2D(pdf, -1.0 + 2.0 * i / kCosBins, -1.0 + 2.0 * (i + 1) / kCosBins,
                               2.0 * kPi * j / kPhiBins, 2.0 * kPi * (j + 1) / kPhiBins, 8);
  const test::Chi2Result r = test::chi2Test(observed, expected);
  EXPECT_LT(r.pValue, 1e-6);
}

}  // namespace
}  // namespace srt
