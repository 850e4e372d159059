// Renders on the CUDA backend only: the flag count, the device pool's invariants over schedules,
// pool sizes and traversals, CPU vs CUDA agreement within statistical tolerance, the GPU kd-tree
// builder and a stopped render. The cases every backend shares are in render_backend_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>

#include "primitives/compaction/compaction.h"
#include "renderer/wavefront/stages.h"
#include "tests/render/render_test_util.h"
#include "tests/test_scenes_dir.h"

namespace srt {
namespace {

#define REQUIRE_CUDA() \
  if (!cudaDeviceAvailable()) GTEST_SKIP() << "no CUDA device: " << cudaDeviceDescription()

// The flag count behind the pool's statistics (and the hold passes of --compact-every): CUDA and
// the CPU agree on empty, tiny and odd-sized arrays, aligned or not, all set or none set.
TEST(RenderGpu, CountFlagsMatchesTheCpu) {
  REQUIRE_CUDA();
  const Backend cuda = selectBackend("cuda"), cpu = selectBackend("cpu");
  std::mt19937 rng(7);
  Buffer<uint32_t> counter(MemorySpace::Cuda, 1);
  for (uint32_t n : {0u, 1u, 15u, 16u, 17u, 4095u, 4096u, 4097u, 1000003u})
    for (uint32_t offset : {0u, 3u})
      for (int fill : {0, 1, 2}) {  // none, all, random bytes (any non-zero byte counts)
        std::vector<uint8_t> flags(n + offset);
        for (auto& f : flags) f = fill == 2 ? uint8_t(rng() % 3 == 0 ? 0 : rng() % 256) : fill;
        uint32_t expected = 0;
        countFlags(cpu, flags.data() + offset, n, &expected);
        const Buffer<uint8_t> device(MemorySpace::Cuda, flags);
        countFlags(cuda, device.data() + offset, n, counter.data());
        EXPECT_EQ(counter.download()[0], expected) << "n " << n << " offset " << offset;
        if (fill == 1) {
          EXPECT_EQ(expected, n);
        }
      }
}

// The path pool's invariant on the device: schedules, pool sizes (one that is not a multiple of a
// block or a warp, one smaller than a sample's pixels, the default) and payloads change nothing.
TEST(RenderGpu, ImageDoesNotDependOnScheduleOrPoolSize) {
  REQUIRE_CUDA();
  const Backend cuda = selectBackend("cuda");
  RenderOptions o = test::options(96, 64, 3, 8);
  o.compaction = "cub";
  o.schedule = Schedule::Waves;
  o.poolSize = 96 * 64;
  Renderer renderer(loadScene("cornell"), cuda, o);
  const Image reference = renderer.render(0.f).image;
  int compared = 0;
  for (const auto& e : compaction::Registry::global().entries()) {
    if (e.info.device == compaction::Device::Gl || !e.info.accepts_(MemorySpace::Cuda)) continue;
    for (Payload payload : {Payload::State, Payload::Index})
      for (Schedule schedule : {Schedule::Waves, Schedule::Regenerate})
        for (uint32_t pool : {1000u, 4097u, 0u}) {
          o.compaction = e.info.name, o.payload = payload, o.schedule = schedule;
          o.poolSize = pool;
          renderer.setOptions(o);
          const RenderResult r = renderer.render(0.f);
          EXPECT_TRUE(test::bitIdentical(reference, r.image))
              << e.info.name << " / " << toString(payload) << " / " << toString(schedule)
              << " / pool " << pool;
          EXPECT_EQ(r.stats.bounces[0].raysIn, uint64_t(96 * 64 * 3)) << e.info.name;
          ++compared;
        }
  }
  EXPECT_GE(compared, 48);
}

// The per-depth counts the shading stage makes (one match a warp, the first lane of each depth
// adding for its peers) add up on the device: every (pixel, sample) enters at depth 0, the paths
// that go on from depth d are the rays in at d + 1, their sum is the survivors the passes'
// compactions and flag counts found, and payloads, schedules and pool sizes (one not a multiple
// of a warp) change no count.
TEST(RenderGpu, DepthCountsAddUpOnTheDevice) {
  REQUIRE_CUDA();
  const Backend cuda = selectBackend("cuda");
  RenderOptions o = test::options(96, 64, 3, 8);
  Renderer renderer(loadScene("cornell"), cuda, o);
  const RenderStats reference = renderer.render(0.f).stats;
  ASSERT_GE(reference.bounces.size(), 3u);
  EXPECT_GT(reference.bounces[1].raysIn, 0u);
  EXPECT_EQ(reference.bounces[0].raysIn, uint64_t(96 * 64 * 3));
  for (Payload payload : {Payload::State, Payload::Index})
    for (Schedule schedule : {Schedule::Waves, Schedule::Regenerate})
      for (uint32_t pool : {4097u, 0u}) {
        o.payload = payload, o.schedule = schedule, o.poolSize = pool;
        renderer.setOptions(o);
        const RenderStats s = renderer.render(0.f).stats;
        const std::string what = std::string(toString(payload)) + " / " + toString(schedule) +
                                 " / pool " + std::to_string(pool);
        // Waves time their passes by depth, and a wave's last, empty pass may add a depth
        // with no rays: compare counts, not the lengths.
        const size_t depths = std::max(s.bounces.size(), reference.bounces.size());
        const auto at = [](const RenderStats& r, size_t d) {
          return d < r.bounces.size() ? r.bounces[d] : BounceStats{};
        };
        uint64_t wentOn = 0, kept = 0, shadows = 0;
        for (size_t d = 0; d < depths; ++d) {
          const BounceStats b = at(s, d), ref = at(reference, d);
          EXPECT_EQ(b.raysAlive, at(s, d + 1).raysIn) << what << " depth " << d;
          EXPECT_LE(b.shadowRays, b.raysIn) << what << " depth " << d;
          EXPECT_EQ(b.raysIn, ref.raysIn) << what << " depth " << d;
          EXPECT_EQ(b.shadowRays, ref.shadowRays) << what << " depth " << d;
          wentOn += b.raysAlive, shadows += b.shadowRays;
        }
        for (const IterationStats& it : s.iterations) kept += it.alive;
        EXPECT_EQ(wentOn, kept) << what;
        EXPECT_GT(shadows, 0u) << what;
      }
}

// The Whitted tracer on the device's pool: every primitive, payload, schedule and pool size (one
// small enough that glass splits wait on the spill stacks) gives the same image, bit for bit.
TEST(RenderGpu, WhittedImageDoesNotDependOnPrimitiveScheduleOrPoolSize) {
  REQUIRE_CUDA();
  const Backend cuda = selectBackend("cuda");
  RenderOptions o = test::options(96, 64, 3, 8);
  o.integrator = IntegratorKind::Whitted;
  o.compaction = "cub";
  Renderer renderer(loadScene("cornell-whitted"), cuda, o);
  const RenderResult reference = renderer.render(0.f);
  ASSERT_GE(reference.stats.bounces.size(), 4u);
  int compared = 0;
  std::vector<std::string> primitives = {"none", "auto"};
  for (const auto& e : compaction::Registry::global().entries())
    if (e.info.device == compaction::Device::Cuda) primitives.push_back(e.info.name);
  for (const std::string& primitive : primitives)
    for (Payload payload : {Payload::State, Payload::Index})
      for (Schedule schedule : {Schedule::Waves, Schedule::Regenerate})
        for (uint32_t pool : {97u, 4097u, 0u}) {
          o.compaction = primitive, o.payload = payload, o.schedule = schedule;
          o.poolSize = pool;
          renderer.setOptions(o);
          const RenderResult r = renderer.render(0.f);
          const std::string what = primitive + " / " + toString(payload) + " / " +
                                   toString(schedule) + " / pool " + std::to_string(pool);
          EXPECT_TRUE(test::bitIdentical(reference.image, r.image)) << what;
          ASSERT_EQ(r.stats.bounces.size(), reference.stats.bounces.size()) << what;
          for (size_t d = 0; d < r.stats.bounces.size(); ++d)
            EXPECT_EQ(r.stats.bounces[d].raysIn, reference.stats.bounces[d].raysIn) << what;
          ++compared;
        }
  EXPECT_GE(compared, 9 * 12);
}

// Whitted's shadow rays inline or deferred (SRT_WHITTED_SHADOWS=stream, the CUDA default:
// traced after shading by the persistent shadow kernel) and either read-back schedule
// (SRT_POOL_LAG) keep the image bit for bit. (The environment is read when the integrator is made:
// one renderer per setting.)
TEST(RenderGpu, WhittedDeferredShadowsAndLagKeepTheImage) {
  REQUIRE_CUDA();
  const Backend cuda = selectBackend("cuda");
  RenderOptions o = test::options(96, 64, 2, 8);
  o.integrator = IntegratorKind::Whitted;
  const RenderResult reference = renderScene(loadScene("cornell-whitted"), cuda, o);
  for (const char* shadows : {"inline", "stream"})
    for (const char* lag : {"always", "never"})
      for (uint32_t pool : {4097u, 0u})
        for (const char* primitive : {"auto", "none"}) {
          setenv("SRT_WHITTED_SHADOWS", shadows, 1);
          setenv("SRT_POOL_LAG", lag, 1);
          o.poolSize = pool, o.compaction = primitive;
          const RenderResult r = renderScene(loadScene("cornell-whitted"), cuda, o);
          unsetenv("SRT_WHITTED_SHADOWS");
          unsetenv("SRT_POOL_LAG");
          const std::string what = std::string(shadows) + " / lag " + lag + " / pool " +
                                   std::to_string(pool) + " / " + primitive;
          EXPECT_TRUE(test::bitIdentical(reference.image, r.image)) << what;
          ASSERT_EQ(r.stats.bounces.size(), reference.stats.bounces.size()) << what;
          for (size_t d = 0; d < r.stats.bounces.size(); ++d)
            EXPECT_EQ(r.stats.bounces[d].shadowRays, reference.stats.bounces[d].shadowRays) << what;
        }
}

// The persistent-thread traversal finds the same hits, so the same image, in every pool mode;
// octant reordering only permutes the stream.
TEST(RenderGpu, PersistentTraversalAndReorderingKeepTheImage) {
  REQUIRE_CUDA();
  const Backend cuda = selectBackend("cuda");
  RenderOptions o = test::options(96, 64, 3, 8);
  o.compaction = "cub";
  Renderer renderer(loadScene("cornell"), cuda, o);
  const Image reference = renderer.render(0.f).image;
  o.traversal = Traversal::Persistent;
  for (const char* compaction : {"cub", "none", "tile-atomic"})
    for (Schedule schedule : {Schedule::Waves, Schedule::Regenerate}) {
      o.compaction = compaction, o.schedule = schedule;
      o.poolSize = 5000;
      renderer.setOptions(o);
      EXPECT_TRUE(test::bitIdentical(reference, renderer.render(0.f).image))
          << compaction << " / " << toString(schedule);
    }
  // Spaced-out compaction (--compact-every): dead lanes between compactions, with both traversals.
  for (Traversal traversal : {Traversal::Standard, Traversal::Persistent})
    for (uint32_t every : {2u, 3u, 0u}) {  // 0: auto
      o.compaction = "lookback", o.schedule = Schedule::Regenerate, o.traversal = traversal;
      o.compactEvery = every;
      renderer.setOptions(o);
      EXPECT_TRUE(test::bitIdentical(reference, renderer.render(0.f).image))
          << "compact every " << every << " / " << toString(traversal);
    }
  o.compactEvery = 1;
  o.payload = Payload::Index;
  o.reorder = Reorder::Octant;
  for (Traversal traversal : {Traversal::Standard, Traversal::Persistent}) {
    o.compaction = "lookback", o.traversal = traversal;
    renderer.setOptions(o);
    EXPECT_TRUE(test::bitIdentical(reference, renderer.render(0.f).image)) << toString(traversal);
  }
}

TEST(RenderGpu, CudaAndCpuAgreeWithinNoise) {
  REQUIRE_CUDA();
  RenderOptions o = test::options(64, 64, 64, 8);
  const Image gpu = renderScene(loadScene("cornell"), selectBackend("cuda"), o).image;
  o.seed = 1;  // independent noise: the comparison must hold statistically, not by luck
  const Image cpu = renderScene(loadScene("cornell"), selectBackend("cpu"), o).image;
  const auto a = test::blockMeans(gpu, 16), b = test::blockMeans(cpu, 16);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_NEAR(a[i].x, b[i].x, 0.08f * (b[i].x + 0.02f)) << "block " << i;
    EXPECT_NEAR(a[i].y, b[i].y, 0.08f * (b[i].y + 0.02f)) << "block " << i;
  }
  const Vec3f ma = test::meanOf(gpu), mb = test::meanOf(cpu);
  EXPECT_NEAR(ma.y, mb.y, 0.02f * mb.y);
}

TEST(RenderGpu, WhittedAgreesWithCpu) {
  REQUIRE_CUDA();
  RenderOptions o = test::options(64, 64, 16, 6);
  o.integrator = IntegratorKind::Whitted;
  const Image gpu = renderScene(loadScene("cornell-whitted"), selectBackend("cuda"), o).image;
  const Image cpu = renderScene(loadScene("cornell-whitted"), selectBackend("cpu"), o).image;
  const Vec3f ma = test::meanOf(gpu), mb = test::meanOf(cpu);
  EXPECT_NEAR(ma.y, mb.y, 0.02f * mb.y);
}

}  // namespace
}  // namespace srt

namespace srt {
namespace {

// The GPU kd-tree build (Zhou et al.) in the renderer: a rebuilt frame equals a fresh build for
// that pose, and the image agrees with the CPU builder's within noise.
TEST(RenderGpuAnimation, GpuBuiltTreeRendersLikeTheCpuOne) {
  REQUIRE_CUDA();
  const Backend cuda = selectBackend("cuda");
  Scene scene = loadScene(srt::test::testDataDir() + "/examples/cornell-orbit.json");
  RenderOptions o;
  o.width = 96, o.height = 96, o.spp = 16, o.maxDepth = 6;
  AccelOptions gpu;
  gpu.builder = "gpu";
  gpu.rebuildTreeStats = true;  // a rebuilt frame's tree figures are computed only when asked
  const float t = 0.61f * scene.animationEnd;
  Renderer animated(scene, cuda, o, gpu, 0.f);
  animated.render(0.f);
  const RenderResult moved = animated.render(t);
  EXPECT_EQ(moved.stats.accel.builder, "gpu");
  EXPECT_GT(moved.stats.accel.tree.nodes, 1u);
  Renderer fresh(scene, cuda, o, gpu, t);
  EXPECT_TRUE(test::bitIdentical(moved.image, fresh.render(t).image));
  Renderer cpuBuilt(scene, cuda, o, {}, t);
  const Image ref = cpuBuilt.render(t).image;
  EXPECT_NEAR(test::meanOf(moved.image).y, test::meanOf(ref).y, 0.01f * test::meanOf(ref).y);
}

}  // namespace
}  // namespace srt

namespace srt {
namespace {

// A StopCondition on the device's lagged loop (the host harvests a pass late): whole samples, the
// image of a render of that many samples.
TEST(RenderGpuStop, StoppedRenderHoldsWholeSamplesOfTheSameImage) {
  REQUIRE_CUDA();
  const Backend cuda = selectBackend("cuda");
  RenderOptions o = test::options(96, 64, 16, 6);
  for (Schedule schedule : {Schedule::Regenerate, Schedule::Waves})
    for (uint32_t pool : {1000u, 0u}) {
      o.compaction = "lookback", o.schedule = schedule, o.poolSize = pool;
      Renderer renderer(loadScene("cornell"), cuda, o);
      int asked = 0;
      StopCondition stop;
      stop.poll = [&asked] { return ++asked >= 3; };
      const RenderResult r = renderer.render(0.f, {}, stop);
      const std::string what = std::string(toString(schedule)) + " / pool " + std::to_string(pool);
      EXPECT_GE(r.stats.samplesDone, 1) << what;
      EXPECT_EQ(r.stats.stopped, r.stats.samplesDone < 16) << what;
      RenderOptions fewer = o;
      fewer.spp = r.stats.samplesDone;
      EXPECT_TRUE(test::bitIdentical(renderScene(loadScene("cornell"), cuda, fewer).image, r.image))
          << what;
    }
}

}  // namespace
}  // namespace srt
