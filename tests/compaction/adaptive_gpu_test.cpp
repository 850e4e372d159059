// `auto` on CUDA memory: a valid compaction on awkward sizes whichever candidate it runs (checked
// as a set, or in order with ordered=1), many calls queued without a host sync (its CUDA events
// are read back later), and convergence away from a candidate that does 8x the work.
// (tests/compaction/compaction_gpu_test.cpp also runs "auto" with every registered primitive.)
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "primitives/common/memory.h"
#include "primitives/compaction/adaptive/adaptive_compactor.h"
#include "primitives/compaction/compaction.h"
#include "primitives/compaction/cuda/test_streams.h"

namespace srt::compaction {
namespace {

using testing::FlagPattern;
using testing::FlagSpec;

#define REQUIRE_CUDA() \
  if (!cudaDeviceAvailable()) GTEST_SKIP() << "no CUDA device: " << cudaDeviceDescription()

std::unique_ptr<AdaptiveCompactor> asAdaptive(std::unique_ptr<Compactor> c) {
  auto* a = dynamic_cast<AdaptiveCompactor*>(c.get());
  if (!a) throw std::logic_error("not an AdaptiveCompactor");
  c.release();
  return std::unique_ptr<AdaptiveCompactor>(a);
}

// A stream of a 4-byte and a 32-byte field in device memory, sized for maxN.
struct DeviceStream {
  Buffer<uint8_t> keep;
  RawBuffer src[2], dst[2];
  Buffer<uint32_t> numKept{MemorySpace::Cuda, 1};
  static constexpr uint32_t kBytes[2] = {4, 32};
  explicit DeviceStream(size_t maxN) : keep(MemorySpace::Cuda, maxN + 1) {
    for (int f = 0; f < 2; ++f) {
      src[f] = RawBuffer(MemorySpace::Cuda, (maxN + 1) * kBytes[f]);
      dst[f] = RawBuffer(MemorySpace::Cuda, (maxN + 1) * kBytes[f]);
    }
  }
  Field fields[2];
  Request fill(uint32_t n, const FlagSpec& flags) {
    testing::fillFlags(keep.data(), n, flags);
    for (int f = 0; f < 2; ++f) {
      testing::fillField(src[f].data(), n, kBytes[f], uint32_t(f), flags.seed);
      fields[f] = {src[f].data(), dst[f].data(), kBytes[f]};
    }
    return request(n);
  }
  Request request(uint32_t n) {
    Request r;
    r.keep = keep.data(), r.fields = fields, r.numFields = 2, r.count = n;
    r.numKept = numKept.data(), r.memory = MemorySpace::Cuda;
    return r;
  }
  // After a compaction of fill(n, flags): empty, or what is wrong.
  std::string check(uint32_t n, const FlagSpec& flags, bool ordered) {
    SRT_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<uint8_t> k = keep.download(n);
    std::vector<uint32_t> expected;
    for (uint32_t i = 0; i < n; ++i)
      if (k[i]) expected.push_back(i);
    const uint32_t kept = numKept.download(1)[0];
    if (kept != expected.size())
      return "numKept " + std::to_string(kept) + ", expected " + std::to_string(expected.size());
    std::vector<uint32_t> idx(kept), rec(size_t(kept) * 8);
    if (kept) {
      dst[0].download(idx.data(), size_t(kept) * 4);
      dst[1].download(rec.data(), size_t(kept) * 32);
    }
    const uint32_t mask0 = testing::fieldMask(0, flags.seed),
                   mask1 = testing::fieldMask(1, flags.seed);
    for (uint32_t s = 0; s < kept; ++s) {
      idx[s] ^= mask0;
      if ((rec[size_t(s) * 8] ^ mask1) != idx[s] ||
          rec[size_t(s) * 8 + 7] != testing::wordAt(1, flags.seed, idx[s], 7))
        return "slot " + std::to_string(s) + ": the fields disagree on the element";
    }
    if (!ordered) std::sort(idx.begin(), idx.end());
    if (idx != expected) return ordered ? "not in input order" : "survivors differ";
    return {};
  }
};

TEST(AdaptiveGpu, ValidOnAwkwardSizesWhicheverCandidateRuns) {
  REQUIRE_CUDA();
  // Short streams explored too (tiny=0), and no calibration read, so every candidate runs.
  for (const char* spec : {"auto:tiny=0,fresh", "auto:ordered=1,tiny=0,fresh",
                           "auto:samples=1,probe=2,tiny=0,fresh"}) {
    auto a = asAdaptive(Registry::global().create(spec));
    const bool ordered = std::string(spec).find("ordered=1") != std::string::npos;
    EXPECT_EQ(a->ordered(), ordered) << spec;
    const uint32_t maxN = (1u << 20) + 7;
    DeviceStream ds(maxN);
    a->reserve(maxN);
    uint32_t seed = 11;
    for (uint32_t n : {0u, 1u, 31u, 32u, 33u, 1023u, 1024u, 1025u, 4097u, maxN})
      for (double ratio : {0.0, 0.001, 0.6, 1.0})
        for (int call = 0; call < 3; ++call) {  // different calls run different candidates
          const FlagSpec flags{FlagPattern::Uniform, ratio, ++seed, seed % 2 == 0};
          Request r = ds.fill(n, flags);
          a->compact(r);
          const std::string err = ds.check(n, flags, ordered);
          ASSERT_TRUE(err.empty()) << spec << " n=" << n << " ratio=" << ratio << " call " << call
                                   << " ran " << a->lastChoice() << ": " << err;
        }
    std::printf("%s:\n%s", spec, a->choiceSummary().c_str());
  }
}

TEST(AdaptiveGpu, QueuesManyCallsWithoutWaitingAndHarvestsTheirTimesLater) {
  REQUIRE_CUDA();
  auto a = asAdaptive(Registry::global().create("auto:fresh"));
  const uint32_t n = 1u << 18;
  DeviceStream ds(n);
  const FlagSpec flags{FlagPattern::Blobs, 0.5, 3, false};
  Request r = ds.fill(n, flags);
  for (int i = 0; i < 300; ++i) a->compact(r);  // no sync in between
  ASSERT_TRUE(ds.check(n, flags, false).empty());
  a->compact(r);  // harvests every completed timing
  const auto stats = a->shapeStats();
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].calls, 301u);
  uint64_t samples = 0;
  for (const auto& c : stats[0].candidates) samples += c.samples;
  EXPECT_GE(samples, stats[0].candidates.size()) << a->choiceSummary();
  std::printf("%s", a->choiceSummary().c_str());
}

// cub run 8 times over the same input: the same result for 8x the work.
class RepeatedCompactor final : public Compactor {
 public:
  explicit RepeatedCompactor(std::unique_ptr<Compactor> inner) : inner_(std::move(inner)) {}
  void reserve(uint32_t n) override { inner_->reserve(n); }
  void compact(const Request& r) override {
    for (int i = 0; i < 8; ++i) inner_->compact(r);
  }

 private:
  std::unique_ptr<Compactor> inner_;
};

TEST(AdaptiveGpu, LeavesACandidateThatDoesEightTimesTheWork) {
  REQUIRE_CUDA();
  Registry local;
  local.add({"cub-x8", Device::Cuda, true, true, {MemorySpace::Cuda}, "cub, 8 times"},
            [](OptionReader&) {
              return std::make_unique<RepeatedCompactor>(Registry::global().create("cub"));
            });
  // Not named "cub": auto's default prior keeps the baseline of that name out of a fresh round.
  local.add({"cub-x1", Device::Cuda, true, true, {MemorySpace::Cuda}, "cub"},
            [](OptionReader&) { return Registry::global().create("cub"); });
  registerAdaptiveCompactors(local);
  auto a = asAdaptive(local.create("auto"));
  const uint32_t n = 1u << 22;
  DeviceStream ds(n);
  const FlagSpec flags{FlagPattern::Uniform, 0.5, 9, false};
  for (int i = 0; i < 30; ++i) {
    Request r = ds.fill(n, flags);
    a->compact(r);
    ASSERT_TRUE(ds.check(n, flags, true).empty());  // synchronises: timings complete
  }
  const auto stats = a->shapeStats();
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].choice, "cub-x1") << a->choiceSummary();
  EXPECT_EQ(stats[0].candidates[0].runs, 1u) << a->choiceSummary();
  std::printf("%s", a->choiceSummary().c_str());
}

}  // namespace
}  // namespace srt::compaction
