// The host side of the test-stream generator that the GPU tests and the benchmark check against:
// patterns hit their ratios, the ends are exact, and every element's index can be recovered.
#include <gtest/gtest.h>

#include "primitives/compaction/cuda/test_streams.h"

namespace srt::compaction::testing {
namespace {

double keptFraction(FlagPattern p, double ratio, uint32_t n, uint32_t seed, bool varied = false) {
  const FlagSpec s{p, ratio, seed, varied};
  const uint64_t t = flagThreshold(s);
  uint64_t kept = 0;
  for (uint32_t i = 0; i < n; ++i) kept += flagAt(p, t, seed, varied, i) != 0;
  return double(kept) / n;
}

TEST(TestStreams, NoneAndAllAreExact) {
  for (FlagPattern p : {FlagPattern::Uniform, FlagPattern::Runs, FlagPattern::Blobs}) {
    EXPECT_EQ(keptFraction(p, 0.0, 1 << 20, 3), 0.0) << toString(p);
    EXPECT_EQ(keptFraction(p, 1.0, 1 << 20, 3), 1.0) << toString(p);
  }
}

TEST(TestStreams, UniformAndRunsHitTheRatio) {
  EXPECT_NEAR(keptFraction(FlagPattern::Uniform, 0.6, 1 << 20, 9), 0.6, 0.005);
  EXPECT_NEAR(keptFraction(FlagPattern::Uniform, 0.001, 1 << 22, 9), 0.001, 0.0002);
  EXPECT_NEAR(keptFraction(FlagPattern::Runs, 0.5, 1 << 24, 9), 0.5, 0.03);
}

TEST(TestStreams, BlobsAreSpatiallyCoherentAndMonotoneInRatio) {
  const uint32_t n = 1 << 22, seed = 4;
  const double lo = keptFraction(FlagPattern::Blobs, 0.3, n, seed);
  const double hi = keptFraction(FlagPattern::Blobs, 0.7, n, seed);
  EXPECT_LT(lo, hi);
  EXPECT_GT(lo, 0.05);
  EXPECT_LT(hi, 0.95);
  // Neighbours (left and above) agree far more often than independent flags would (0.5 here).
  const FlagSpec s{FlagPattern::Blobs, 0.5, seed, false};
  const uint64_t t = flagThreshold(s);
  uint64_t same = 0, pairs = 0;
  for (uint32_t i = 1024; i < n; i += 7) {
    const bool a = flagAt(s.pattern, t, seed, false, i);
    same += a == bool(flagAt(s.pattern, t, seed, false, i - 1));
    same += a == bool(flagAt(s.pattern, t, seed, false, i - 1024));
    pairs += 2;
  }
  EXPECT_GT(double(same) / pairs, 0.9);
}

TEST(TestStreams, VariedFlagsAreNonZeroAndIndicesRecoverable) {
  const FlagSpec s{FlagPattern::Uniform, 0.5, 11, true};
  const uint64_t t = flagThreshold(s);
  bool sawOtherThanOne = false;
  for (uint32_t i = 0; i < 100000; ++i) {
    const uint8_t f = flagAt(s.pattern, t, s.seed, true, i);
    const bool plain = flagAt(s.pattern, t, s.seed, false, i) != 0;
    ASSERT_EQ(f != 0, plain) << i;
    sawOtherThanOne |= f > 1;
    for (uint32_t field = 0; field < 3; ++field)
      ASSERT_EQ(wordAt(field, s.seed, i, 0) ^ fieldMask(field, s.seed), i);
  }
  EXPECT_TRUE(sawOtherThanOne);
  EXPECT_NE(fieldMask(0, 1), fieldMask(1, 1));
  EXPECT_THROW(parseFlagPattern("checkerboard"), std::invalid_argument);
  EXPECT_EQ(parseFlagPattern("blobs"), FlagPattern::Blobs);
}

}  // namespace
}  // namespace srt::compaction::testing
