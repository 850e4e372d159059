// The comparison on made-up profiles: primitives run by one side only, steps of different kinds
// (passes against bounces), steps of different counts, and the speed-up's direction.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "apps/profile/profile_compare.h"

namespace srt::profile {
namespace {

SavedPrimitive primitive(const std::string& name, double ms, size_t steps) {
  SavedPrimitive p;
  p.name = name;
  p.renderMs = ms;
  for (size_t i = 0; i < steps; ++i) {
    StepTimes t;
    t.traceMs = 1, t.compactionMs = 0.5, t.alive = double(100 >> i);
    p.steps.push_back(t);
  }
  return p;
}

SavedProfile profileOf(const std::string& path, std::vector<SavedPrimitive> primitives) {
  SavedProfile p;
  p.path = path;
  p.scene = "cornell";
  p.integrator = "path";
  p.perPass = true;
  p.primitives = std::move(primitives);
  return p;
}

size_t rowsLike(const std::string& csv, const std::string& what) {
  size_t n = 0;
  for (size_t p = csv.find(what); p != std::string::npos; p = csv.find(what, p + 1)) ++n;
  return n;
}

TEST(ProfileCompareUnits, SpeedupIsAOverB) {
  EXPECT_DOUBLE_EQ(speedup(20, 10), 2);  // B twice as fast
  EXPECT_TRUE(std::isnan(speedup(20, 0)));
  EXPECT_TRUE(std::isnan(speedup(NAN, 10)));
}

TEST(ProfileCompareUnits, OneSidedPrimitivesAndUnequalStepCounts) {
  const SavedProfile a = profileOf("a.json", {primitive("cpu", 20, 3), primitive("none", 30, 2)});
  const SavedProfile b =
      profileOf("b.json", {primitive("none", 15, 4), primitive("lookback", 9, 1)});
  EXPECT_EQ(commonPrimitives(a, b), std::vector<std::string>{"none"});
  const std::string csv = compareCsv(a, b);
  EXPECT_NE(csv.find("none,total,,render_ms,30,15,-15,2\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("cpu,total,,render_ms,20,,,\n"), std::string::npos) << csv;  // A only
  EXPECT_NE(csv.find("lookback,total,,render_ms,,9,,\n"), std::string::npos) << csv;
  // Steps: the longer side's count, the missing ones empty.
  EXPECT_EQ(rowsLike(csv, "none,pass,"), 4u * 7u);
  EXPECT_NE(csv.find("none,pass,3,all_stages_ms,,1.5,,\n"), std::string::npos) << csv;
  const std::string html = compareHtml(a, b);
  EXPECT_NE(html.find("not run"), std::string::npos);
  EXPECT_NE(html.find("Per-pass deltas"), std::string::npos);
}

TEST(ProfileCompareUnits, PassesAgainstBouncesAreNotLinedUp) {
  SavedProfile a = profileOf("a.json", {primitive("none", 10, 3)});
  SavedProfile b = profileOf("b.json", {primitive("none", 10, 3)});
  b.perPass = false;
  const std::string csv = compareCsv(a, b);
  EXPECT_EQ(rowsLike(csv, "none,pass,"), 0u);
  EXPECT_EQ(rowsLike(csv, "none,bounce,"), 0u);
  EXPECT_EQ(rowsLike(csv, "none,total,"), 7u);
  EXPECT_NE(compareHtml(a, b).find("do not line up"), std::string::npos);
}

TEST(ProfileCompareUnits, DifferentWorkIsRefusedWithEveryDifference) {
  SavedProfile a = profileOf("a.json", {primitive("none", 10, 1)});
  SavedProfile b = a;
  b.path = "b.json";
  EXPECT_NO_THROW(checkComparable(a, b));
  b.device = "another GPU";  // what a comparison is for
  b.schedule = "waves";
  EXPECT_NO_THROW(checkComparable(a, b));
  b.width = 64, b.maxDepth = 3, b.integrator = "whitted";
  try {
    checkComparable(a, b);
    FAIL() << "different work compared";
  } catch (const std::invalid_argument& e) {
    const std::string why = e.what();
    EXPECT_NE(why.find("integrator path vs whitted"), std::string::npos) << why;
    EXPECT_NE(why.find("resolution 0x0 vs 64x0"), std::string::npos) << why;
    EXPECT_NE(why.find("max depth 0 vs 3"), std::string::npos) << why;
    EXPECT_EQ(why.find("scene"), std::string::npos) << why;
  }
}

}  // namespace
}  // namespace srt::profile
