// CPU side of the reductions: the reference, the scenario generators, the registry and argument
// checks (none of these touch a GPU).
#include <gtest/gtest.h>

#include <numeric>

#include "primitives/reduction/reduction.h"
#include "primitives/reduction/reference.h"
#include "primitives/reduction/scenarios.h"
#include "tests/reduction/test_values.h"

namespace srt::reduction {
namespace {

TEST(ReductionReference, Mat2ProductIsAssociativeButNotCommutative) {
  const auto v = test::randomValues<Mat2u>(3, 7);
  const Mat2Product op;
  EXPECT_EQ(op(op(v[0], v[1]), v[2]), op(v[0], op(v[1], v[2])));
  const Mat2u upper{1, 5, 0, 1}, lower{1, 0, 3, 1};
  EXPECT_FALSE(op(upper, lower) == op(lower, upper));
}

TEST(ReductionReference, ReduceKeepsOrderAndEmptyGivesIdentity) {
  EXPECT_EQ((referenceReduce<Mat2u, Mat2Product>({})), Mat2Product::identity());
  const auto v = test::randomValues<Mat2u>(5, 3);
  Mat2u expected = Mat2Product::identity();
  for (const Mat2u& m : v) expected = Mat2Product()(expected, m);
  EXPECT_EQ((referenceReduce<Mat2u, Mat2Product>(v)), expected);
  std::vector<Mat2u> reversed(v.rbegin(), v.rend());
  EXPECT_FALSE((referenceReduce<Mat2u, Mat2Product>(reversed) == expected));
}

TEST(ReductionReference, SegmentedWithEmptySegments) {
  const std::vector<int> in{1, 2, 3, 4, 5};
  const std::vector<uint32_t> offsets{0, 0, 2, 2, 5, 5};
  const auto out = referenceSegmentedReduce<int, Sum<int>>(in, offsets);
  EXPECT_EQ(out, (std::vector<int>{0, 3, 0, 12, 0}));
  EXPECT_THROW((referenceSegmentedReduce<int, Sum<int>>(in, {0, 4})), std::invalid_argument);
}

TEST(ReductionReference, AabbUnion) {
  const Aabb a{{0, 1, 2}, {3, 4, 5}}, b{{-1, 2, 1}, {2, 6, 4}};
  const Aabb u = AabbUnion()(a, b);
  EXPECT_EQ(u, (Aabb{{-1, 1, 1}, {3, 6, 5}}));
  EXPECT_EQ(AabbUnion()(AabbUnion::identity(), a), a);
}

void expectConsistent(const Segments& s, uint32_t count) {
  ASSERT_FALSE(s.offsets.empty());
  EXPECT_EQ(s.offsets.front(), 0u);
  EXPECT_EQ(s.count(), count);
  EXPECT_TRUE(std::is_sorted(s.offsets.begin(), s.offsets.end()));
  EXPECT_EQ(s.owners, ownersFromOffsets(s.offsets));
  EXPECT_EQ(offsetsFromOwners(s.owners, s.numSegments()), s.offsets);
}

TEST(ReductionScenarios, ShapesMatchTheirNames) {
  for (uint32_t count : {0u, 1u, 2u, 1000u, 100003u}) {
    SCOPED_TRACE(count);
    const Segments one = makeSegments(Scenario::OneSegment, count);
    expectConsistent(one, count);
    EXPECT_EQ(one.numSegments(), 1u);

    const Segments random = makeSegments(Scenario::Random10To50, count, 0, 9);
    expectConsistent(random, count);
    for (uint32_t s = 0; s + 1 < random.numSegments(); ++s) {  // all but the cut last one
      const uint32_t len = random.offsets[s + 1] - random.offsets[s];
      EXPECT_GE(len, 10u);
      EXPECT_LE(len, 50u);
    }

    for (uint32_t size : {1u, 3u}) {
      const Segments fixed = makeSegments(Scenario::Fixed, count, size);
      expectConsistent(fixed, count);
      EXPECT_EQ(fixed.numSegments(), (count + size - 1) / size);
    }

    const Segments empty = makeSegments(Scenario::WithEmpty, count, 0, 5);
    expectConsistent(empty, count);
    EXPECT_EQ(empty.offsets[1], 0u);                           // first segment empty
    EXPECT_EQ(empty.offsets[empty.numSegments() - 1], count);  // last segment empty
  }
  const Segments many = makeSegments(Scenario::WithEmpty, 10000, 0, 5);
  uint32_t empties = 0;
  for (uint32_t s = 0; s < many.numSegments(); ++s)
    empties += many.offsets[s + 1] == many.offsets[s];
  EXPECT_GT(empties, many.numSegments() / 5);
}

TEST(ReductionScenarios, BadInputNamesTheProblem) {
  EXPECT_THROW(makeSegments(Scenario::Fixed, 10, 0), std::invalid_argument);
  EXPECT_THROW(scenarioFromString("tiny"), std::invalid_argument);
  EXPECT_EQ(scenarioFromString("random"), Scenario::Random10To50);
  EXPECT_THROW(offsetsFromOwners({0, 2, 1}, 3), std::invalid_argument);
  EXPECT_THROW(offsetsFromOwners({0, 3}, 3), std::invalid_argument);
}

TEST(ReductionRegistry, EveryFamilyIsRegistered) {
  auto& reg = Registry<Aabb, AabbUnion>::global();
  for (const char* name : {"tb2", "tb4-warp", "matrix", "persistent-matrix", "diffwarps", "cub"})
    EXPECT_NE(reg.find(name, false), nullptr) << name;
  for (const char* name : {"tb2", "tb4-warp", "matrix", "persistent-matrix", "diffwarps",
                           "diffwarps16", "mergepath", "cub-segmented", "cub-reduce-by-key"})
    EXPECT_NE(reg.find(name, true), nullptr) << name;
  EXPECT_EQ((Registry<float, Sum<float>>::global().names(true)), reg.names(true));
  EXPECT_EQ((Registry<Mat2u, Mat2Product>::global().names(false)), reg.names(false));
}

TEST(ReductionRegistry, UnknownNameListsTheRegisteredOnes) {
  auto& reg = Registry<float, Sum<float>>::global();
  try {
    reg.createSegmented("nope");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("mergepath"), std::string::npos) << e.what();
  }
  EXPECT_THROW(reg.create("diffwarps16", false), std::invalid_argument);  // segmented only
  EXPECT_NO_THROW(reg.createSegmented("diffwarps16"));
}

TEST(ReductionRegistry, MissingLayoutIsAClearError) {
  auto& reg = Registry<int, Sum<int>>::global();
  int dummy = 0;
  for (const auto& e : reg.entries()) {
    if (!e.info.segmented) continue;
    SCOPED_TRACE(e.info.name);
    Request<int> r;
    r.in = &dummy;  // never dereferenced: validation comes first
    r.out = &dummy;
    r.count = 10;
    r.numSegments = 2;
    try {
      e.factory()->reduce(r);
      FAIL() << "no exception";
    } catch (const std::invalid_argument& ex) {
      EXPECT_NE(std::string(ex.what()).find(toString(e.info.layout)), std::string::npos)
          << ex.what();
    }
  }
}

}  // namespace
}  // namespace srt::reduction
