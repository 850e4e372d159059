// Registry::check(): a spec read against the options its registration describes, and against a
// caller's needs, without making the primitive (so without a GPU or an OpenGL context).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>

#include "primitives/compaction/compaction.h"

namespace srt::compaction {
namespace {

std::string errorOf(const std::string& spec, const Needs& needs = {}) {
  try {
    Registry::global().check(spec, needs);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

Needs inMemory(MemorySpace m) {
  Needs n;
  n.memory = m;
  return n;
}

TEST(CompactionRegistryCheck, MakesNothing) {
  std::atomic<int> made{0};
  Registry r;
  r.add({"counted", Device::Cpu, true, true, {MemorySpace::Host}, "test"},
        [&made](OptionReader& o) -> std::unique_ptr<Compactor> {
          ++made;
          o.getInt("k", 1);
          return nullptr;
        },
        {intOption("k", 1, 1, 4)});
  EXPECT_EQ(r.check("counted:k=3").name, "counted");
  EXPECT_THROW(r.check("counted:k=5"), std::invalid_argument);
  EXPECT_EQ(made.load(), 0);
  r.create("counted:k=2");
  EXPECT_EQ(made.load(), 1);
}

TEST(CompactionRegistryCheck, EveryPrimitiveChecksWithItsDefaultsAndDescribesEachOption) {
  for (const auto& e : Registry::global().entries()) {
    EXPECT_NO_THROW(Registry::global().check(e.info.name)) << e.info.name;
    for (const OptionSpec& o : e.info.options) {
      EXPECT_TRUE(o.accepts(o.fallback)) << e.info.name << ": " << o.key << "=" << o.fallback;
      EXPECT_FALSE(o.accepted.empty()) << e.info.name << ": " << o.key;
    }
    // The summary `streamrt list` prints names every option.
    for (const OptionSpec& o : e.info.options)
      EXPECT_NE(e.info.summary().find(o.key + "="), std::string::npos) << e.info.name;
  }
}

TEST(CompactionRegistryCheck, BadOptionsAreNamedWithWhatIsAccepted) {
  const std::string block = errorOf("warp-aggregated:block=100");
  EXPECT_NE(block.find("--compaction: "), std::string::npos) << block;
  EXPECT_NE(block.find("block=100"), std::string::npos) << block;
  EXPECT_NE(block.find("multiple of 32"), std::string::npos) << block;
  const std::string key = errorOf("lookback:itemz=8");
  EXPECT_NE(key.find("has no option 'itemz'"), std::string::npos) << key;
  EXPECT_NE(key.find("items, preload"), std::string::npos) << key;
  EXPECT_NE(errorOf("cpu:block").find("not of the form key=value"), std::string::npos);
  EXPECT_NE(errorOf("tile-atomic:items=8,items=16").find("given twice"), std::string::npos);
  EXPECT_NE(errorOf("cub:block=64").find("(it takes none)"), std::string::npos);
  EXPECT_NE(errorOf("nope").find("unknown compaction primitive 'nope' (registered: "),
            std::string::npos);
  // The OpenGL family is checked without a context.
  EXPECT_EQ(errorOf("gl-roger:block=128,scan=blelloch,wrap=draw-twice"), "");
  EXPECT_NE(errorOf("gl-roger:block=100").find("a power of two"), std::string::npos);
  EXPECT_NE(errorOf("gl-horn:block=64").find("has no option 'block'"), std::string::npos);
}

TEST(CompactionRegistryCheck, NeedsNameTheFirstUnmetRequirement) {
  const std::string memory = errorOf("cub", inMemory(MemorySpace::Host));
  EXPECT_NE(memory.find("'cub' runs on cuda and cannot take streams in host memory"),
            std::string::npos)
      << memory;
  EXPECT_NE(memory.find("primitives that can: cpu, none"), std::string::npos) << memory;

  Needs kd;  // the GPU kd build's
  kd.what = "--kd-compaction";
  kd.memory = MemorySpace::Cuda;
  kd.device = Device::Cuda;
  kd.compacts = kd.ordered = true;
  kd.kind = "an ordered CUDA compaction primitive";
  EXPECT_EQ(errorOf("cub", kd), "");
  EXPECT_EQ(errorOf("lookback:items=8", kd), "");
  const std::string host = errorOf("cpu", kd);
  EXPECT_EQ(host.rfind("--kd-compaction: 'cpu' is not an ordered CUDA compaction primitive", 0), 0u)
      << host;
  EXPECT_NE(host.find("use one of: cub, bm-multilevel"), std::string::npos) << host;
  EXPECT_NE(errorOf("tile-atomic", kd).find("is not an ordered"), std::string::npos);
  EXPECT_NE(errorOf("none", kd).find("is not an ordered"), std::string::npos);

  Needs noGl = inMemory(MemorySpace::Host);
  noGl.gl = false;
  EXPECT_NE(errorOf("gl-rlz", noGl).find("OpenGL"), std::string::npos);
}

TEST(CompactionRegistryCheck, AutoIsResolvedFromItsOptions) {
  const Registry& r = Registry::global();
  EXPECT_FALSE(r.check("auto").usesGl());
  EXPECT_TRUE(r.check("auto:gl=1").usesGl());
  EXPECT_TRUE(r.check("auto:candidates=cpu+gl-roger:block=32").usesGl());
  const Info host = r.check("auto:candidates=cpu");
  EXPECT_TRUE(host.accepts_(MemorySpace::Host));
  EXPECT_FALSE(host.accepts_(MemorySpace::Cuda));
  EXPECT_TRUE(host.ordered);
  EXPECT_NE(errorOf("auto:candidates=cpu", inMemory(MemorySpace::Cuda)).find("cannot take"),
            std::string::npos);
  EXPECT_TRUE(r.check("auto:ordered=1").ordered);
  EXPECT_FALSE(r.check("auto:candidates=cub+tile-atomic").ordered);
  // A candidate's own options are checked too, and so is what cannot be a candidate.
  EXPECT_NE(errorOf("auto:candidates=cub+tile-atomic:items=9").find("items=9"), std::string::npos);
  EXPECT_NE(errorOf("auto:candidates=none").find("does not compact"), std::string::npos);
  EXPECT_NE(errorOf("auto:candidates=auto").find("picks among"), std::string::npos);
  EXPECT_NE(errorOf("auto:ordered=1,candidates=tile-atomic").find("unordered"), std::string::npos);
  EXPECT_NE(errorOf("auto:samples=0").find("samples=0"), std::string::npos);
}

TEST(CompactionRegistryCheck, MatchingIsTheOneFilter) {
  const std::vector<std::string> host =
      Registry::global().namesMatching(inMemory(MemorySpace::Host));
  const auto has = [&host](const char* n) {
    return std::find(host.begin(), host.end(), n) != host.end();
  };
  EXPECT_TRUE(has("cpu") && has("none") && has("auto") && has("gl-roger"));
  EXPECT_FALSE(has("cub") || has("lookback"));
  for (const Info* i : Registry::global().matching(inMemory(MemorySpace::Cuda)))
    EXPECT_TRUE(i->accepts_(MemorySpace::Cuda)) << i->name;
}

// A factory that reads an option its registration does not describe is a registration bug.
TEST(CompactionRegistryCheck, FactoryReadingAnUndescribedOptionIsCaught) {
  Registry r;
  r.add({"sneaky", Device::Cpu, true, true, {MemorySpace::Host}, "test"},
        [](OptionReader& o) -> std::unique_ptr<Compactor> {
          o.getInt("hidden", 0);
          return nullptr;
        });
  EXPECT_THROW(r.create("sneaky"), std::logic_error);
}

}  // namespace
}  // namespace srt::compaction
