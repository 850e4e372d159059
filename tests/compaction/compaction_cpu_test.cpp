// The CPU-side compaction primitives against std::stable_partition, on awkward sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "primitives/compaction/compaction.h"

namespace srt::compaction {
namespace {

std::vector<uint8_t> randomKeep(size_t n, double ratio, uint32_t seed) {
  std::mt19937 rng(seed);
  std::bernoulli_distribution keep(ratio);
  std::vector<uint8_t> k(n);
  for (auto& v : k) v = keep(rng);
  return k;
}

class CpuCompaction : public ::testing::TestWithParam<std::tuple<size_t, double>> {};

TEST_P(CpuCompaction, MatchesStablePartitionOnTwoFields) {
  const auto [n, ratio] = GetParam();
  auto compactor = Registry::global().create("cpu");
  const std::vector<uint8_t> keep = randomKeep(n, ratio, uint32_t(n * 31 + ratio * 1000));
  std::vector<uint32_t> index(n);
  std::iota(index.begin(), index.end(), 0u);
  struct Rec {
    uint32_t w[8];
  };
  std::vector<Rec> recs(n);
  for (size_t i = 0; i < n; ++i)
    for (int w = 0; w < 8; ++w) recs[i].w[w] = uint32_t(i * 8 + w);

  std::vector<uint32_t> outIndex(n, 0xdeadbeef);
  std::vector<Rec> outRecs(n, Rec{{0xdeadbeef}});
  Field fields[2] = {{index.data(), outIndex.data(), 4}, {recs.data(), outRecs.data(), 32}};
  uint32_t kept = 0xdeadbeef;
  Request r;
  r.keep = keep.data();
  r.fields = fields;
  r.numFields = 2;
  r.count = uint32_t(n);
  r.numKept = &kept;
  r.memory = MemorySpace::Host;
  compactor->compact(r);

  std::vector<uint32_t> expected;
  for (size_t i = 0; i < n; ++i)
    if (keep[i]) expected.push_back(uint32_t(i));
  ASSERT_EQ(kept, expected.size());
  for (size_t k = 0; k < expected.size(); ++k) {
    ASSERT_EQ(outIndex[k], expected[k]) << "slot " << k;
    ASSERT_EQ(outRecs[k].w[7], expected[k] * 8 + 7) << "slot " << k;
  }
  if (kept < n) {
    EXPECT_EQ(outIndex[kept], 0xdeadbeefu) << "wrote past the survivors";
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, CpuCompaction,
                         ::testing::Combine(::testing::Values(0, 1, 31, 32, 33, 1023, 1024, 1025,
                                                              (1 << 20) + 7),
                                            ::testing::Values(0.0, 0.001, 0.5, 0.6, 1.0)));

TEST(CompactionRegistry, NamesAreUniqueAndDescribed) {
  const auto& entries = Registry::global().entries();
  ASSERT_FALSE(entries.empty());
  for (const auto& e : entries) {
    EXPECT_FALSE(e.info.description.empty()) << e.info.name;
    EXPECT_FALSE(e.info.accepts.empty()) << e.info.name;
  }
  EXPECT_NE(Registry::global().find("cpu"), nullptr);
  EXPECT_NE(Registry::global().find("none"), nullptr);
  EXPECT_NE(Registry::global().find("cub"), nullptr);
}

TEST(CompactionRegistry, UnknownNameListsTheRegisteredOnes) {
  try {
    Registry::global().create("no-such-primitive");
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cub"), std::string::npos) << e.what();
  }
}

TEST(CompactionValidate, RejectsOddFieldSizes) {
  uint32_t kept;
  uint8_t keep = 1;
  uint32_t a = 0, b = 0;
  Field f{&a, &b, 6};
  Request r;
  r.keep = &keep, r.fields = &f, r.numFields = 1, r.count = 1, r.numKept = &kept;
  r.memory = MemorySpace::Host;
  EXPECT_THROW(Registry::global().create("cpu")->compact(r), std::invalid_argument);
}

}  // namespace
}  // namespace srt::compaction

namespace srt::compaction {
namespace {
TEST(CompactionRegistry, RejectsUnknownAndMalformedOptions) {
  EXPECT_THROW(Registry::global().create("cpu:block=64"), std::invalid_argument);
  EXPECT_THROW(Registry::global().create("cpu:block"), std::invalid_argument);
  EXPECT_NO_THROW(Registry::global().create("cpu"));
  EXPECT_EQ(Registry::nameOf("gl-roger:block=128"), "gl-roger");
}
}  // namespace
}  // namespace srt::compaction
