// The environment light's parts on the CPU: the 2D piecewise-constant distribution (its density
// integrates to 1, samples follow it by χ², awkward grids), the equirectangular mapping and
// rotation, and the direction density (integrates to 1 over the sphere, χ² in direction space).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "renderer/shading/environment.h"
#include "tests/shading/chi2.h"
#include "tests/shading/env_test_util.h"

namespace srt {
namespace {

struct Grid {
  const char* name;
  int width, height;
  std::vector<float> func;
};

// 1×1, one row, one column, a random grid with zero cells and a zero row, all zero, and a grid
// whose cell count is no power of two with one cell holding nearly all the weight.
std::vector<Grid> awkwardGrids() {
  std::vector<Grid> grids;
  grids.push_back({"1x1", 1, 1, {3.f}});
  grids.push_back({"7x1", 7, 1, {1, 0, 2, 5, 0, 0.5f, 1}});
  grids.push_back({"1x6", 1, 6, {0, 4, 1, 0, 2, 3}});
  std::mt19937 rng(12345);
  std::uniform_real_distribution<float> uni(0.f, 1.f);
  Grid r{"13x9 random, zeros", 13, 9, std::vector<float>(13 * 9)};
  for (size_t i = 0; i < r.func.size(); ++i) r.func[i] = uni(rng) < 0.2f ? 0.f : uni(rng);
  for (int x = 0; x < 13; ++x) r.func[4 * 13 + x] = 0.f;  // a whole row without weight
  grids.push_back(r);
  grids.push_back({"4x3 all zero", 4, 3, std::vector<float>(12, 0.f)});
  Grid peak{"31x17 one bright cell", 31, 17, std::vector<float>(31 * 17, 1e-3f)};
  peak.func[5 * 31 + 20] = 1e4f;
  grids.push_back(peak);
  return grids;
}

TEST(Distribution2D, DensityIntegratesToOne) {
  for (const Grid& g : awkwardGrids()) {
    const Distribution2D d = buildDistribution2D(g.func, g.width, g.height);
    const Distribution2DView v = hostView(d);
    double integral = 0.0;
    for (int y = 0; y < g.height; ++y)
      for (int x = 0; x < g.width; ++x) {
        const float pdf = distribution2DPdf(v, Vec2f{(x + 0.5f) / g.width, (y + 0.5f) / g.height});
        integral += double(pdf) / (double(g.width) * g.height);
        // Zero weight, zero density, unless the whole grid (or the row) has none.
        const bool rowEmpty = [&] {
          for (int i = 0; i < g.width; ++i)
            if (g.func[size_t(y) * g.width + i] > 0.f) return false;
          return true;
        }();
        if (g.func[size_t(y) * g.width + x] == 0.f && !rowEmpty) EXPECT_EQ(pdf, 0.f) << g.name;
      }
    EXPECT_NEAR(integral, 1.0, 1e-5) << g.name;
  }
}

TEST(Distribution2D, SamplesFollowTheDensity) {
  const std::vector<Grid> grids = awkwardGrids();
  for (const Grid& g : grids) {
    const Distribution2D d = buildDistribution2D(g.func, g.width, g.height);
    const Distribution2DView v = hostView(d);
    const int cells = g.width * g.height;
    std::vector<double> observed(cells, 0.0), expected(cells, 0.0);
    constexpr int kSamples = 200000;
    std::mt19937 rng(99);
    std::uniform_real_distribution<float> uni(0.f, 1.f);
    int pdfMismatches = 0;
    for (int i = 0; i < kSamples; ++i) {
      float pdf = 0.f;
      const Vec2f p = sampleDistribution2D(v, Vec2f{uni(rng), uni(rng)}, &pdf);
      ASSERT_TRUE(p.x >= 0.f && p.x <= 1.f && p.y >= 0.f && p.y <= 1.f) << g.name;
      ASSERT_GT(pdf, 0.f) << g.name;
      pdfMismatches += pdf != distribution2DPdf(v, p);
      const int x = std::min(int(p.x * g.width), g.width - 1);
      const int y = std::min(int(p.y * g.height), g.height - 1);
      observed[size_t(y) * g.width + x] += 1.0;
    }
    // A sample exactly on a cell's far edge reads the next cell's density: rare, never more.
    EXPECT_LE(pdfMismatches, kSamples / 10000) << g.name;
    for (int y = 0; y < g.height; ++y)
      for (int x = 0; x < g.width; ++x)
        expected[size_t(y) * g.width + x] =
            kSamples *
            double(distribution2DPdf(v, Vec2f{(x + 0.5f) / g.width, (y + 0.5f) / g.height})) /
            cells;
    if (cells == 1) continue;  // nothing to compare bins with
    const test::Chi2Result r = test::chi2Test(observed, expected);
    EXPECT_TRUE(r.failure.empty()) << g.name << ": " << r.failure;
    EXPECT_GT(r.pValue, test::sidak(0.01, int(grids.size()))) << g.name;
  }
}

TEST(Distribution2D, BadInputIsRefused) {
  EXPECT_THROW(buildDistribution2D({}, 0, 0), std::invalid_argument);
  EXPECT_THROW(buildDistribution2D({1.f, 2.f}, 3, 1), std::invalid_argument);
  EXPECT_THROW(buildDistribution2D({1.f, -1.f}, 2, 1), std::invalid_argument);
  EXPECT_THROW(buildDistribution2D({1.f, NAN}, 2, 1), std::invalid_argument);
  EXPECT_THROW(buildDistribution2D({1.f, INFINITY}, 2, 1), std::invalid_argument);
}

TEST(Environment, EquirectMappingIsTheDocumentedOne) {
  // Centre column looks along -z, the top row up, three quarters across towards +x.
  const Vec3f centre = equirectToDirection(Vec2f{0.5f, 0.5f}, 0.f);
  EXPECT_NEAR(centre.z, -1.f, 1e-6f);
  EXPECT_NEAR(equirectToDirection(Vec2f{0.3f, 0.f}, 0.f).y, 1.f, 1e-6f);
  EXPECT_NEAR(equirectToDirection(Vec2f{0.75f, 0.5f}, 0.f).x, 1.f, 1e-6f);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> uni(0.f, 1.f);
  for (int i = 0; i < 1000; ++i) {
    const Vec3f d = sampleUniformSphere(Vec2f{uni(rng), uni(rng)});
    const float offset = uni(rng);
    const Vec3f back = equirectToDirection(directionToEquirect(d, offset), offset);
    EXPECT_NEAR(length(back - d), 0.f, 1e-5f);
  }
}

TEST(Environment, RotationTurnsTheMapAboutUp) {
  // One bright texel straight ahead (-z); rotated 90° about +y it lies towards -x.
  Image img = test::constantImage(64, 32, Vec3f(0.f));
  img.at(32, 16) = Vec3f(1.f);
  img.at(31, 16) = Vec3f(1.f);
  EnvironmentMap m = test::mapOf(img, "ahead");
  m.rotationDegrees = 90.f;
  const EnvironmentTable t = buildEnvironment(m);
  const EnvironmentView v = hostView(t);
  const Vec3f ahead(0.f, 0.f, -1.f), left(-1.f, 0.f, 0.f), right(1.f, 0.f, 0.f);
  EXPECT_GT(environmentRadiance(v, left).x, 0.4f);
  EXPECT_EQ(environmentRadiance(v, ahead).x, 0.f);
  EXPECT_EQ(environmentRadiance(v, right).x, 0.f);
  EnvironmentSample s;
  ASSERT_TRUE(sampleEnvironment(v, Vec2f{0.4f, 0.6f}, &s));
  EXPECT_LT(s.wi.x, -0.99f);  // every sample lands on the bright texels
}

TEST(Environment, ConstantMapReadsItsValueTimesScale) {
  EnvironmentMap m = test::mapOf(test::constantImage(5, 3, Vec3f(0.5f, 1.f, 2.f)), "constant");
  m.scale = 2.f;
  const EnvironmentTable t = buildEnvironment(m);
  const EnvironmentView v = hostView(t);
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> uni(0.f, 1.f);
  for (int i = 0; i < 1000; ++i) {
    const Vec3f L = environmentRadiance(v, sampleUniformSphere(Vec2f{uni(rng), uni(rng)}));
    EXPECT_NEAR(L.x, 1.f, 1e-6f);
    EXPECT_NEAR(L.z, 4.f, 1e-6f);
  }
}

// ∫ environmentPdf dω over the sphere on a (z, φ) grid that does not line up with the map's.
double sphereIntegral(const EnvironmentView& v, int nz, int nphi) {
  double sum = 0.0;
  for (int i = 0; i < nz; ++i)
    for (int j = 0; j < nphi; ++j) {
      const Vec3f d = sampleUniformSphere(Vec2f{(i + 0.5f) / nz, (j + 0.5f) / nphi});
      sum += environmentPdf(v, d);
    }
  return sum * 4.0 * kPi / (double(nz) * nphi);
}

TEST(Environment, DirectionDensityIntegratesToOne) {
  for (const auto& [name, img] :
       {std::pair<const char*, Image>{"constant 8x4", test::constantImage(8, 4, Vec3f(1.f))},
        {"sky 64x32", test::syntheticSky(64, 32, 8.f)},
        {"1x1", test::constantImage(1, 1, Vec3f(2.f))}}) {
    EnvironmentMap m = test::mapOf(img, name);
    m.rotationDegrees = 37.f;
    const EnvironmentTable t = buildEnvironment(m);
    EXPECT_NEAR(sphereIntegral(hostView(t), 1500, 3001), 1.0, 5e-3) << name;
  }
}

TEST(Environment, SampledDirectionsFollowTheirDensity) {
  EnvironmentMap m = test::mapOf(test::syntheticSky(48, 24, 10.f), "sky");
  m.rotationDegrees = -20.f;
  const EnvironmentTable t = buildEnvironment(m);
  const EnvironmentView v = hostView(t);
  // Equal-area bins in (z, φ); the expected counts integrate the density over each bin finely.
  constexpr int kZ = 16, kPhi = 32, kSub = 24, kSamples = 400000;
  std::vector<double> observed(kZ * kPhi, 0.0), expected(kZ * kPhi, 0.0);
  for (int bz = 0; bz < kZ; ++bz)
    for (int bp = 0; bp < kPhi; ++bp) {
      double sum = 0.0;
      for (int i = 0; i < kSub; ++i)
        for (int j = 0; j < kSub; ++j)
          sum += environmentPdf(v, sampleUniformSphere(Vec2f{(bz + (i + 0.5f) / kSub) / kZ,
                                                             (bp + (j + 0.5f) / kSub) / kPhi}));
      expected[bz * kPhi + bp] = kSamples * sum / (kSub * kSub) * 4.0 * kPi / (kZ * kPhi);
    }
  std::mt19937 rng(77);
  std::uniform_real_distribution<float> uni(0.f, 1.f);
  int pdfOff = 0;
  for (int i = 0; i < kSamples; ++i) {
    EnvironmentSample s;
    if (!sampleEnvironment(v, Vec2f{uni(rng), uni(rng)}, &s)) continue;
    pdfOff += std::fabs(s.pdf - environmentPdf(v, s.wi)) > 1e-3f * s.pdf;
    const float z = s.wi.z, phi = std::atan2(s.wi.y, s.wi.x);
    const int bz = std::min(kZ - 1, int((1.f - z) * 0.5f * kZ));
    const int bp =
        std::min(kPhi - 1, int((phi < 0.f ? phi + 2.f * kPi : phi) / (2.f * kPi) * kPhi));
    observed[bz * kPhi + bp] += 1.0;
  }
  EXPECT_LE(pdfOff, kSamples / 1000);
  const test::Chi2Result r = test::chi2Test(observed, expected);
  EXPECT_TRUE(r.failure.empty()) << r.failure;
  EXPECT_GT(r.pValue, 0.01);
}

TEST(Environment, BadMapsAreRefused) {
  EXPECT_THROW(buildEnvironment(test::mapOf(Image(), "empty")), std::invalid_argument);
  Image neg = test::constantImage(2, 2, Vec3f(1.f));
  neg.at(1, 1).y = -1.f;
  EXPECT_THROW(buildEnvironment(test::mapOf(neg, "negative")), std::invalid_argument);
  EnvironmentMap m = test::mapOf(test::constantImage(2, 2, Vec3f(1.f)), "scaled");
  m.scale = NAN;
  EXPECT_THROW(buildEnvironment(m), std::invalid_argument);
  m.scale = 1.f;
  m.rotationDegrees = INFINITY;
  EXPECT_THROW(buildEnvironment(m), std::invalid_argument);
}

}  // namespace
}  // namespace srt
