// A render split by sample ranges, on the CPU backend: the films of the parts, summed, are the
// film of the whole render bit for bit (both integrators, uneven splits, more parts than samples),
// the statistics add up to the whole render's, and the split itself covers the range exactly.
#include <gtest/gtest.h>

#include <numeric>

#include "renderer/multi_device.h"
#include "tests/render/render_test_util.h"
#include "tests/test_scenes_dir.h"

namespace srt {
namespace {

const Backend kCpu = selectBackend("cpu");

RenderOptions small(IntegratorKind integrator, int spp) {
  RenderOptions o;
  o.integrator = integrator;
  o.width = 23, o.height = 17;  // not a multiple of anything
  o.spp = spp;
  o.maxDepth = 5;
  o.compaction = "cpu";
  return o;
}

// Every sample exactly once, in order, parts differing by at most one sample.
void expectCovers(const std::vector<SampleRange>& parts, uint32_t first, int spp, int n) {
  ASSERT_EQ(int(parts.size()), n);
  uint32_t next = first;
  int smallest = spp, largest = 0;
  for (const SampleRange& p : parts) {
    EXPECT_EQ(p.first, next);
    next += uint32_t(p.count);
    smallest = std::min(smallest, p.count);
    largest = std::max(largest, p.count);
  }
  EXPECT_EQ(next, first + uint32_t(spp));
  EXPECT_LE(largest - smallest, 1);
}

TEST(SplitSamples, CoversTheRangeInBalancedParts) {
  expectCovers(splitSamples(0, 16, 2), 0, 16, 2);
  expectCovers(splitSamples(0, 17, 2), 0, 17, 2);  // not a multiple of the parts
  expectCovers(splitSamples(5, 7, 3), 5, 7, 3);    // starting past 0 (a viewer's frame)
  expectCovers(splitSamples(0, 1, 1), 0, 1, 1);
  expectCovers(splitSamples(0, 8, 8), 0, 8, 8);  // one sample each
  EXPECT_EQ(splitSamples(0, 17, 2).front(), (SampleRange{0, 9}));
}

TEST(SplitSamples, FewerSamplesThanPartsLeavesPartsEmpty) {
  const auto parts = splitSamples(0, 2, 5);
  expectCovers(parts, 0, 2, 5);
  EXPECT_EQ(parts[2].count, 0);
  EXPECT_EQ(parts[4].count, 0);
  EXPECT_THROW(splitSamples(0, 4, 0), std::invalid_argument);
}

// Two Renderers over [0, a) and [a, spp) give films whose sum resolves to the full render's
// image, bit for bit, with different pool sizes in the two parts.
void expectSumOfTwoRangesIsTheWhole(IntegratorKind integrator) {
  const RenderOptions whole = small(integrator, 5);
  Renderer full(loadScene("cornell"), kCpu, whole);
  const RenderResult reference = full.render(0.f);
  ASSERT_GT(test::meanOf(reference.image).y, 0.01f);

  RenderOptions first = partOptions(whole, {0, 2}), second = partOptions(whole, {2, 3});
  first.poolSize = 101;  // prime: the parts' pools differ from each other and from the whole's
  second.poolSize = 1000;
  Renderer a(loadScene("cornell"), kCpu, first), b(loadScene("cornell"), kCpu, second);
  const RenderResult ra = a.render(0.f), rb = b.render(0.f);
  std::vector<unsigned long long> film = a.filmSums();
  addFilm(film, b.filmSums());
  EXPECT_EQ(film, full.filmSums());
  const Image summed =
      resolveFilmSums(film, whole.width, whole.height, ra.stats.samplesDone + rb.stats.samplesDone);
  EXPECT_TRUE(test::bitIdentical(reference.image, summed));
  // A part alone is another image: the test can fail.
  EXPECT_FALSE(test::bitIdentical(reference.image, ra.image));
}

TEST(SplitRender, PathTracerRangesSumToTheWholeRender) {
  expectSumOfTwoRangesIsTheWhole(IntegratorKind::Path);
}

TEST(SplitRender, WhittedRangesSumToTheWholeRender) {
  expectSumOfTwoRangesIsTheWhole(IntegratorKind::Whitted);
}

TEST(SplitRender, FilmClampCannotBeSizedForFewerSamplesThanRendered) {
  RenderOptions o = small(IntegratorKind::Path, 4);
  o.filmSamples = 3;
  EXPECT_THROW(Renderer(loadScene("cornell"), kCpu, o), std::invalid_argument);
}

// The parts on their own host threads, as --devices runs them on GPUs.
void expectMultiPartRenderIsTheWhole(IntegratorKind integrator, int spp, int parts) {
  const RenderOptions whole = small(integrator, spp);
  Renderer full(loadScene("cornell"), kCpu, whole);
  const RenderResult reference = full.render(0.f);
  MultiDeviceRenderer split(loadScene("cornell"), kCpu, whole, {}, 0.f,
                            std::vector<int>(size_t(parts), 0));
  int progressCalls = 0, lastDone = 0;
  const RenderResult r = split.render(0.f, [&](int done, int total, uint64_t) {
    ++progressCalls;
    EXPECT_EQ(total, spp);
    lastDone = done;
  });
  const std::string what = std::string(toString(integrator)) + ", " + std::to_string(spp) +
                           " spp over " + std::to_string(parts) + " parts";
  EXPECT_TRUE(test::bitIdentical(reference.image, r.image)) << what;
  EXPECT_EQ(split.filmSums(), full.filmSums()) << what;
  EXPECT_EQ(split.parts(), std::min(spp, parts)) << what;
  EXPECT_GT(progressCalls, 0) << what;
  EXPECT_EQ(lastDone, spp) << what;
  // Every path is the same whichever part traced it: the rays per depth add up exactly.
  EXPECT_EQ(r.stats.samplesDone, spp) << what;
  EXPECT_EQ(r.stats.spp, spp) << what;
  EXPECT_FALSE(r.stats.stopped) << what;
  EXPECT_EQ(r.stats.totalRays(), reference.stats.totalRays()) << what;
  ASSERT_EQ(r.stats.bounces.size(), reference.stats.bounces.size()) << what;
  for (size_t d = 0; d < r.stats.bounces.size(); ++d) {
    EXPECT_EQ(r.stats.bounces[d].raysIn, reference.stats.bounces[d].raysIn)
        << what << " depth " << d;
    EXPECT_EQ(r.stats.bounces[d].shadowRays, reference.stats.bounces[d].shadowRays) << what;
  }
}

TEST(MultiDeviceRenderer, CpuPartsGiveTheWholeRender) {
  expectMultiPartRenderIsTheWhole(IntegratorKind::Path, 4, 2);
  expectMultiPartRenderIsTheWhole(IntegratorKind::Path, 5, 3);  // uneven
  expectMultiPartRenderIsTheWhole(IntegratorKind::Path, 1, 2);  // one part has nothing to do
  expectMultiPartRenderIsTheWhole(IntegratorKind::Path, 3, 1);  // one part: the split machinery
  expectMultiPartRenderIsTheWhole(IntegratorKind::Whitted, 3, 2);
}

TEST(MultiDeviceRenderer, RendersAnimationFramesLikeOneRenderer) {
  const std::string path = test::testDataDir() + "/examples/cornell-orbit.json";
  const RenderOptions o = small(IntegratorKind::Path, 3);
  Renderer full(loadScene(path), kCpu, o);
  MultiDeviceRenderer split(loadScene(path), kCpu, o, {}, 0.f, {0, 0});
  for (float t : {0.f, 0.7f}) {  // the second frame moves the geometry and rebuilds the tree
    const Image a = full.render(t).image, b = split.render(t).image;
    EXPECT_TRUE(test::bitIdentical(a, b)) << "time " << t;
  }
}

TEST(MultiDeviceRenderer, StopReachesEveryPart) {
  RenderOptions o = small(IntegratorKind::Path, 6);
  o.poolSize = 50;  // a pass begins less than one sample
  MultiDeviceRenderer split(loadScene("cornell"), kCpu, o, {}, 0.f, {0, 0});
  StopCondition stop;
  stop.poll = [] { return true; };  // at once: each part finishes the samples it began
  const RenderResult r = split.render(0.f, {}, stop);
  EXPECT_TRUE(r.stats.stopped);
  EXPECT_LT(r.stats.samplesDone, 6);
  EXPECT_GT(r.stats.samplesDone, 0);
  EXPECT_TRUE(test::allFinite(r.image));
}

TEST(MultiDeviceRenderer, BadSettingsFailBeforeAnyPartStarts) {
  RenderOptions o = small(IntegratorKind::Path, 2);
  o.compaction = "no-such-primitive";
  EXPECT_THROW(MultiDeviceRenderer(loadScene("cornell"), kCpu, o, {}, 0.f, {0, 0}),
               std::invalid_argument);
  EXPECT_THROW(
      MultiDeviceRenderer(loadScene("cornell"), kCpu, small(IntegratorKind::Path, 2), {}, 0.f, {}),
      std::invalid_argument);
  o.compaction = "gl-roger";  // one GL context per process: refused before any GL work
  try {
    MultiDeviceRenderer(loadScene("cornell"), kCpu, o, {}, 0.f, {0, 0});
    ADD_FAILURE() << "an OpenGL primitive was accepted in two parts";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("OpenGL"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace srt
