// Renders on the CPU backend: analytic scenes, determinism and the compaction invariant.
#include <gtest/gtest.h>

#include "primitives/compaction/compaction.h"
#include "tests/render/render_test_util.h"
#include "tests/test_scenes_dir.h"

namespace srt {
namespace {

RenderOptions small(int w, int h, int spp, int depth = 8) {
  RenderOptions o;
  o.width = w, o.height = h, o.spp = spp, o.maxDepth = depth;
  return o;
}

const Backend kCpu = selectBackend("cpu");

TEST(RenderCpu, WhiteFurnaceRendersTheEnvironment) {
  // An albedo-1 diffuse sphere in a uniform environment is invisible: every pixel sees 0.5.
  RenderOptions o = small(32, 32, 64, 32);
  const RenderResult r = renderScene(loadScene("furnace"), kCpu, o);
  const Scene furnace = loadScene("furnace");
  const Vec3f env = furnace.environment;
  const Vec3f mean = test::meanOf(r.image);
  EXPECT_NEAR(mean.x, env.x, 0.01f * env.x);
  EXPECT_NEAR(mean.y, env.y, 0.01f * env.y);
  EXPECT_NEAR(mean.z, env.z, 0.01f * env.z);
  for (const Vec3f& m : test::blockMeans(r.image, 8)) EXPECT_NEAR(m.y, env.y, 0.05f * env.y);
}

TEST(RenderCpu, PointLightInsideDiffuseSphereGivesRadianceOne) {
  RenderOptions o = small(16, 16, 256, 64);
  const RenderResult r = renderScene(test::pointLightInSphere(), kCpu, o);
  const Vec3f mean = test::meanOf(r.image);
  EXPECT_NEAR(mean.x, 1.f, 0.02f);
  EXPECT_NEAR(mean.y, 1.f, 0.02f);
  EXPECT_NEAR(mean.z, 1.f, 0.02f);
}

TEST(RenderCpu, SameSeedSameImageBitForBit) {
  RenderOptions o = small(40, 30, 2);
  const Image a = renderScene(loadScene("cornell"), kCpu, o).image;
  const Image b = renderScene(loadScene("cornell"), kCpu, o).image;
  EXPECT_TRUE(test::bitIdentical(a, b));
  o.seed = 7;
  const Image c = renderScene(loadScene("cornell"), kCpu, o).image;
  EXPECT_FALSE(test::bitIdentical(a, c)) << "the seed changes nothing";
}

TEST(RenderCpu, CornellBoxIsLitAndFinite) {
  RenderOptions o = small(48, 48, 8);
  const RenderResult r = renderScene(loadScene("cornell"), kCpu, o);
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
TEST(RenderCpu, ImageDoesNotDependOnTheCompactionPrimitive) {
  RenderOptions o = small(40, 40, 3, 6);
  o.compaction = "cpu";
  const Image reference = renderScene(loadScene("cornell"), kCpu, o).image;
  int compared = 0;
  for (const auto& e : compaction::Registry::global().entries()) {
    if (!e.info.accepts_(MemorySpace::Host)) continue;
    for (Payload payload : {Payload::State, Payload::Index}) {
      o.compaction = e.info.name;
      o.payload = payload;
      Image img;
      try {
        img = renderScene(loadScene("cornell"), kCpu, o).image;
      } catch (const std::exception& ex) {
        // GL primitives need a context; their own tests say why when there is none.
        if (e.info.device == compaction::Device::Gl) {
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

TEST(RenderCpu, WhittedRendersMirrorAndGlass) {
  RenderOptions o = small(48, 48, 4, 6);
  o.integrator = IntegratorKind::Whitted;
  const RenderResult a = renderScene(loadScene("cornell-whitted"), kCpu, o);
  ASSERT_TRUE(test::allFinite(a.image));
  EXPECT_GT(test::meanOf(a.image).x, 0.01f);
  // Children exist past the first bounce (mirror and glass), and the stream is compacted.
  ASSERT_GE(a.stats.bounces.size(), 2u);
  EXPECT_GT(a.stats.bounces[1].raysIn, 0u);
  o.compaction = "none";
  const RenderResult b = renderScene(loadScene("cornell-whitted"), kCpu, o);
  EXPECT_TRUE(test::bitIdentical(a.image, b.image)) << "the film is fixed point: order-free";
  uint64_t lanes = 0, rays = 0;
  for (const IterationStats& it : b.stats.iterations) lanes += it.lanes;
  for (const BounceStats& d : b.stats.bounces) rays += d.raysIn;
  EXPECT_GT(lanes, rays) << "none keeps dead lanes";
}

TEST(RenderCpu, BadOptionsAreClearErrors) {
  RenderOptions o = small(8, 8, 1);
  o.compaction = "cub";  // needs CUDA memory
  EXPECT_THROW(renderScene(loadScene("cornell"), kCpu, o), std::invalid_argument);
  o.compaction = "no-such";
  EXPECT_THROW(renderScene(loadScene("cornell"), kCpu, o), std::invalid_argument);
  o.compaction = "cpu";
  o.width = 1 << 20, o.height = 1 << 20;
  EXPECT_THROW(renderScene(loadScene("cornell"), kCpu, o), std::invalid_argument);
}

}  // namespace
}  // namespace srt

namespace srt {
namespace {

// The per-frame rebuild: a frame rendered after moving the geometry and rebuilding the
// kd-tree equals the same frame rendered from a tree built once for that pose.
TEST(RenderCpuAnimation, RebuiltFrameEqualsFreshBuildForThatPose) {
  Scene scene = loadScene(srt::test::testDataDir() + "/examples/cornell-orbit.json");
  ASSERT_GT(scene.animationEnd, 0.f);
  RenderOptions o;
  o.width = 40, o.height = 40, o.spp = 2, o.maxDepth = 4;
  const float t = 0.37f * scene.animationEnd;
  Renderer animated(scene, kCpu, o, {}, 0.f);
  const Image first = animated.render(0.f).image;
  const RenderResult moved = animated.render(t);
  EXPECT_EQ(moved.stats.accel.builder, "cpu") << "the frame did not report its rebuild";
  Renderer fresh(scene, kCpu, o, {}, t);
  EXPECT_TRUE(test::bitIdentical(moved.image, fresh.render(t).image));
  EXPECT_FALSE(test::bitIdentical(first, moved.image)) << "the animation moved nothing";
}

}  // namespace
}  // namespace srt
