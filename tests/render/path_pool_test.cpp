// The path pool on the CPU backend: the image is the same bit for bit whatever the
// schedule, the pool size, the compaction primitive and the payload; the per-depth counts and
// the per-pass occupancy add up; the pool's memory depends on neither resolution nor spp.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <sstream>

#include "primitives/compaction/compaction.h"
#include "renderer/wavefront/stages.h"
#include "tests/render/render_test_util.h"

namespace srt {
namespace {

const Backend kCpu = selectBackend("cpu");

RenderOptions small(int w, int h, int spp, int depth) {
  RenderOptions o;
  o.width = w, o.height = h, o.spp = spp, o.maxDepth = depth;
  o.compaction = "cpu";
  return o;
}

struct Variant {
  std::string compaction;
  Payload payload;
  Schedule schedule;
  uint32_t pool;
};

std::string describe(const Variant& v) {
  return v.compaction + " / " + toString(v.payload) + " / " + toString(v.schedule) + " / pool " +
         std::to_string(v.pool);
}

// Pools of one path, of a prime number of paths (never a multiple of anything), of less than
// one sample's pixels, of exactly one sample, and of every path at once.
TEST(PathPool, ImageIsTheSameForEveryScheduleAndPoolSizeAndPrimitive) {
  const RenderOptions base = small(24, 20, 3, 6);
  const uint32_t pixels = 24 * 20;
  Renderer renderer(loadScene("cornell"), kCpu, base);
  RenderOptions o = base;
  o.schedule = Schedule::Waves;
  o.poolSize = pixels;  // the classic loop: one wave per sample
  renderer.setOptions(o);
  const Image reference = renderer.render(0.f).image;
  ASSERT_GT(test::meanOf(reference).y, 0.01f);

  std::vector<Variant> variants;
  for (const char* compaction : {"cpu", "none"})
    for (Payload payload : {Payload::State, Payload::Index})
      for (Schedule schedule : {Schedule::Waves, Schedule::Regenerate})
        for (uint32_t pool : {97u, pixels - 1, pixels, 3 * pixels})
          variants.push_back({compaction, payload, schedule, pool});
  variants.push_back({"cpu", Payload::State, Schedule::Regenerate, 1u});  // one path at a time
  variants.push_back({"none", Payload::State, Schedule::Regenerate, 1u});
  // Every other primitive that takes host memory (the OpenGL family): a pool that regenerates.
  for (const auto& e : compaction::Registry::global().entries())
    if (e.info.accepts_(MemorySpace::Host) && e.info.name != "cpu" && e.info.name != "none")
      variants.push_back({e.info.name, Payload::State, Schedule::Regenerate, pixels / 2});

  int compared = 0;
  for (const Variant& v : variants) {
    o.compaction = v.compaction, o.payload = v.payload, o.schedule = v.schedule;
    o.poolSize = v.pool;
    RenderResult r;
    try {
      renderer.setOptions(o);
      r = renderer.render(0.f);
    } catch (const std::exception& ex) {
      const auto* info = compaction::Registry::global().find(v.compaction);
      if (info && info->device == compaction::Device::Gl) {  // no GL context here
        std::printf("skipping %s: %s\n", v.compaction.c_str(), ex.what());
        continue;
      }
      throw;
    }
    EXPECT_TRUE(test::bitIdentical(reference, r.image)) << describe(v);
    EXPECT_EQ(r.stats.poolSize, std::min(v.pool, 3 * pixels)) << describe(v);
    ++compared;
  }
  EXPECT_GE(compared, 34);
}

TEST(PathPool, DepthCountsAndPassOccupancyAddUp) {
  RenderOptions o = small(12, 10, 4, 8);
  const uint64_t work = 12 * 10 * 4;
  for (const char* compaction : {"cpu", "none"})
    for (Payload payload : {Payload::State, Payload::Index})
      for (Schedule schedule : {Schedule::Waves, Schedule::Regenerate}) {
        o.compaction = compaction, o.payload = payload, o.schedule = schedule;
        o.poolSize = 50;
        const RenderStats s = renderScene(loadScene("cornell"), kCpu, o).stats;
        const std::string what =
            std::string(compaction) + "/" + toString(payload) + "/" + toString(schedule);
        ASSERT_GE(s.bounces.size(), 2u) << what;
        EXPECT_EQ(s.bounces[0].raysIn, work) << what << ": every (pixel, sample) started once";
        for (size_t d = 0; d + 1 < s.bounces.size(); ++d)
          EXPECT_EQ(s.bounces[d + 1].raysIn, s.bounces[d].raysAlive) << what << " depth " << d;
        EXPECT_EQ(s.bounces.back().raysAlive, 0u) << what;
        // Paths started: the first fill of the pool, then what each pass regenerated.
        uint64_t started = 50;
        for (const IterationStats& it : s.iterations) {
          started += it.regenerated;
          EXPECT_LE(it.alive + it.regenerated + it.idle, 50u) << what;
          EXPECT_EQ(it.alive + it.regenerated + it.idle, 50u) << what;
        }
        EXPECT_EQ(started, work) << what;
        EXPECT_EQ(s.iterations.back().alive + s.iterations.back().regenerated, 0u) << what;
      }
}

// Regeneration keeps the pool full: while work remains every pass launches the whole pool, and
// the render takes fewer passes than waves that wait for the slowest path of each wave.
TEST(PathPool, RegenerationKeepsThePoolFull) {
  RenderOptions o = small(32, 32, 4, 8);
  o.poolSize = 256;
  o.schedule = Schedule::Regenerate;
  const RenderStats regen = renderScene(loadScene("cornell"), kCpu, o).stats;
  o.schedule = Schedule::Waves;
  const RenderStats waves = renderScene(loadScene("cornell"), kCpu, o).stats;
  EXPECT_LT(regen.iterations.size(), waves.iterations.size());
  size_t full = 0;
  for (const IterationStats& it : regen.iterations) full += it.lanes == 256;
  // All but the drain at the end (at most max-depth + 1 passes) run full.
  EXPECT_GE(full + 9, regen.iterations.size());
  size_t wavesFull = 0;
  for (const IterationStats& it : waves.iterations) wavesFull += it.lanes == 256;
  EXPECT_LT(wavesFull, waves.iterations.size() / 2) << "waves shrink as paths die";
}

// The viewer's progressive accumulation: samples [0, 2) and [2, 4) average to samples [0, 4).
TEST(PathPool, FirstSampleContinuesTheSequence) {
  RenderOptions o = small(20, 16, 4, 6);
  const Image all = renderScene(loadScene("cornell"), kCpu, o).image;
  o.spp = 2;
  const Image a = renderScene(loadScene("cornell"), kCpu, o).image;
  o.firstSample = 2;
  const Image b = renderScene(loadScene("cornell"), kCpu, o).image;
  EXPECT_FALSE(test::bitIdentical(a, b)) << "firstSample changed nothing";
  // The viewer's way: one Renderer whose sample range moves on keeps its streams.
  o.firstSample = 0;
  Renderer progressive(loadScene("cornell"), kCpu, o);
  EXPECT_TRUE(test::bitIdentical(a, progressive.render(0.f).image));
  o.firstSample = 2;
  progressive.setOptions(o);
  EXPECT_TRUE(test::bitIdentical(b, progressive.render(0.f).image));
  for (size_t i = 0; i < all.pixels.size(); ++i) {
    const float mean = 0.5f * (a.pixels[i].y + b.pixels[i].y);
    ASSERT_NEAR(all.pixels[i].y, mean, 1e-5f * (1.f + mean)) << "pixel " << i;
  }
}

// The pool's streams cost the same whatever the resolution and sample count: only the film
// grows with the pixels.
TEST(PathPool, StreamMemoryDependsOnlyOnThePoolSize) {
  auto streamBytes = [](int w, int h, int spp) {
    RenderOptions o = small(w, h, spp, 8);
    o.poolSize = 4096;
    const size_t before = bytesInUse(MemorySpace::Host);
    Renderer r(loadScene("cornell"), kCpu, o);
    const size_t film = size_t(w) * h * 3 * sizeof(unsigned long long);
    return bytesInUse(MemorySpace::Host) - before - film;
  };
  const size_t tiny = streamBytes(64, 64, 1), large = streamBytes(512, 384, 4096);
  // (The kd-tree and scene are the same in both; the pool of 4096 paths is the rest.)
  EXPECT_EQ(tiny, large);
  RenderOptions o = small(3840, 2160, 4096, 8);
  EXPECT_EQ(estimateRenderBytes(o, 1u << 21) - size_t(3840) * 2160 * 24,
            estimateRenderBytes(small(1920, 1080, 16, 8), 1u << 21) - size_t(1920) * 1080 * 24);
}

TEST(PathPool, BadPoolOptionsAreClearErrors) {
  RenderOptions o = small(8, 8, 1, 2);
  EXPECT_THROW(parseEnum<Schedule>("sometimes", "--schedule"), std::invalid_argument);
  o.schedule = Schedule::Waves;
  o.traversal = Traversal::Persistent;  // CUDA only
  EXPECT_THROW(renderScene(loadScene("cornell"), kCpu, o), std::invalid_argument);
  o.traversal = Traversal::Standard;
  o.poolSize = (1u << 30) + 1;
  EXPECT_THROW(renderScene(loadScene("cornell"), kCpu, o), std::invalid_argument);
  o.poolSize = 0;
  o.compactEvery = 65;
  EXPECT_THROW(renderScene(loadScene("cornell"), kCpu, o), std::invalid_argument);
  o.compactEvery = 2;
  o.payload = Payload::Index;  // the state never moves: nothing to space out
  EXPECT_THROW(renderScene(loadScene("cornell"), kCpu, o), std::invalid_argument);
}

// --compact-every N: between compactions the dead paths stay in the stream as skipped lanes and
// nothing is refilled. The image, the per-depth counts and the pool's occupancy are those of
// compacting every pass; only one pass in N moves the paths or starts new ones.
TEST(PathPool, SpacedOutCompactionKeepsTheImageAndTheCounts) {
  RenderOptions base = small(24, 20, 3, 6);
  base.compactEvery = 1;  // the reference compacts after every pass
  const uint32_t pixels = 24 * 20;
  const uint64_t work = uint64_t(pixels) * 3;
  Renderer renderer(loadScene("cornell"), kCpu, base);
  const Image reference = renderer.render(0.f).image;
  RenderOptions o = base;
  for (uint32_t every : {2u, 3u, 5u, 0u})  // 0: auto
    for (Schedule schedule : {Schedule::Waves, Schedule::Regenerate})
      for (uint32_t pool : {1u, 97u, pixels}) {
        o.compactEvery = every, o.schedule = schedule, o.poolSize = pool;
        const std::string what = "every " + std::to_string(every) + " / " + toString(schedule) +
                                 " / pool " + std::to_string(pool);
        renderer.setOptions(o);
        const RenderResult r = renderer.render(0.f);
        EXPECT_TRUE(test::bitIdentical(reference, r.image)) << what;
        const RenderStats& s = r.stats;
        EXPECT_EQ(s.compactEvery, every) << what;
        EXPECT_EQ(s.bounces[0].raysIn, work) << what << ": every (pixel, sample) started once";
        for (size_t d = 0; d + 1 < s.bounces.size(); ++d)
          EXPECT_EQ(s.bounces[d + 1].raysIn, s.bounces[d].raysAlive) << what << " depth " << d;
        size_t refills = 0;
        for (const IterationStats& it : s.iterations) {
          EXPECT_EQ(it.alive + it.regenerated + it.idle, pool) << what;
          EXPECT_LE(it.alive, it.lanes) << what;
          refills += it.regenerated > 0;
        }
        // Only the passes that compact refill: at most one in `every` (auto: in 3).
        EXPECT_LE(refills, s.iterations.size() / (every ? every : 1) + 1) << what;
        // auto holds where paths are long: in the closed box most survive a bounce.
        if (every == 0 && pool == pixels) {
          EXPECT_LT(refills + 2, s.iterations.size()) << what;
        }
      }
}

}  // namespace
}  // namespace srt

namespace srt {
namespace {

// Reordering only permutes the stream: the image is the same bit for bit, with every primitive
// that can partition on the CPU.
TEST(PathPool, OctantReorderingChangesNothingButTheOrder) {
  const Backend cpu = selectBackend("cpu");
  RenderOptions o;
  o.width = 24, o.height = 20, o.spp = 3, o.maxDepth = 6;
  o.compaction = "cpu";
  o.payload = Payload::Index;
  o.poolSize = 200;
  Renderer renderer(loadScene("cornell"), cpu, o);
  const Image reference = renderer.render(0.f).image;
  o.reorder = Reorder::Octant;
  for (Schedule schedule : {Schedule::Waves, Schedule::Regenerate}) {
    o.schedule = schedule;
    renderer.setOptions(o);
    const RenderResult r = renderer.render(0.f);
    EXPECT_TRUE(test::bitIdentical(reference, r.image)) << toString(schedule);
    EXPECT_EQ(r.stats.reorder, Reorder::Octant);
  }
  o.payload = Payload::State;  // the state payload moves whole paths: no partition
  EXPECT_THROW(renderer.setOptions(o), std::invalid_argument);
}

// Band orders visit every pixel once, on images whose height is not a multiple of the band and
// on one-row and one-column images.
TEST(PathPool, PixelBandsAreAPermutation) {
  for (auto [w, h] : {std::pair{24, 20}, {7, 5}, {1, 9}, {9, 1}, {1, 1}, {33, 17}})
    for (uint32_t rows : {0u, 1u, 2u, 4u, 5u, 8u, 64u}) {
      PathSource src;
      src.camera.width = w, src.camera.height = h;
      src.numPixels = uint32_t(w * h);
      src.bandRows = rows;
      std::vector<int> seen(src.numPixels, 0);
      for (uint32_t i = 0; i < src.numPixels; ++i) {
        const uint32_t p = pixelOfWork(src, i);
        ASSERT_LT(p, src.numPixels) << w << "x" << h << " bands " << rows;
        ++seen[p];
      }
      EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), int(src.numPixels))
          << w << "x" << h << " bands " << rows;
    }
  PathSource src;  // bands of 4: the first 8 work items are two columns of a band
  src.camera.width = 10, src.camera.height = 6, src.numPixels = 60, src.bandRows = 4;
  EXPECT_EQ(pixelOfWork(src, 1), 10u);
  EXPECT_EQ(pixelOfWork(src, 4), 1u);
  EXPECT_EQ(pixelOfWork(src, 41), 50u);  // the last band has two rows
}

TEST(PathPool, PixelBandsChangeNothingButTheOrder) {
  RenderOptions o = small(23, 19, 2, 5);
  o.pixelBands = 0;
  Renderer renderer(loadScene("cornell"), kCpu, o);
  const Image reference = renderer.render(0.f).image;
  for (uint32_t rows : {1u, 4u, 7u, 32u}) {
    o.pixelBands = rows;
    renderer.setOptions(o);
    EXPECT_TRUE(test::bitIdentical(reference, renderer.render(0.f).image)) << rows;
  }
}

}  // namespace
}  // namespace srt

namespace srt {
namespace {

// -v under regenerate: passes mix depths, so the bounce table gives counts and a pass table the
// stage times (none of them all zero) and the pool's occupancy, long renders in grouped rows.
TEST(PathPool, VerboseTableGivesPerPassTimesUnderRegenerate) {
  for (IntegratorKind integrator : {IntegratorKind::Path, IntegratorKind::Whitted}) {
    RenderOptions o = small(16, 12, 4, 6);
    o.integrator = integrator, o.poolSize = 30, o.schedule = Schedule::Regenerate;
    const RenderStats s =
        renderScene(loadScene(integrator == IntegratorKind::Path ? "cornell" : "cornell-whitted"),
                    kCpu, o)
            .stats;
    const std::string table = statsTable(s);
    ASSERT_GT(s.iterations.size(), 32u);
    EXPECT_EQ(table.find("compact ms  (xfer ms)"), std::string::npos) << table;
    const size_t header = table.find("pass(es)");
    ASSERT_NE(header, std::string::npos) << table;
    const size_t total = table.find("total/mean");
    ASSERT_NE(total, std::string::npos) << table;
    EXPECT_NE(table.find("\n0-"), std::string::npos) << "grouped rows: " << table;
    // total/mean lanes alive regenerated idle trace shade shadow compact refill idle
    std::istringstream row(table.substr(total + 10));
    double lanes, alive, regenerated, idle, trace, shade;
    row >> lanes >> alive >> regenerated >> idle >> trace >> shade;
    EXPECT_GT(lanes, 0) << table;
    EXPECT_GT(trace, 0) << table;
    EXPECT_GT(shade, 0) << table;
  }
}

}  // namespace
}  // namespace srt
