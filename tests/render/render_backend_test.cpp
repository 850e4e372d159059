// Renders on one backend, the same cases for each: analytic scenes, determinism, the compaction
// invariant, Whitted, option errors and the per-frame kd-tree rebuild. The file is compiled twice
// (tests/render/CMakeLists.txt): with SRT_TEST_BACKEND "cpu" into test_render_cpu (label cpu) and
// "cuda" into test_render_gpu (label gpu), where every case skips with a reason without a device.
#include <gtest/gtest.h>

#include "primitives/common/cuda_check.h"
#include "primitives/compaction/compaction.h"
#include "tests/render/render_test_util.h"
#include "tests/test_scenes_dir.h"

#ifndef SRT_TEST_BACKEND
#error "SRT_TEST_BACKEND names the backend under test (cpu or cuda)"
#endif

namespace srt {
namespace {

// What differs between the backends' cases: the primitives they compare, the kd-tree builder,
// the sizes (the device's cases are larger: they cost it little).
struct BackendCase {
  const char* backend;           // selectBackend's name
  const char* reference;         // the primitive the invariant compares every other one with
  const char* builder;           // what "auto" builds the kd-tree with on this backend
  const char* foreignPrimitive;  // a primitive that cannot take this backend's streams
  int furnace, sphere;           // the analytic cases' image sides
  int invariantWidth, invariantHeight, invariantDepth;
  // GL primitives take host streams too but need a context: without one the CPU case skips them
  // (their own tests say why).
  bool skipGlWithoutContext;
};

// gtest names the case by its backend (not by a dump of its bytes, pointers included).
void PrintTo(const BackendCase& c, std::ostream* os) {
  *os << c.backend;
}

const BackendCase kCases[] = {
    {"cpu", "cpu", "cpu", "cub", 32, 16, 40, 40, 6, true},
    {"cuda", "cub", "gpu", "cpu", 64, 32, 96, 64, 8, false},
};

class RenderBackend : public testing::TestWithParam<BackendCase> {
 protected:
  void SetUp() override {
    if (std::string(GetParam().backend) == "cuda" && !cudaDeviceAvailable())
      GTEST_SKIP() << "no CUDA device: " << cudaDeviceDescription();
    backend_ = selectBackend(GetParam().backend);
  }
  Backend backend_;
};

TEST_P(RenderBackend, WhiteFurnaceRendersTheEnvironment) {
  // An albedo-1 diffuse sphere in a uniform environment is invisible: every pixel sees 0.5.
  const int side = GetParam().furnace;
  const RenderResult r =
      renderScene(loadScene("furnace"), backend_, test::options(side, side, 64, 32));
  const Vec3f env = loadScene("furnace").environment;
  const Vec3f mean = test::meanOf(r.image);
  EXPECT_NEAR(mean.x, env.x, 0.01f * env.x);
  EXPECT_NEAR(mean.y, env.y, 0.01f * env.y);
  EXPECT_NEAR(mean.z, env.z, 0.01f * env.z);
  for (const Vec3f& m : test::blockMeans(r.image, 8)) EXPECT_NEAR(m.y, env.y, 0.05f * env.y);
}

TEST_P(RenderBackend, PointLightInsideDiffuseSphereGivesRadianceOne) {
  const int side = GetParam().sphere;
  const RenderResult r =
      renderScene(test::pointLightInSphere(), backend_, test::options(side, side, 256, 64));
  const Vec3f mean = test::meanOf(r.image);
  EXPECT_NEAR(mean.x, 1.f, 0.02f);
  EXPECT_NEAR(mean.y, 1.f, 0.02f);
  EXPECT_NEAR(mean.z, 1.f, 0.02f);
}

TEST_P(RenderBackend, SameSeedSameImageBitForBit) {
  RenderOptions o = test::options(40, 30, 2);
  const Image a = renderScene(loadScene("cornell"), backend_, o).image;
  const Image b = renderScene(loadScene("cornell"), backend_, o).image;
  EXPECT_TRUE(test::bitIdentical(a, b));
  o.seed = 7;
  const Image c = renderScene(loadScene("cornell"), backend_, o).image;
  EXPECT_FALSE(test::bitIdentical(a, c)) << "the seed changes nothing";
}

TEST_P(RenderBackend, CornellBoxIsLitAndFinite) {
  const RenderResult r = renderScene(loadScene("cornell"), backend_, test::options(48, 48, 8));
  ASSERT_TRUE(test::allFinite(r.image));
  const Vec3f mean = test::meanOf(r.image);
  EXPECT_GT(mean.x, 0.05f);
  // Colour bleeding: the left third leans red, the right third green (red wall left, green right).
  Vec3f left(0.f), right(0.f);
  for (int y = 0; y < 48; ++y)
    for (int x = 0; x < 16; ++x) {
      left += r.image.pixels[size_t(y) * 48 + x];
      right += r.image.pixels[size_t(y) * 48 + 47 - x];
    }
  EXPECT_GT(left.x / left.y, right.x / right.y);
  // The alive-ray counts fall bounce by bounce.
  const auto& b = r.stats.bounces;
  ASSERT_GE(b.size(), 3u);
  for (size_t d = 1; d < b.size(); ++d) EXPECT_LE(b[d].raysIn, b[d - 1].raysIn);
  EXPECT_EQ(b[0].raysIn, uint64_t(48 * 48 * 8));
}

// The compaction invariant: the path-traced image is bit-identical whatever primitive (and
// payload) removes the dead rays, because random numbers follow pixels, not stream slots.
TEST_P(RenderBackend, ImageDoesNotDependOnTheCompactionPrimitive) {
  const BackendCase& c = GetParam();
  RenderOptions o = test::options(c.invariantWidth, c.invariantHeight, 3, c.invariantDepth);
  o.compaction = c.reference;
  const Image reference = renderScene(loadScene("cornell"), backend_, o).image;
  int compared = 0;
  for (const auto& e : compaction::Registry::global().entries()) {
    if (!e.info.accepts_(backend_.memory())) continue;
    for (Payload payload : {Payload::State, Payload::Index}) {
      o.compaction = e.info.name;
      o.payload = payload;
      Image img;
      try {
        img = renderScene(loadScene("cornell"), backend_, o).image;
      } catch (const std::exception& ex) {
        if (c.skipGlWithoutContext && e.info.device == compaction::Device::Gl) {
          std::printf("skipping %s: %s\n", e.info.name.c_str(), ex.what());
          continue;
        }
        throw;
      }
      EXPECT_TRUE(test::bitIdentical(reference, img)) << e.info.name << " / " << toString(payload);
      ++compared;
    }
  }
  EXPECT_GE(compared, 4);
}

TEST_P(RenderBackend, WhittedRendersMirrorAndGlass) {
  RenderOptions o = test::options(48, 48, 4, 6);
  o.integrator = IntegratorKind::Whitted;
  const RenderResult a = renderScene(loadScene("cornell-whitted"), backend_, o);
  ASSERT_TRUE(test::allFinite(a.image));
  EXPECT_GT(test::meanOf(a.image).x, 0.01f);
  // Children exist past the first bounce (mirror and glass), and the stream is compacted.
  ASSERT_GE(a.stats.bounces.size(), 2u);
  EXPECT_GT(a.stats.bounces[1].raysIn, 0u);
  o.compaction = "none";
  const RenderResult b = renderScene(loadScene("cornell-whitted"), backend_, o);
  EXPECT_TRUE(test::bitIdentical(a.image, b.image)) << "the film is fixed point: order-free";
  uint64_t lanes = 0, rays = 0;
  for (const IterationStats& it : b.stats.iterations) lanes += it.lanes;
  for (const BounceStats& d : b.stats.bounces) rays += d.raysIn;
  EXPECT_GT(lanes, rays) << "none keeps dead lanes";
}

TEST_P(RenderBackend, BadOptionsAreClearErrors) {
  RenderOptions o = test::options(8, 8, 1);
  o.compaction = GetParam().foreignPrimitive;  // needs the other backend's memory
  EXPECT_THROW(renderScene(loadScene("cornell"), backend_, o), std::invalid_argument);
  o.compaction = "no-such";
  EXPECT_THROW(renderScene(loadScene("cornell"), backend_, o), std::invalid_argument);
  o.compaction = GetParam().reference;
  o.width = 1 << 20, o.height = 1 << 20;
  EXPECT_THROW(renderScene(loadScene("cornell"), backend_, o), std::invalid_argument);
}

// The per-frame rebuild: a frame rendered after moving the geometry and rebuilding the
// kd-tree equals the same frame rendered from a tree built once for that pose.
TEST_P(RenderBackend, RebuiltFrameEqualsFreshBuildForThatPose) {
  Scene scene = loadScene(srt::test::testDataDir() + "/examples/cornell-orbit.json");
  ASSERT_GT(scene.animationEnd, 0.f);
  const RenderOptions o = test::options(40, 40, 2, 4);
  const float t = 0.37f * scene.animationEnd;
  Renderer animated(scene, backend_, o, {}, 0.f);
  const Image first = animated.render(0.f).image;
  const RenderResult moved = animated.render(t);
  EXPECT_EQ(moved.stats.accel.builder, GetParam().builder)
      << "the frame did not report its rebuild";
  Renderer fresh(scene, backend_, o, {}, t);
  EXPECT_TRUE(test::bitIdentical(moved.image, fresh.render(t).image));
  EXPECT_FALSE(test::bitIdentical(first, moved.image)) << "the animation moved nothing";
}

const BackendCase& caseOf(const std::string& backend) {
  for (const BackendCase& c : kCases)
    if (backend == c.backend) return c;
  throw std::invalid_argument("SRT_TEST_BACKEND: no case for '" + backend + "'");
}

INSTANTIATE_TEST_SUITE_P(Backend, RenderBackend, testing::Values(caseOf(SRT_TEST_BACKEND)),
                         [](const testing::TestParamInfo<BackendCase>& info) {
                           return std::string(info.param.backend);
                         });

}  // namespace
}  // namespace srt
