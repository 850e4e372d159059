// Medians and spreads over repeats, per-bounce summaries, and the --compaction list parser.
#include <gtest/gtest.h>

#include <algorithm>

#include "apps/profile/compaction_list.h"
#include "apps/profile/profile_stats.h"
#include "primitives/compaction/compaction.h"

namespace srt::profile {
namespace {

TEST(ProfileStats, SpreadOfOddAndEvenSamples) {
  const Spread s = spreadOf({3, 1, 2});
  EXPECT_EQ(s.count, 3u);
  EXPECT_DOUBLE_EQ(s.median, 2);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 3);
  EXPECT_DOUBLE_EQ(s.q1, 1.5);
  EXPECT_DOUBLE_EQ(s.q3, 2.5);
  const Spread e = spreadOf({10, 4, 8, 6});
  EXPECT_DOUBLE_EQ(e.median, 7);
  EXPECT_DOUBLE_EQ(e.q1, 5.5);
  EXPECT_DOUBLE_EQ(e.q3, 8.5);
}

TEST(ProfileStats, EmptyAndNonFiniteSamples) {
  const Spread s = spreadOf({});
  EXPECT_EQ(s.count, 0u);
  EXPECT_TRUE(std::isnan(s.median));
  const Spread n = spreadOf({NAN, 5, INFINITY});
  EXPECT_EQ(n.count, 1u);
  EXPECT_DOUBLE_EQ(n.median, 5);
}

RenderStats run(double seconds, std::vector<double> compactionMs, uint64_t bytesPerBounce) {
  RenderStats s;
  s.renderSeconds = seconds;
  for (size_t d = 0; d < compactionMs.size(); ++d) {
    BounceStats& b = s.bounce(d);
    b.raysIn = 100 >> d;
    b.raysAlive = 50 >> d;
    b.compactionMs = compactionMs[d];
    b.traceMs = 1.0 + d;
    b.compactionBytes = bytesPerBounce;
  }
  return s;
}

TEST(ProfileStats, SummaryOverRepeats) {
  // Three repeats; the third stopped a bounce early (the summary keeps depth 2 from the others).
  const PrimitiveSummary p = summarize(
      {run(0.010, {1, 2, 3}, 1000), run(0.030, {3, 4, 5}, 1000), run(0.020, {2, 3}, 1000)});
  EXPECT_DOUBLE_EQ(p.renderMs.median, 20);
  EXPECT_DOUBLE_EQ(p.renderMs.min, 10);
  EXPECT_DOUBLE_EQ(p.renderMs.max, 30);
  ASSERT_EQ(p.bounces.size(), 3u);
  EXPECT_DOUBLE_EQ(p.bounces[0].compactionMs.median, 2);
  EXPECT_EQ(p.bounces[2].compactionMs.count, 2u);
  EXPECT_DOUBLE_EQ(p.bounces[2].compactionMs.median, 4);
  EXPECT_EQ(p.bounces[1].raysIn, 50u);
  EXPECT_EQ(p.compactionBytes, 3000u);
  EXPECT_DOUBLE_EQ(p.compactionMs.median, 6);  // per-run sums 6, 12, 5
  EXPECT_NEAR(p.gbPerSecond, 3000.0 / (6e-3) / 1e9, 1e-12);
  EXPECT_TRUE(p.iterations.empty());
}

TEST(ProfileStats, NoBytesMeansNoBandwidth) {
  const PrimitiveSummary p = summarize({run(0.01, {1}, 0)});
  EXPECT_EQ(p.compactionBytes, 0u);
  EXPECT_TRUE(std::isnan(p.gbPerSecond));
  EXPECT_EQ(summarize({}).bounces.size(), 0u);
}

TEST(ProfileStats, IterationsTakeSpreadsOfTimes) {
  RenderStats a, b;
  a.iterations = {{64, 40, 24, 0, 1, 2, 3, 4, 5}};
  b.iterations = {{64, 40, 24, 0, 3, 2, 3, 4, 5}, {64, 10, 0, 54, 1, 1, 1, 1, 1}};
  const PrimitiveSummary p = summarize({a, b});
  ASSERT_EQ(p.iterations.size(), 2u);
  EXPECT_EQ(p.iterations[0].counts.alive, 40u);
  EXPECT_DOUBLE_EQ(p.iterations[0].traceMs.median, 2);
  EXPECT_DOUBLE_EQ(p.iterations[0].traceMs.min, 1);  // the spread over the runs, for the CSV
  EXPECT_DOUBLE_EQ(p.iterations[0].traceMs.max, 3);
  EXPECT_EQ(p.iterations[1].traceMs.count, 1u);  // only b reached the second pass
  EXPECT_DOUBLE_EQ(p.iterations[1].traceMs.median, 1);
}

TEST(ProfileStats, PassTimesWhenBouncesHaveNone) {
  // The regenerate schedule: counts per depth, times per pass only.
  RenderStats r;
  r.renderSeconds = 0.01;
  r.bounce(0).raysIn = 64;
  r.bounce(1).raysIn = 32;
  IterationStats pass;
  pass.traceMs = 2, pass.compactionMs = 0.5, pass.compactionBytes = 4000;
  r.iterations = {pass, pass};
  const PrimitiveSummary p = summarize({r});
  EXPECT_FALSE(p.bounceTimes);
  ASSERT_EQ(p.bounces.size(), 2u);
  EXPECT_EQ(p.bounces[1].raysIn, 32u);
  EXPECT_TRUE(std::isnan(p.bounces[0].traceMs.median));  // not measured, not zero
  EXPECT_DOUBLE_EQ(p.traceMs.median, 4);
  EXPECT_DOUBLE_EQ(p.compactionMs.median, 1);
  EXPECT_EQ(p.compactionBytes, 8000u);
  EXPECT_NEAR(p.gbPerSecond, 8000.0 / 1e-3 / 1e9, 1e-12);
}

const Backend kCpu{};

TEST(CompactionList, NamesAndBaseline) {
  EXPECT_EQ(parseCompactionList("cpu", kCpu), (std::vector<std::string>{"cpu", "none"}));
  EXPECT_EQ(parseCompactionList("none,cpu,cpu", kCpu), (std::vector<std::string>{"none", "cpu"}));
  // auto: the registered adaptive primitive when there is one, else the backend's default.
  const std::string autoName = compaction::Registry::global().find("auto") ? "auto" : "cpu";
  EXPECT_EQ(parseCompactionList("auto", kCpu), (std::vector<std::string>{autoName, "none"}));
}

TEST(CompactionList, OptionsAfterAColonStayWithTheirPrimitive) {
  EXPECT_EQ(parseCompactionList("gl-roger:block=128,scan=blelloch,cpu", kCpu),
            (std::vector<std::string>{"gl-roger:block=128,scan=blelloch", "cpu", "none"}));
}

TEST(CompactionList, AllIsEveryPrimitiveTheBackendAccepts) {
  const std::vector<std::string> all = parseCompactionList("all", kCpu);
  const auto& registry = compaction::Registry::global();
  size_t accepted = 0;
  for (const auto& e : registry.entries()) {
    const bool listed = std::count(all.begin(), all.end(), e.info.name) == 1;
    EXPECT_EQ(listed, e.info.accepts_(MemorySpace::Host)) << e.info.name;
    accepted += e.info.accepts_(MemorySpace::Host);
  }
  EXPECT_EQ(all.size(), accepted);
  EXPECT_NE(std::find(all.begin(), all.end(), "cpu"), all.end());
  EXPECT_EQ(std::find(all.begin(), all.end(), "cub"), all.end());
}

TEST(CompactionList, UnknownAndEmptyNamesAreErrors) {
  try {
    parseCompactionList("cpu,nope", kCpu);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown compaction primitive 'nope'"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(parseCompactionList("cpu,,none", kCpu), std::invalid_argument);
  EXPECT_THROW(parseCompactionList("", kCpu), std::invalid_argument);
  EXPECT_THROW(parseCompactionList("block=128", kCpu), std::invalid_argument);
}

}  // namespace
}  // namespace srt::profile
