// The Whitted tracer on the path pool, on the CPU backend: the image is the same bit for bit
// whatever the primitive, payload, schedule and pool size (a pool of one ray included, where
// every glass split waits on a spill stack), and the same as the per-sample bounce loop it
// replaced gave; its memory depends on the pool and the depth, never on resolution or spp.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "primitives/compaction/compaction.h"
#include "tests/render/render_test_util.h"

namespace srt {
namespace {

const Backend kCpu = selectBackend("cpu");

RenderOptions whitted(int w, int h, int spp, int depth) {
  RenderOptions o;
  o.integrator = IntegratorKind::Whitted;
  o.width = w, o.height = h, o.spp = spp, o.maxDepth = depth;
  o.compaction = "cpu";
  return o;
}

uint64_t fnv1a(const Image& img) {
  uint64_t h = 1469598103934665603ull;
  const auto* p = reinterpret_cast<const unsigned char*>(img.pixels.data());
  for (size_t i = 0; i < img.pixels.size() * sizeof(Vec3f); ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

TEST(WhittedPool, ImageIsTheSameForEveryPrimitivePayloadScheduleAndPoolSize) {
  const RenderOptions base = whitted(16, 12, 2, 8);
  const uint32_t pixels = 16 * 12;
  Renderer renderer(loadScene("cornell-whitted"), kCpu, base);
  const RenderResult reference = renderer.render(0.f);
  ASSERT_GT(test::meanOf(reference.image).y, 0.01f);
  ASSERT_GE(reference.stats.bounces.size(), 4u) << "glass and mirror trees several rays deep";

  std::vector<std::string> primitives;  // every primitive that takes streams in host memory
  for (const auto& e : compaction::Registry::global().entries())
    if (e.info.accepts_(MemorySpace::Host)) primitives.push_back(e.info.name);
  ASSERT_GE(primitives.size(), 3u);  // cpu, none, auto at least

  int compared = 0;
  for (const std::string& primitive : primitives)
    for (Payload payload : {Payload::State, Payload::Index})
      for (Schedule schedule : {Schedule::Regenerate, Schedule::Waves})
        for (uint32_t pool : {1u, 97u, pixels - 1, pixels, 3 * pixels, 0u}) {
          // A pool of one ray takes thousands of passes: once per primitive. The primitives
          // beyond cpu and none: the state payload.
          const bool main = primitive == "cpu" || primitive == "none";
          if (pool == 1 &&
              (primitive != "cpu" || payload == Payload::Index || schedule == Schedule::Waves))
            continue;
          if (!main && payload == Payload::Index) continue;
          RenderOptions o = base;
          o.compaction = primitive, o.payload = payload, o.schedule = schedule, o.poolSize = pool;
          const std::string what = primitive + " / " + toString(payload) + " / " +
                                   toString(schedule) + " / pool " + std::to_string(pool);
          RenderResult r;
          try {
            renderer.setOptions(o);
            r = renderer.render(0.f);
          } catch (const std::exception& ex) {
            const auto* info = compaction::Registry::global().find(primitive);
            if (info && info->usesGl()) {  // no GL context here
              std::printf("skipping %s: %s\n", what.c_str(), ex.what());
              continue;
            }
            throw;
          }
          EXPECT_TRUE(test::bitIdentical(reference.image, r.image)) << what;
          ASSERT_EQ(r.stats.bounces.size(), reference.stats.bounces.size()) << what;
          for (size_t d = 0; d < r.stats.bounces.size(); ++d) {
            EXPECT_EQ(r.stats.bounces[d].raysIn, reference.stats.bounces[d].raysIn) << what;
            EXPECT_EQ(r.stats.bounces[d].shadowRays, reference.stats.bounces[d].shadowRays) << what;
          }
          ++compared;
        }
  EXPECT_GE(compared, 2 * 20 + 1 + 8);
}

// Images and per-depth counts the per-sample bounce loop (every ray's children compacted into
// the next bounce's stream, streams as large as the tree's widest level) gave on this build. The
// first image's hash was taken again when spawned rays began to clear the hit point's rounding
// error (offsetOrigin), and all three when rays began to meet triangles by the unit-triangle test
// (other rounding of t and the barycentrics): the counts did not move.
TEST(WhittedPool, SameImageAndCountsAsTheBounceLoopItReplaced) {
  struct Case {
    const char* scene;
    int w, h, spp, depth;
    uint32_t seed;
    uint64_t hash;
    std::vector<uint64_t> raysIn, shadowRays;
  };
  const Case cases[] = {
      {"cornell-whitted",
       40,
       30,
       3,
       8,
       7u,
       0x99852a86e620812eull,
       {3600, 485, 374, 286, 126, 40, 14, 8, 6},
       {4002, 421, 369, 62, 174, 60, 16, 0, 5}},
      {"cornell-whitted",
       33,
       17,
       2,
       3,
       0u,
       0x0004c6d014de3f53ull,
       {1122, 102, 74, 59},
       {832, 96, 72, 10}},
      {"cornell", 24, 20, 2, 5, 1u, 0xcf0c470faf30ce78ull, {960}, {529}},
  };
  for (const Case& c : cases)
    for (uint32_t pool : {0u, 64u}) {
      RenderOptions o = whitted(c.w, c.h, c.spp, c.depth);
      o.seed = c.seed, o.poolSize = pool;
      const RenderResult r = renderScene(loadScene(c.scene), kCpu, o);
      const std::string what = std::string(c.scene) + " pool " + std::to_string(pool);
      EXPECT_EQ(fnv1a(r.image), c.hash) << what;
      ASSERT_EQ(r.stats.bounces.size(), c.raysIn.size()) << what;
      for (size_t d = 0; d < c.raysIn.size(); ++d) {
        EXPECT_EQ(r.stats.bounces[d].raysIn, c.raysIn[d]) << what << " depth " << d;
        EXPECT_EQ(r.stats.bounces[d].shadowRays, c.shadowRays[d]) << what << " depth " << d;
        const uint64_t next = d + 1 < c.raysIn.size() ? c.raysIn[d + 1] : 0;
        EXPECT_EQ(r.stats.bounces[d].raysAlive, next) << what << ": children of depth " << d;
      }
    }
}

// Every (pixel, sample) starts once, and each pass's occupancy adds up to the pool; passes refill
// spilled rays as well as camera rays, so more rays start in a free slot than there are work
// items, and fewer than the rays traced (first children go on in their parent's slot).
TEST(WhittedPool, PassOccupancyAddsUp) {
  RenderOptions o = whitted(16, 12, 4, 8);
  const uint64_t work = 16 * 12 * 4;
  for (const char* primitive : {"cpu", "none"})
    for (Schedule schedule : {Schedule::Regenerate, Schedule::Waves}) {
      o.compaction = primitive, o.schedule = schedule, o.poolSize = 50;
      const RenderStats s = renderScene(loadScene("cornell-whitted"), kCpu, o).stats;
      const std::string what = std::string(primitive) + " / " + toString(schedule);
      ASSERT_GE(s.bounces.size(), 3u) << what;
      EXPECT_EQ(s.bounces[0].raysIn, work) << what;
      uint64_t rays = 0;
      for (const BounceStats& b : s.bounces) rays += b.raysIn;
      uint64_t started = 50;  // the first fill
      for (const IterationStats& it : s.iterations) {
        started += it.regenerated;
        EXPECT_EQ(it.alive + it.regenerated + it.idle, 50u) << what;
      }
      EXPECT_GT(started, work) << what << ": glass splits spill rays that take free slots";
      EXPECT_LT(started, rays) << what;
      EXPECT_EQ(s.iterations.back().alive + s.iterations.back().regenerated, 0u) << what;
    }
}

// The streams cost the same whatever the resolution and sample count, with or without
// compaction: only the film grows with the pixels (its sums, and the mean the image is resolved
// into, kept across frames).
TEST(WhittedPool, StreamMemoryDependsOnlyOnThePoolAndTheDepth) {
  for (const char* primitive : {"cpu", "none"}) {
    auto streamBytes = [&](int w, int h, int spp) {
      RenderOptions o = whitted(w, h, spp, 8);
      o.compaction = primitive, o.poolSize = 4096;
      const size_t before = bytesInUse(MemorySpace::Host);
      Renderer r(loadScene("cornell-whitted"), kCpu, o);
      r.render(0.f);
      const size_t film = size_t(w) * h * (3 * sizeof(unsigned long long) + sizeof(Vec3f));
      return bytesInUse(MemorySpace::Host) - before - film;
    };
    EXPECT_EQ(streamBytes(64, 64, 1), streamBytes(96, 64, 64)) << primitive;  // pools of 4096
  }
  const RenderOptions uhd = whitted(3840, 2160, 64, 8), hd = whitted(1920, 1080, 16, 8);
  EXPECT_EQ(estimateRenderBytes(uhd, 1u << 21) - size_t(3840) * 2160 * 24,
            estimateRenderBytes(hd, 1u << 21) - size_t(1920) * 1080 * 24);
  // 4K at 64 spp: the pool's streams and the film, well under what the per-sample loop needed.
  EXPECT_LT(estimateRenderBytes(uhd, 1u << 21), size_t(2) << 30);
}

// Sets an environment variable for one scope (the integrator reads it when it is made).
struct ScopedEnv {
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }
  const char* name_;
};

// Deferred shadow rays (a stream traced after shading, the light of a ray with no child added
// to the film by finishWhitted) give the image inline shadow rays give, bit for bit, with the
// same counts per depth, whatever the primitive, payload and pool size. (SRT_POOL_LAG only
// changes when a CUDA host reads counters back; here it must merely parse and change nothing.)
TEST(WhittedPool, DeferredShadowRaysAndLagGiveTheSameImage) {
  for (const char* scene : {"cornell-whitted", "cornell"}) {
    const RenderOptions base = whitted(16, 12, 2, 8);
    const RenderResult inlined = renderScene(loadScene(scene), kCpu, base);
    ASSERT_GT(inlined.stats.bounces[0].shadowRays, 0u) << scene;
    for (const char* primitive : {"cpu", "none", "auto"})
      for (Payload payload : {Payload::State, Payload::Index})
        for (uint32_t pool : {97u, 0u})
          for (const char* lag : {"always", "never"}) {
            if ((lag[0] == 'a') != (pool == 0)) continue;  // one of each per pool size
            ScopedEnv deferred("SRT_WHITTED_SHADOWS", "stream"), lagging("SRT_POOL_LAG", lag);
            RenderOptions o = base;
            o.compaction = primitive, o.payload = payload, o.poolSize = pool;
            const RenderResult r = renderScene(loadScene(scene), kCpu, o);
            const std::string what = std::string(scene) + " / " + primitive + " / " +
                                     toString(payload) + " / pool " + std::to_string(pool) +
                                     " / lag " + lag;
            EXPECT_TRUE(test::bitIdentical(inlined.image, r.image)) << what;
            ASSERT_EQ(r.stats.bounces.size(), inlined.stats.bounces.size()) << what;
            for (size_t d = 0; d < r.stats.bounces.size(); ++d) {
              EXPECT_EQ(r.stats.bounces[d].raysIn, inlined.stats.bounces[d].raysIn) << what;
              EXPECT_EQ(r.stats.bounces[d].shadowRays, inlined.stats.bounces[d].shadowRays) << what;
            }
          }
  }
  ScopedEnv bad("SRT_WHITTED_SHADOWS", "sometimes");
  EXPECT_THROW(renderScene(loadScene("cornell-whitted"), kCpu, whitted(4, 4, 1, 2)),
               std::invalid_argument);
}

}  // namespace
}  // namespace srt
