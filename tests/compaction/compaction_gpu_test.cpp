// Every registered compaction primitive that takes CUDA memory (cub included; "none" left out,
// since it does not compact) against a host reference: std::stable_partition order for ordered
// primitives, the sorted set of survivors for unordered ones. Outputs are poisoned first and must
// stay poisoned past numKept; every field must be moved with the same permutation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <sstream>

#include "primitives/common/memory.h"
#include "primitives/compaction/compaction.h"
#include "primitives/compaction/cuda/test_streams.h"

namespace srt::compaction {
namespace {

using testing::FlagPattern;
using testing::FlagSpec;

struct ElementType {
  const char* name;
  std::vector<uint32_t> bytes;  // one entry per field
};
const ElementType kTypes[] = {
    {"u32", {4}}, {"rec32", {32}}, {"rec64", {64}}, {"multi4_12_16", {4, 12, 16}}};

constexpr uint8_t kPoison = 0xab;
constexpr uint32_t kGuard = 64;  // poisoned elements checked past the stream's end

std::vector<std::string> cudaPrimitives() {
  std::vector<std::string> names;
  for (const auto& e : Registry::global().entries())
    if (e.info.accepts_(MemorySpace::Cuda) && e.info.compacts) names.push_back(e.info.name);
  return names;
}

// Device buffers for one stream, sized for the largest case and reused.
struct DeviceStream {
  Buffer<uint8_t> keep;
  std::vector<RawBuffer> src, dst;
  Buffer<uint32_t> numKept{MemorySpace::Cuda, 1};
};

struct Case {
  uint32_t n;
  FlagSpec flags;
  std::string describe() const {
    std::ostringstream s;
    s << "n=" << n << " pattern=" << testing::toString(flags.pattern) << " ratio=" << flags.ratio
      << " seed=" << flags.seed << (flags.variedValues ? " varied-flags" : "");
    return s.str();
  }
};

// Runs one case (through `launch` when given: it runs the request and waits for it); returns an
// empty string or what went wrong.
std::string runCase(Compactor& c, bool ordered, const ElementType& type, DeviceStream& ds,
                    const Case& cs, size_t keepOffset = 0, size_t fieldOffset = 0,
                    const std::function<void(const Request&)>& launch = {}) {
  const uint32_t n = cs.n, seed = cs.flags.seed;
  const int numFields = int(type.bytes.size());
  std::vector<Field> fields(numFields);
  for (int f = 0; f < numFields; ++f) {
    const uint32_t b = type.bytes[f];
    char* src = static_cast<char*>(ds.src[f].data()) + fieldOffset;
    char* dst = static_cast<char*>(ds.dst[f].data()) + fieldOffset;
    testing::fillField(src, n, b, uint32_t(f), seed);
    SRT_CUDA_CHECK(cudaMemset(dst, kPoison, (size_t(n) + kGuard) * b));
    fields[f] = {src, dst, b};
  }
  uint8_t* keep = ds.keep.data() + keepOffset;
  testing::fillFlags(keep, n, cs.flags);
  SRT_CUDA_CHECK(cudaMemset(ds.numKept.data(), 0xff, sizeof(uint32_t)));

  Request r;
  r.keep = keep;
  r.fields = fields.data();
  r.numFields = numFields;
  r.count = n;
  r.numKept = ds.numKept.data();
  r.memory = MemorySpace::Cuda;
  if (launch) {
    launch(r);
  } else {
    c.compact(r);
    SRT_CUDA_CHECK(cudaDeviceSynchronize());
  }

  std::vector<uint8_t> flags(n);
  if (n) SRT_CUDA_CHECK(cudaMemcpy(flags.data(), keep, n, cudaMemcpyDeviceToHost));
  std::vector<uint32_t> expected;  // stable_partition of the indices by their flags
  expected.resize(n);
  std::iota(expected.begin(), expected.end(), 0u);
  const auto mid = std::stable_partition(expected.begin(), expected.end(),
                                         [&](uint32_t i) { return flags[i] != 0; });
  expected.erase(mid, expected.end());
  const uint32_t kept = ds.numKept.download(1)[0];
  if (kept != expected.size())
    return "numKept " + std::to_string(kept) + ", expected " + std::to_string(expected.size());

  std::vector<uint32_t> index0;  // input index of each output slot, from field 0
  for (int f = 0; f < numFields; ++f) {
    const uint32_t words = type.bytes[f] / 4;
    std::vector<uint32_t> out((size_t(n) + kGuard) * words);
    SRT_CUDA_CHECK(cudaMemcpy(out.data(), fields[f].dst, out.size() * 4, cudaMemcpyDeviceToHost));
    const uint32_t mask = testing::fieldMask(uint32_t(f), seed);
    if (f == 0) {
      index0.resize(kept);
      for (uint32_t k = 0; k < kept; ++k) index0[k] = out[size_t(k) * words] ^ mask;
    }
    int64_t bad = -1;
#pragma omp parallel for reduction(max : bad)
    for (int64_t k = 0; k < int64_t(kept); ++k) {
      const uint32_t i = index0[k];
      bool ok = i < n && (out[size_t(k) * words] ^ mask) == i && (!ordered || i == expected[k]);
      for (uint32_t w = 1; ok && w < words; ++w)
        ok = out[size_t(k) * words + w] == testing::wordAt(uint32_t(f), seed, i, w);
      if (!ok) bad = std::max<int64_t>(bad, int64_t(kept) - k);  // max of (kept-k): first slot
    }
    if (bad >= 0) {
      const int64_t k = int64_t(kept) - bad;
      return "field " + std::to_string(f) + " slot " + std::to_string(k) + ": holds element " +
             std::to_string(out[size_t(k) * words] ^ mask) + " (field 0 says " +
             std::to_string(index0[k]) + ")" +
             (ordered ? ", expected " + std::to_string(expected[k]) : std::string());
    }
    const uint8_t* tail = reinterpret_cast<const uint8_t*>(out.data()) + size_t(kept) * words * 4;
    const size_t tailBytes = (size_t(n) + kGuard - kept) * words * 4;
    for (size_t b = 0; b < tailBytes; ++b)
      if (tail[b] != kPoison)
        return "field " + std::to_string(f) + " written past numKept, at element " +
               std::to_string(kept + b / (words * 4));
  }
  if (!ordered) {  // the survivors, each exactly once
    std::sort(index0.begin(), index0.end());
    if (index0 != expected) return "the survivors differ from the kept elements";
  }
  return {};
}

DeviceStream allocate(const ElementType& type, size_t maxN) {
  DeviceStream ds;
  ds.keep = Buffer<uint8_t>(MemorySpace::Cuda, maxN + 16);
  for (uint32_t b : type.bytes) {
    ds.src.emplace_back(MemorySpace::Cuda, (maxN + kGuard) * b + 16);
    ds.dst.emplace_back(MemorySpace::Cuda, (maxN + kGuard) * b + 16);
  }
  return ds;
}

class GpuCompaction : public ::testing::TestWithParam<std::tuple<std::string, int>> {
 protected:
  void SetUp() override {
    if (!cudaDeviceAvailable()) GTEST_SKIP() << "no CUDA device: " << cudaDeviceDescription();
  }
};

TEST_P(GpuCompaction, MatchesReferenceOnAwkwardSizesRatiosAndPatterns) {
  const auto& [name, typeIndex] = GetParam();
  const ElementType& type = kTypes[typeIndex];
  const Info* info = Registry::global().find(name);
  ASSERT_NE(info, nullptr);
  auto compactor = Registry::global().create(name);

  const uint32_t perElem = std::accumulate(type.bytes.begin(), type.bytes.end(), 0u);
  const uint32_t maxRandom = perElem > 32 ? 1u << 22 : 1u << 24;  // bounds host checking time
  std::mt19937 rng(20261121u + typeIndex);
  std::uniform_int_distribution<uint32_t> randomSize(1u << 20, maxRandom);
  const uint32_t random[3] = {randomSize(rng), randomSize(rng), randomSize(rng)};
  DeviceStream ds = allocate(type, std::max(maxRandom, (1u << 20) + 7));

  std::vector<Case> cases;
  uint32_t seed = 1000u * typeIndex + 7;
  for (uint32_t n : {0u, 1u, 31u, 32u, 33u, 1023u, 1024u, 1025u, (1u << 20) + 7})
    for (double ratio : {0.0, 0.001, 0.5, 0.6, 1.0})
      for (FlagPattern p : {FlagPattern::Uniform, FlagPattern::Runs, FlagPattern::Blobs})
        cases.push_back({n, {p, ratio, ++seed, seed % 2 == 0}});
  // Large random sizes: one (ratio, pattern) each, to keep the host check short.
  cases.push_back({random[0], {FlagPattern::Uniform, 0.6, ++seed, false}});
  cases.push_back({random[1], {FlagPattern::Blobs, 0.001, ++seed, true}});
  cases.push_back({random[2], {FlagPattern::Runs, 0.5, ++seed, false}});

  for (const Case& cs : cases) {
    const std::string err = runCase(*compactor, info->ordered, type, ds, cs);
    ASSERT_TRUE(err.empty()) << name << " " << type.name << " " << cs.describe() << ": " << err;
  }
}

std::string paramName(const ::testing::TestParamInfo<GpuCompaction::ParamType>& p) {
  std::string s = std::get<0>(p.param) + "_" + kTypes[std::get<1>(p.param)].name;
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(AllCudaPrimitives, GpuCompaction,
                         ::testing::Combine(::testing::ValuesIn(cudaPrimitives()),
                                            ::testing::Range(0, int(std::size(kTypes)))),
                         paramName);

class GpuCompactionEach : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!cudaDeviceAvailable()) GTEST_SKIP() << "no CUDA device: " << cudaDeviceDescription();
  }
};

// Flags at an odd address, fields 4 bytes off a 16-byte boundary and of sizes with no vector
// path (12 and 256 bytes): the scalar fallbacks.
TEST_P(GpuCompactionEach, MisalignedPointersAndOddFieldSizes) {
  const std::string name = GetParam();
  auto compactor = Registry::global().create(name);
  const bool ordered = Registry::global().find(name)->ordered;
  const ElementType odd{"odd12_256", {12, 256}};
  DeviceStream ds = allocate(odd, 100003);
  uint32_t seed = 77;
  for (uint32_t n : {1u, 33u, 4097u, 100003u})
    for (double ratio : {0.001, 0.6, 1.0}) {
      const Case cs{n, {FlagPattern::Uniform, ratio, ++seed, true}};
      const std::string err = runCase(*compactor, ordered, odd, ds, cs, 1, 4);
      ASSERT_TRUE(err.empty()) << name << " " << cs.describe() << ": " << err;
    }
}

// numFields == 0: only the count.
TEST_P(GpuCompactionEach, CountsWithoutFields) {
  const std::string name = GetParam();
  auto compactor = Registry::global().create(name);
  const ElementType none{"count-only", {}};
  DeviceStream ds = allocate(none, (1u << 20) + 7);
  uint32_t seed = 5;
  for (uint32_t n : {0u, 1u, 1025u, (1u << 20) + 7}) {
    const Case cs{n, {FlagPattern::Blobs, 0.5, ++seed, false}};
    const std::string err = runCase(*compactor, true, none, ds, cs);
    ASSERT_TRUE(err.empty()) << name << " " << cs.describe() << ": " << err;
  }
}

TEST_P(GpuCompactionEach, RejectsHostMemoryUnlessItSaysItTakesIt) {
  if (Registry::global().find(Registry::nameOf(GetParam()))->accepts_(MemorySpace::Host))
    GTEST_SKIP() << GetParam() << " takes host memory too (the OpenGL family); tests/gl covers it";
  auto compactor = Registry::global().create(GetParam());
  uint8_t keep = 1;
  uint32_t a = 1, b = 0, kept = 0;
  Field f{&a, &b, 4};
  Request r;
  r.keep = &keep, r.fields = &f, r.numFields = 1, r.count = 1, r.numKept = &kept;
  r.memory = MemorySpace::Host;
  EXPECT_THROW(compactor->compact(r), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(AllCudaPrimitives, GpuCompactionEach,
                         ::testing::ValuesIn(cudaPrimitives()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string s = p.param;
                           for (char& ch : s)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return s;
                         });

// The non-default options of the family: tile sizes, the preload path switched off, block sizes.
TEST(GpuCompactionOptions, VariantsMatchReference) {
  if (!cudaDeviceAvailable()) GTEST_SKIP() << "no CUDA device: " << cudaDeviceDescription();
  for (const char* spec :
       {"lookback:items=8", "lookback:preload=0", "tile-atomic:items=8", "tile-atomic:preload=0",
        "bm-hybrid:block=256", "bm-multilevel:block=64", "warp-aggregated:block=64"}) {
    auto compactor = Registry::global().create(spec);
    const bool ordered = Registry::global().find(Registry::nameOf(spec))->ordered;
    for (int t : {0, 1}) {
      DeviceStream ds = allocate(kTypes[t], (1u << 20) + 7);
      uint32_t seed = 300;
      for (uint32_t n : {0u, 1u, 33u, 2049u, 4097u, (1u << 20) + 7})
        for (double ratio : {0.001, 0.6, 1.0}) {
          const Case cs{n, {FlagPattern::Uniform, ratio, ++seed, true}};
          const std::string err = runCase(*compactor, ordered, kTypes[t], ds, cs);
          ASSERT_TRUE(err.empty())
              << spec << " " << kTypes[t].name << " " << cs.describe() << ": " << err;
        }
    }
  }
}

// One call captured in a CUDA graph and replayed on new flags each time (the kd-tree build
// replays its level loop so): every replay must find the look-back state clean, whatever the
// replay before left in it.
TEST(GpuCompactionGraph, ReplayedCallsMatchReference) {
  if (!cudaDeviceAvailable()) GTEST_SKIP() << "no CUDA device: " << cudaDeviceDescription();
  const ElementType& type = kTypes[1];
  const uint32_t n = (1u << 20) + 7;
  for (const char* name : {"lookback", "tile-atomic"}) {
    auto compactor = Registry::global().create(name);
    const bool ordered = Registry::global().find(name)->ordered;
    DeviceStream ds = allocate(type, n);
    cudaStream_t stream = nullptr;
    SRT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaGraphExec_t exec = nullptr;
    auto replay = [&](const Request& base) {
      Request r = base;
      r.stream = stream;
      SRT_CUDA_CHECK(cudaDeviceSynchronize());  // the case's inputs, made on the default stream
      if (!exec) {  // one call first: the scratch a capture cannot allocate
        compactor->compact(r);
        cudaGraph_t graph = nullptr;
        SRT_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        compactor->compact(r);
        SRT_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
        SRT_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
        SRT_CUDA_CHECK(cudaGraphDestroy(graph));
      }
      SRT_CUDA_CHECK(cudaGraphLaunch(exec, stream));
      SRT_CUDA_CHECK(cudaStreamSynchronize(stream));
    };
    uint32_t seed = 900;
    for (int k = 0; k < 8; ++k) {
      const Case cs{n, {FlagPattern::Uniform, k % 2 ? 0.3 : 0.8, ++seed, true}};
      const std::string err = runCase(*compactor, ordered, type, ds, cs, 0, 0, replay);
      EXPECT_TRUE(err.empty()) << name << " replay " << k << " " << cs.describe() << ": " << err;
    }
    if (exec) SRT_CUDA_CHECK(cudaGraphExecDestroy(exec));
    SRT_CUDA_CHECK(cudaStreamDestroy(stream));
  }
}

TEST(GpuCompactionRegistry, FamilyIsRegisteredWithHonestOrdering) {
  const auto& reg = Registry::global();
  for (const char* name : {"cub", "warp-aggregated", "bm-multilevel", "bm-hybrid",
                           "roger-block-cuda", "lookback", "tile-atomic"})
    ASSERT_NE(reg.find(name), nullptr) << name;
  EXPECT_FALSE(reg.find("warp-aggregated")->ordered);
  EXPECT_FALSE(reg.find("bm-hybrid")->ordered);
  EXPECT_FALSE(reg.find("tile-atomic")->ordered);
  EXPECT_TRUE(reg.find("bm-multilevel")->ordered);
  EXPECT_TRUE(reg.find("roger-block-cuda")->ordered);
  EXPECT_TRUE(reg.find("lookback")->ordered);
  EXPECT_THROW(reg.create("lookback:items=12"), std::invalid_argument);
  EXPECT_THROW(reg.create("bm-hybrid:block=100"), std::invalid_argument);
  EXPECT_THROW(reg.create("tile-atomic:preload=2"), std::invalid_argument);
  EXPECT_NO_THROW(reg.create("tile-atomic:items=8,preload=0"));
}

}  // namespace
}  // namespace srt::compaction
