// Stopping a render between passes (StopCondition): the film keeps whole samples, the stats say
// how many, and the image is the one a render of that many samples gives, bit for bit.
#include <gtest/gtest.h>

#include <atomic>

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

// A condition that says stop from its `after`-th question on.
StopCondition stopAfter(int after, int* asked) {
  StopCondition s;
  s.poll = [after, asked] { return ++*asked >= after; };
  return s;
}

struct Mode {
  IntegratorKind integrator;
  const char* compaction;
  Payload payload;
  Schedule schedule;
  uint32_t pool;
};

TEST(RenderStop, StoppedRenderHoldsWholeSamplesOfTheSameImage) {
  const int spp = 12;
  const uint32_t pixels = 24 * 20;
  const Mode modes[] = {
      {IntegratorKind::Path, "cpu", Payload::State, Schedule::Regenerate, 97},
      {IntegratorKind::Path, "cpu", Payload::State, Schedule::Waves, pixels},
      {IntegratorKind::Path, "none", Payload::State, Schedule::Regenerate, 1000},
      {IntegratorKind::Path, "cpu", Payload::Index, Schedule::Regenerate, 3 * pixels},
      {IntegratorKind::Path, "cpu", Payload::State, Schedule::Regenerate, 7},
      {IntegratorKind::Whitted, "cpu", Payload::State, Schedule::Regenerate, 97},
      {IntegratorKind::Whitted, "none", Payload::State, Schedule::Regenerate, 1000},
      {IntegratorKind::Whitted, "cpu", Payload::Index, Schedule::Waves, pixels},
  };
  for (const Mode& m : modes) {
    const std::string what = std::string(toString(m.integrator)) + " / " + m.compaction + " / " +
                             toString(m.payload) + " / " + toString(m.schedule) + " / pool " +
                             std::to_string(m.pool);
    RenderOptions o = small(24, 20, spp, 5);
    o.integrator = m.integrator, o.compaction = m.compaction, o.payload = m.payload;
    o.schedule = m.schedule, o.poolSize = m.pool;
    const Scene scene =
        loadScene(o.integrator == IntegratorKind::Whitted ? "cornell-whitted" : "cornell");
    Renderer renderer(scene, kCpu, o);
    int asked = 0;
    const RenderResult stopped = renderer.render(0.f, {}, stopAfter(3, &asked));
    const RenderStats& s = stopped.stats;
    EXPECT_TRUE(s.stopped) << what;
    EXPECT_GE(s.samplesDone, 1) << what;
    EXPECT_LT(s.samplesDone, spp) << what;
    EXPECT_EQ(s.bounces.at(0).raysIn, uint64_t(pixels) * uint64_t(s.samplesDone)) << what;

    RenderOptions fewer = o;
    fewer.spp = s.samplesDone;
    // The clamp of the fixed-point film depends on spp; no sample of these scenes reaches it.
    const RenderResult reference = Renderer(scene, kCpu, fewer).render(0.f);
    EXPECT_TRUE(test::bitIdentical(reference.image, stopped.image)) << what;
    EXPECT_FALSE(reference.stats.stopped) << what;
    EXPECT_EQ(reference.stats.samplesDone, s.samplesDone) << what;

    // The same renderer renders in full afterwards.
    const RenderResult full = renderer.render(0.f);
    EXPECT_FALSE(full.stats.stopped) << what;
    EXPECT_EQ(full.stats.samplesDone, spp) << what;
  }
}

TEST(RenderStop, FlagSetBeforeTheRenderStillGivesOneWholeSample) {
  RenderOptions o = small(16, 12, 8, 4);
  o.poolSize = 50;  // a pass holds less than a sample
  std::atomic<bool> flag{true};
  StopCondition stop;
  stop.flag = &flag;
  const RenderResult r = Renderer(loadScene("cornell"), kCpu, o).render(0.f, {}, stop);
  EXPECT_TRUE(r.stats.stopped);
  EXPECT_EQ(r.stats.samplesDone, 1);
  o.spp = 1;
  EXPECT_TRUE(test::bitIdentical(renderScene(loadScene("cornell"), kCpu, o).image, r.image));
}

TEST(RenderStop, UnsetConditionRendersEverySample) {
  RenderOptions o = small(16, 12, 3, 4);
  std::atomic<bool> flag{false};
  StopCondition stop;
  stop.flag = &flag;
  const RenderResult r = Renderer(loadScene("cornell"), kCpu, o).render(0.f, {}, stop);
  EXPECT_FALSE(r.stats.stopped);
  EXPECT_EQ(r.stats.samplesDone, 3);
  const std::string json = statsToJson(r.stats);
  EXPECT_NE(json.find("\"samples_done\": 3"), std::string::npos) << json;
  EXPECT_NE(json.find("\"stopped\": false"), std::string::npos) << json;
}

}  // namespace
}  // namespace srt
