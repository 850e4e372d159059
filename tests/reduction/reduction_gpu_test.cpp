// Every registered reduction against the CPU reference, per value type. The non-commutative
// Mat2u product makes any reordering fail; CUB's DeviceReduce/DeviceSegmentedReduce document
// that they need a commutative operator, so they are checked on the commutative types only.
#include <gtest/gtest.h>

#include "primitives/common/memory.h"
#include "primitives/reduction/reduction.h"
#include "primitives/reduction/reference.h"
#include "primitives/reduction/scenarios.h"
#include "tests/reduction/test_values.h"

namespace srt::reduction {
namespace {

#define SRT_REQUIRE_GPU() \
  if (!cudaDeviceAvailable()) GTEST_SKIP() << "no CUDA device: " << cudaDeviceDescription()

struct Case {
  std::string name;
  Segments segments;
};

std::vector<Case> segmentedCases() {
  std::vector<Case> c;
  c.push_back({"one segment of 100003", makeSegments(Scenario::OneSegment, 100003)});
  c.push_back({"one segment of 2^20+1", makeSegments(Scenario::OneSegment, (1u << 20) + 1)});
  c.push_back({"random 10-50 over 200001", makeSegments(Scenario::Random10To50, 200001, 0, 3)});
  c.push_back({"all of size 3 over 30001", makeSegments(Scenario::Fixed, 30001, 3)});
  c.push_back({"all of size 1 over 5003", makeSegments(Scenario::Fixed, 5003, 1)});
  c.push_back({"size 7 over 513", makeSegments(Scenario::Fixed, 513, 7)});
  c.push_back({"size 1000 over 1025", makeSegments(Scenario::Fixed, 1025, 1000)});
  c.push_back({"41 segments over 1000003 (few large: kd-tree nodes)",
               makeSegments(Scenario::Fixed, 1000003, 25000)});
  c.push_back({"empty segments over 100000", makeSegments(Scenario::WithEmpty, 100000, 0, 11)});
  c.push_back({"a million segments (size 3)", makeSegments(Scenario::Fixed, 3000000, 3)});
  c.push_back({"one element", makeSegments(Scenario::OneSegment, 1)});
  c.push_back({"empty input, one empty segment", makeSegments(Scenario::OneSegment, 0)});
  c.push_back({"empty input, no segments", makeSegments(Scenario::Fixed, 0, 3)});
  Segments allEmpty;
  allEmpty.offsets.assign(6, 0);
  c.push_back({"empty input, five empty segments", allEmpty});
  return c;
}

// A device copy of `values`, at least one element long (a variant may reject null inputs).
template <typename T>
Buffer<T> deviceCopy(const std::vector<T>& values) {
  Buffer<T> b(MemorySpace::Cuda, std::max<size_t>(values.size(), 1));
  if (!values.empty()) b.upload(values);
  return b;
}

// Reduces `values` into `outputs` values (garbage first: every one must be written; or, with
// `prefilled`, the identity the caller promises through Request::outHoldsIdentity), with the
// segment description of `seg` when there is one.
template <typename T, typename Op>
std::vector<T> run(Reducer<T, Op>& red, const std::vector<T>& values, uint32_t outputs,
                   const Segments* seg = nullptr, bool prefilled = false) {
  const Buffer<T> in = deviceCopy(values);
  Buffer<T> out(MemorySpace::Cuda, std::max<uint32_t>(outputs, 1));
  if (prefilled)
    out.upload(std::vector<T>(std::max<uint32_t>(outputs, 1), Op::identity()));
  else
    out.fillBytes(0xAB);
  Buffer<uint32_t> owners, offsets;
  Request<T> r;
  r.in = in.data();
  r.count = uint32_t(values.size());
  r.out = out.data();
  r.outHoldsIdentity = prefilled;
  if (seg) {
    owners = deviceCopy(seg->owners);
    offsets = deviceCopy(seg->offsets);
    r.numSegments = seg->numSegments();
    r.owners = owners.data();
    r.offsets = offsets.data();
  }
  red.reduce(r);
  SRT_CUDA_CHECK(cudaDeviceSynchronize());
  return out.download(outputs);
}

template <typename T, typename Op>
void checkAllSegmented(bool nonCommutative, bool prefilled = false) {
  const auto cases = segmentedCases();
  for (const auto& e : Registry<T, Op>::global().entries()) {
    if (!e.info.segmented || (nonCommutative && e.info.commutativeOnly)) continue;
    auto red = e.factory();
    for (const Case& c : cases) {
      SCOPED_TRACE("segmented '" + e.info.name + "', " + c.name);
      const auto values = test::randomValues<T>(c.segments.count(), 42);
      const auto expected = referenceSegmentedReduce<T, Op>(values, c.segments.offsets);
      const auto got = run(*red, values, c.segments.numSegments(), &c.segments, prefilled);
      ASSERT_EQ(got.size(), expected.size());
      size_t bad = 0, firstBad = 0;
      for (size_t s = 0; s < got.size(); ++s) {
        const size_t len = c.segments.offsets[s + 1] - c.segments.offsets[s];
        if (!test::close(got[s], expected[s], len) && bad++ == 0) firstBad = s;
      }
      EXPECT_EQ(bad, 0u) << "first wrong segment " << firstBad << " of " << got.size();
    }
  }
}

template <typename T, typename Op>
void checkAllUnsegmented(bool nonCommutative) {
  for (const auto& e : Registry<T, Op>::global().entries()) {
    if (e.info.segmented || (nonCommutative && e.info.commutativeOnly)) continue;
    auto red = e.factory();
    for (uint32_t n : {0u, 1u, 31u, 511u, 512u, 513u, 1023u, 1025u, 100003u, 3000017u}) {
      SCOPED_TRACE("reduction '" + e.info.name + "', n = " + std::to_string(n));
      const auto values = test::randomValues<T>(n, n + 1);
      const T got = run(*red, values, 1)[0];
      EXPECT_TRUE(test::close(got, referenceReduce<T, Op>(values), n));
    }
  }
}

TEST(ReductionGpu, UnsegmentedNonCommutative) {
  SRT_REQUIRE_GPU();
  checkAllUnsegmented<Mat2u, Mat2Product>(true);
}
TEST(ReductionGpu, UnsegmentedIntSum) {
  SRT_REQUIRE_GPU();
  checkAllUnsegmented<int, Sum<int>>(false);
}
TEST(ReductionGpu, UnsegmentedFloatSum) {
  SRT_REQUIRE_GPU();
  checkAllUnsegmented<float, Sum<float>>(false);
}
TEST(ReductionGpu, UnsegmentedAabb) {
  SRT_REQUIRE_GPU();
  checkAllUnsegmented<Aabb, AabbUnion>(false);
}
TEST(ReductionGpu, SegmentedNonCommutative) {
  SRT_REQUIRE_GPU();
  checkAllSegmented<Mat2u, Mat2Product>(true);
}
TEST(ReductionGpu, SegmentedIntSum) {
  SRT_REQUIRE_GPU();
  checkAllSegmented<int, Sum<int>>(false);
}
TEST(ReductionGpu, SegmentedFloatSum) {
  SRT_REQUIRE_GPU();
  checkAllSegmented<float, Sum<float>>(false);
}
TEST(ReductionGpu, SegmentedAabb) {
  SRT_REQUIRE_GPU();
  checkAllSegmented<Aabb, AabbUnion>(false);
}

// The kd-tree build's way: the output set to the identity by a pass of the caller's, the fill
// skipped; empty segments must still read the identity.
TEST(ReductionGpu, SegmentedIntoAnOutputHoldingTheIdentity) {
  SRT_REQUIRE_GPU();
  checkAllSegmented<int, Sum<int>>(false, true);
  checkAllSegmented<Aabb, AabbUnion>(false, true);
  checkAllSegmented<Mat2u, Mat2Product>(true, true);
}

TEST(ReductionGpu, LayoutConversionsMatchTheCpu) {
  SRT_REQUIRE_GPU();
  for (const Segments& seg : {makeSegments(Scenario::WithEmpty, 100000, 0, 2),
                              makeSegments(Scenario::Random10To50, 12345, 0, 4)}) {
    Buffer<uint32_t> offsets(MemorySpace::Cuda, seg.offsets);
    Buffer<uint32_t> owners(MemorySpace::Cuda, seg.owners);
    Buffer<uint32_t> owners2(MemorySpace::Cuda, seg.owners.size());
    Buffer<uint32_t> offsets2(MemorySpace::Cuda, seg.offsets.size());
    ownersFromOffsets(offsets.data(), seg.numSegments(), owners2.data(), seg.count(), nullptr);
    offsetsFromOwners(owners.data(), seg.count(), offsets2.data(), seg.numSegments(), nullptr);
    EXPECT_EQ(owners2.download(), seg.owners);
    EXPECT_EQ(offsets2.download(), seg.offsets);
  }
}

}  // namespace
}  // namespace srt::reduction
