// `auto` on host memory: with test candidates of known, very different costs in a local Registry
// it settles on the cheap one and tracks a change; its output is a valid compaction on awkward
// sizes whichever candidate ran; its options are checked; the global "auto" is registered.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numeric>
#include <random>
#include <thread>

#include "primitives/compaction/adaptive/adaptive_compactor.h"
#include "primitives/compaction/compaction.h"

namespace srt::compaction {
namespace {

// A temporary XDG_CACHE_HOME for auto's calibration cache, removed afterwards (the one before is
// restored): one per TestRegistry, so no test reads what an earlier one learnt.
struct TempCache {
  std::string dir, previous;
  bool hadPrevious = false;
  TempCache() {
    if (const char* p = std::getenv("XDG_CACHE_HOME")) previous = p, hadPrevious = true;
    char tmpl[] = "/tmp/srt-auto-cache-XXXXXX";
    dir = mkdtemp(tmpl);
    setenv("XDG_CACHE_HOME", dir.c_str(), 1);
  }
  ~TempCache() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
    if (hadPrevious)
      setenv("XDG_CACHE_HOME", previous.c_str(), 1);
    else
      unsetenv("XDG_CACHE_HOME");
  }
  std::string file() const { return dir + "/streamrt/auto-calibration.txt"; }
};

// A plain host compaction with a configurable cost (a sleep) and order (reversed = unordered).
struct FakeState {
  std::atomic<int> sleepUs{0};
  std::atomic<int> calls{0};
  std::atomic<uint32_t> reserved{0};
};

class FakeCompactor final : public Compactor {
 public:
  FakeCompactor(FakeState* s, bool reversed) : s_(s), reversed_(reversed) {}
  void reserve(uint32_t maxCount) override { s_->reserved = maxCount; }
  void compact(const Request& r) override {
    validate(r);
    if (r.memory != MemorySpace::Host) throw std::invalid_argument("fake: host memory only");
    ++s_->calls;
    if (s_->sleepUs > 0) std::this_thread::sleep_for(std::chrono::microseconds(s_->sleepUs));
    uint32_t kept = 0;
    for (uint32_t i = 0; i < r.count; ++i) kept += r.keep[i] != 0;
    uint32_t out = reversed_ ? kept : 0;
    for (uint32_t i = 0; i < r.count; ++i) {
      if (!r.keep[i]) continue;
      const uint32_t slot = reversed_ ? --out : out++;
      for (int f = 0; f < r.numFields; ++f) {
        const Field& fd = r.fields[f];
        std::memcpy(static_cast<char*>(fd.dst) + size_t(slot) * fd.bytes,
                    static_cast<const char*>(fd.src) + size_t(i) * fd.bytes, fd.bytes);
      }
    }
    *r.numKept = kept;
  }

 private:
  FakeState* s_;
  bool reversed_;
};

// A local registry: "fast", "slow" (ordered) and "reverse" (unordered), plus "none" and "auto".
struct TestRegistry {
  TempCache cache;
  Registry registry;
  FakeState fast, slow, reverse;
  TestRegistry() {
    auto add = [&](const char* name, FakeState* s, bool reversed) {
      registry.add(
          {name, Device::Cpu, !reversed, true, {MemorySpace::Host}, "test candidate"},
          [s, reversed](OptionReader&) { return std::make_unique<FakeCompactor>(s, reversed); });
    };
    add("fast", &fast, false);
    add("slow", &slow, false);
    add("reverse", &reverse, true);
    registry.add({"none", Device::Any, true, false, {MemorySpace::Host}, "does not compact"},
                 [](OptionReader&) -> std::unique_ptr<Compactor> { return nullptr; });
    registerAdaptiveCompactors(registry);
  }
  // The tests' streams are short: unless a test says otherwise, auto explores them anyway.
  std::unique_ptr<AdaptiveCompactor> create(std::string spec) {
    if (spec.find("tiny=") == std::string::npos)
      spec += spec.find(':') == std::string::npos ? ":tiny=0" : ",tiny=0";
    std::unique_ptr<Compactor> c = registry.create(spec);
    auto* a = dynamic_cast<AdaptiveCompactor*>(c.get());
    if (!a) throw std::logic_error("auto is not an AdaptiveCompactor");
    c.release();
    return std::unique_ptr<AdaptiveCompactor>(a);
  }
};

// One host stream: an index field and a 12-byte field, the outputs poisoned.
struct HostStream {
  std::vector<uint8_t> keep;
  std::vector<uint32_t> index, outIndex;
  std::vector<uint32_t> triple, outTriple;  // 3 words per element
  std::vector<Field> fields;
  uint32_t kept = 0xdeadbeef;
  HostStream(uint32_t n, double ratio, uint32_t seed) : keep(n), index(n), triple(3 * size_t(n)) {
    std::mt19937 rng(seed);
    std::bernoulli_distribution bit(ratio);
    for (auto& k : keep) k = bit(rng) ? uint8_t(1 + rng() % 255) : 0;
    std::iota(index.begin(), index.end(), 0u);
    for (size_t i = 0; i < triple.size(); ++i) triple[i] = uint32_t(i * 2654435761u);
    poison();
    fields = {{index.data(), outIndex.data(), 4}, {triple.data(), outTriple.data(), 12}};
  }
  void poison() {
    outIndex.assign(index.size() + 1, 0xdeadbeef);
    outTriple.assign(triple.size() + 3, 0xdeadbeef);
    kept = 0xdeadbeef;
    if (!fields.empty()) fields[0].dst = outIndex.data(), fields[1].dst = outTriple.data();
  }
  Request request() {
    Request r;
    r.keep = keep.data();
    r.fields = fields.data();
    r.numFields = int(fields.size());
    r.count = uint32_t(keep.size());
    r.numKept = &kept;
    r.memory = MemorySpace::Host;
    return r;
  }
  // Empty string, or what is wrong; `ordered` asks for stable_partition order.
  std::string check(bool ordered) const {
    std::vector<uint32_t> expected;
    for (uint32_t i = 0; i < keep.size(); ++i)
      if (keep[i]) expected.push_back(i);
    if (kept != expected.size())
      return "numKept " + std::to_string(kept) + ", expected " + std::to_string(expected.size());
    std::vector<uint32_t> got(outIndex.begin(), outIndex.begin() + kept);
    for (uint32_t k = 0; k < kept; ++k)
      for (int w = 0; w < 3; ++w)
        if (outTriple[3 * size_t(k) + w] != triple[3 * size_t(got[k]) + w])
          return "slot " + std::to_string(k) + ": fields moved with different permutations";
    if (outIndex[kept] != 0xdeadbeef || outTriple[3 * size_t(kept)] != 0xdeadbeef)
      return "written past numKept";
    if (!ordered) std::sort(got.begin(), got.end());
    if (got != expected) return ordered ? "not in input order" : "survivors differ";
    return {};
  }
};

TEST(AdaptiveCompactor, SettlesOnTheCheaperCandidate) {
  TestRegistry t;
  t.slow.sleepUs = 3000;
  auto a = t.create("auto:candidates=slow+fast");
  HostStream s(1000, 0.5, 1);
  for (int i = 0; i < 40; ++i) {
    s.poison();
    Request r = s.request();
    a->compact(r);
    ASSERT_EQ(s.check(true), "") << "call " << i << " ran " << a->lastChoice();
  }
  // Each candidate's first, untimed warm-up run counts here too.
  EXPECT_EQ(t.slow.calls, 1 + 1) << "a candidate 1000x slower is timed once, then left";
  EXPECT_EQ(t.fast.calls, 1 + 39);
  EXPECT_EQ(a->lastChoice(), "fast");
  const auto stats = a->shapeStats();
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].choice, "fast");
  EXPECT_EQ(stats[0].calls, 40u);
  EXPECT_EQ(stats[0].countLog2, 10);
  EXPECT_EQ(stats[0].numFields, 2);
  EXPECT_EQ(stats[0].bytesPerElement, 16u);
  EXPECT_NE(a->choiceSummary().find("host n<2^10 x 2 fields 16 B: fast"), std::string::npos)
      << a->choiceSummary();
  EXPECT_TRUE(a->ordered());
}

TEST(AdaptiveCompactor, ANewShapeStartsFromWhatASimilarOneLearnt) {
  TestRegistry t;
  t.slow.sleepUs = 3000;
  auto a = t.create("auto:candidates=slow+fast");
  for (uint32_t n : {1000u, 3000u, 100000u, 20u}) {  // four count buckets
    HostStream s(n, 0.5, n);
    for (int i = 0; i < 5; ++i) {
      s.poison();
      Request r = s.request();
      a->compact(r);
      ASSERT_EQ(s.check(true), "");
    }
  }
  EXPECT_EQ(a->shapeStats().size(), 4u);
  EXPECT_EQ(t.slow.calls, 1 + 1) << "only the first shape paid for timing the slow candidate";
}

TEST(AdaptiveCompactor, FollowsTheChosenCandidateWhenItGetsSlower) {
  TestRegistry t;
  t.slow.sleepUs = 2000;
  auto a = t.create("auto:candidates=slow+fast");
  HostStream s(100, 0.5, 2);
  for (int i = 0; i < 12; ++i) {
    Request r = s.request();
    a->compact(r);
  }
  ASSERT_EQ(a->shapeStats()[0].choice, "fast");
  ASSERT_EQ(t.slow.calls, 1 + 1);  // warm-up and one timed run
  t.fast.sleepUs = 15000;  // its own periodic timings show it; "slow" is then the better one
  const int before = t.fast.calls;
  for (int i = 0; i < 60; ++i) {
    Request r = s.request();
    a->compact(r);
  }
  EXPECT_EQ(a->shapeStats()[0].choice, "slow") << a->choiceSummary();
  EXPECT_LT(t.fast.calls - before, 40) << a->choiceSummary();
  EXPECT_EQ(a->lastChoice(), "slow");
}

TEST(AdaptiveCompactor, ValidCompactionOnAwkwardSizesWhicheverCandidateRuns) {
  TestRegistry t;
  auto a = t.create("auto:candidates=fast+reverse,samples=3,probe=2");
  EXPECT_FALSE(a->ordered()) << "one candidate is unordered";
  for (uint32_t n : {0u, 1u, 31u, 32u, 33u, 1023u, 1024u, 1025u, (1u << 20) + 7})
    for (double ratio : {0.0, 0.001, 0.5, 1.0}) {
      HostStream s(n, ratio, n * 7 + uint32_t(ratio * 100));
      for (int i = 0; i < 4; ++i) {
        s.poison();
        Request r = s.request();
        a->compact(r);
        ASSERT_EQ(s.check(false), "")
            << "n=" << n << " ratio=" << ratio << " call " << i << " ran " << a->lastChoice();
      }
    }
  EXPECT_GT(t.fast.calls, 0);
  EXPECT_GT(t.reverse.calls, 0);
}

TEST(AdaptiveCompactor, DefaultCandidatesAreTheCompactingOnesOfTheMemorySpace) {
  TestRegistry t;
  auto a = t.create("auto");
  HostStream s(5000, 0.3, 3);
  for (int i = 0; i < 20; ++i) {
    Request r = s.request();
    a->compact(r);
  }
  std::vector<std::string> names;
  const auto stats = a->shapeStats();
  for (const auto& c : stats[0].candidates) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"fast", "slow", "reverse"}));  // never none or auto
  EXPECT_FALSE(a->ordered());
  auto ordered = t.create("auto:ordered=1");
  EXPECT_TRUE(ordered->ordered());
}

TEST(AdaptiveCompactor, ReserveReachesTheCandidates) {
  TestRegistry t;
  auto a = t.create("auto:candidates=fast+slow");
  a->reserve(5000);
  EXPECT_EQ(t.fast.reserved, 0u) << "candidates are sized on the first request in their space";
  HostStream s(10, 1.0, 4);
  Request r = s.request();
  a->compact(r);
  EXPECT_EQ(t.fast.reserved, 5000u);
  EXPECT_EQ(t.slow.reserved, 5000u);
  a->reserve(9000);
  EXPECT_EQ(t.fast.reserved, 9000u);
}

TEST(AdaptiveCompactor, RejectsBadOptions) {
  TestRegistry t;
  for (const char* spec :
       {"auto:candidates=fast+nope", "auto:candidates=none", "auto:candidates=auto",
        "auto:candidates=fast+reverse,ordered=1", "auto:samples=0", "auto:gl=2", "auto:probe=-1",
        "auto:colour=red", "auto:candidates=fast:block=3"})
    EXPECT_THROW(t.registry.create(spec), std::invalid_argument) << spec;
  EXPECT_NO_THROW(t.registry.create("auto:candidates=fast+slow,samples=3,probe=0,gl=0"));
}

TEST(AdaptiveCompactor, NoCandidateForTheMemorySpaceIsAClearError) {
  auto a = Registry::global().create("auto:candidates=cub");
  uint8_t keep = 1;
  uint32_t src = 1, dst = 0, kept = 0;
  Field f{&src, &dst, 4};
  Request r;
  r.keep = &keep, r.fields = &f, r.numFields = 1, r.count = 1, r.numKept = &kept;
  r.memory = MemorySpace::Host;
  try {
    a->compact(r);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no candidate for streams in host memory"),
              std::string::npos)
        << e.what();
  }
}

TEST(AdaptiveCompactor, GlobalAutoIsRegisteredAndRunsCpuOnHostMemory) {
  const Info* info = Registry::global().find("auto");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->device, Device::Any);
  EXPECT_TRUE(info->compacts);
  EXPECT_FALSE(info->ordered) << "the default CUDA candidates include unordered ones";
  EXPECT_TRUE(info->accepts_(MemorySpace::Host));
  EXPECT_TRUE(info->accepts_(MemorySpace::Cuda));
  std::unique_ptr<Compactor> c = Registry::global().create("auto");
  auto* a = dynamic_cast<AdaptiveCompactor*>(c.get());
  ASSERT_NE(a, nullptr);
  HostStream s((1u << 16) + 3, 0.6, 5);
  for (int i = 0; i < 3; ++i) {
    s.poison();
    Request r = s.request();
    a->compact(r);
    ASSERT_EQ(s.check(true), "");
    EXPECT_EQ(a->lastChoice(), "cpu");
  }
  ASSERT_EQ(a->shapeStats().size(), 1u);
  EXPECT_EQ(a->shapeStats()[0].candidates.size(), 1u) << "on host memory only 'cpu' compacts";
}

void run(AdaptiveCompactor& a, HostStream& s, int calls) {
  for (int i = 0; i < calls; ++i) {
    s.poison();
    Request r = s.request();
    a.compact(r);
    ASSERT_EQ(s.check(true), "") << "call " << i << " ran " << a.lastChoice();
  }
}

TEST(AdaptiveCompactor, ShortStreamsAreNeitherExploredNorTimed) {
  TestRegistry t;
  t.slow.sleepUs = 3000;
  auto a = t.create("auto:candidates=fast+slow,tiny=2048");
  HostStream s(1000, 0.5, 1);
  run(*a, s, 30);
  EXPECT_EQ(t.slow.calls, 1) << "only its warm-up: a short stream is not explored";
  ASSERT_EQ(a->shapeStats().size(), 1u);
  EXPECT_TRUE(a->shapeStats()[0].tiny);
  for (const auto& c : a->shapeStats()[0].candidates) EXPECT_EQ(c.samples, 0u) << c.name;

  // A short stream after a long one runs what the long one learnt.
  auto b = t.create("auto:candidates=slow+fast,tiny=2048");
  HostStream large(5000, 0.5, 2);
  run(*b, large, 20);
  const int slowCalls = t.slow.calls;
  run(*b, s, 20);
  EXPECT_EQ(t.slow.calls, slowCalls);
  EXPECT_EQ(b->lastChoice(), "fast");
}

TEST(AdaptiveCompactor, CalibrationCacheSkipsTheExplorationOfAFreshProcess) {
  TestRegistry t;
  const TempCache& cache = t.cache;
  t.slow.sleepUs = 3000;
  HostStream s(1000, 0.5, 1);
  {
    auto a = t.create("auto:candidates=slow+fast");
    run(*a, s, 20);
  }  // written when destroyed
  std::string text;
  {
    std::ifstream in(cache.file());
    ASSERT_TRUE(in) << cache.file();
    std::getline(in, text, '\0');
  }
  EXPECT_EQ(text.rfind("streamrt-auto-calibration 1\n", 0), 0u) << text;
  EXPECT_NE(text.find("\tslow "), std::string::npos) << text;

  const int before = t.slow.calls;
  auto b = t.create("auto:candidates=slow+fast");
  run(*b, s, 20);
  EXPECT_EQ(t.slow.calls, before + 1) << "its warm-up only: the cached costs say it loses";
  EXPECT_TRUE(b->shapeStats()[0].calibrated);
  EXPECT_EQ(b->lastChoice(), "fast");

  auto fresh = t.create("auto:candidates=slow+fast,fresh");
  run(*fresh, s, 20);
  EXPECT_EQ(t.slow.calls, before + 1 + 2) << "fresh ignores the cache: warm-up and a sample";
  EXPECT_FALSE(fresh->shapeStats()[0].calibrated);

  // Another device or version: no entry applies.
  std::filesystem::remove(cache.file());
  auto other = t.create("auto:candidates=slow+fast");
  run(*other, s, 5);
  EXPECT_FALSE(other->shapeStats()[0].calibrated);
}

// A process that ends with _Exit runs no destructor: persist(), called after every render, must
// leave the cache written, even when the render ended before exploration did.
TEST(AdaptiveCompactor, PersistWritesTheCacheWithoutTheDestructor) {
  TestRegistry t;
  const TempCache& cache = t.cache;
  t.slow.sleepUs = 3000;
  HostStream s(1000, 0.5, 1);
  auto a = t.create("auto:candidates=slow+fast");
  run(*a, s, 1);
  a->persist();
  EXPECT_FALSE(std::filesystem::exists(cache.file())) << "one candidate timed: nothing to save";
  run(*a, s, 1);
  ASSERT_TRUE(a->shapeStats()[0].exploring) << "a second round of samples is still due";
  a->persist();
  ASSERT_TRUE(std::filesystem::exists(cache.file())) << "both timed once: worth an entry";

  // A fresh process reads what persist() wrote (a's destructor has not run).
  const int before = t.slow.calls;
  auto b = t.create("auto:candidates=slow+fast");
  run(*b, s, 20);
  EXPECT_TRUE(b->shapeStats()[0].calibrated);
  EXPECT_EQ(t.slow.calls, before + 1) << "its warm-up only: the cached costs say it loses";
  EXPECT_EQ(b->lastChoice(), "fast");

  std::filesystem::remove(cache.file());
  run(*a, s, 5);
  a->persist();
  EXPECT_FALSE(std::filesystem::exists(cache.file())) << "nothing newly measured: no rewrite";
}

TEST(AdaptiveCompactor, CorruptOrOtherVersionCacheIsIgnoredAndReplaced) {
  TestRegistry t;
  const TempCache& cache = t.cache;
  t.slow.sleepUs = 3000;
  HostStream s(1000, 0.5, 1);
  std::filesystem::create_directories(cache.dir + "/streamrt");
  const char* bad[] = {"not a cache\n", "streamrt-auto-calibration 1\nhost\tcuda\tx\n",
                       "streamrt-auto-calibration 1\nd\thost\t2\t16\t10\tfast nan\n"};
  testing::internal::CaptureStderr();
  for (const char* text : bad) {
    std::ofstream(cache.file()) << text;
    const int before = t.slow.calls;
    {
      auto a = t.create("auto:candidates=slow+fast");
      run(*a, s, 20);
      EXPECT_FALSE(a->shapeStats()[0].calibrated);
      EXPECT_EQ(t.slow.calls, before + 2) << "explored as without a cache";
    }
    std::ifstream in(cache.file());
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "streamrt-auto-calibration 1") << "replaced by a valid file";
  }
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("warning: ignoring the auto calibration cache"), std::string::npos) << err;
  EXPECT_EQ(err.find("warning"), err.rfind("warning")) << "one warning a process: " << err;

  std::ofstream(cache.file()) << "streamrt-auto-calibration 999\nwhatever\n";
  testing::internal::CaptureStderr();
  auto a = t.create("auto:candidates=slow+fast");
  run(*a, s, 3);
  EXPECT_FALSE(a->shapeStats()[0].calibrated);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "") << "another version is not an error";
}

TEST(AdaptiveCompactor, FlagsMayBeGivenBare) {
  TestRegistry t;
  EXPECT_NO_THROW(t.registry.check("auto:fresh"));
  EXPECT_NO_THROW(t.registry.check("auto:candidates=fast+slow,fresh,tiny=0"));
  EXPECT_THROW(t.registry.check("auto:samples"), std::invalid_argument);
  EXPECT_THROW(t.registry.check("auto:fresh=2"), std::invalid_argument);
}

}  // namespace
}  // namespace srt::compaction
