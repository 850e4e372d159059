// Every GL compaction variant against a CPU reference: awkward sizes (below one block, not a
// multiple of the block, exactly one 64-wide row, one 128-element group of flag bits and one
// past it, the largest block and one past it), keep ratios 0 and 1, random flags, long runs,
// segments that cross row ends and ones that end exactly at a row end, multi-field requests
// (fields written by the final pass as render targets, and fields gathered afterwards); each
// variant's stated ordering is checked. Sizes stay modest: llvmpipe is a CPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

#include "primitives/common/memory.h"
#include "primitives/compaction/compaction.h"
#include "primitives/compaction/gl/gl_compactors.h"
#include "primitives/gl/gl_context.h"
#include "tests/gl/gl_test_streams.h"

namespace srt::compaction {
namespace {

using testing::awkwardCases;
using testing::Case;
using testing::makeFlags;
using testing::reference;

// Compacts one 4-byte field holding each element's index; returns the survivors' indices.
std::vector<uint32_t> compactIndices(Compactor& c, const std::vector<uint8_t>& keep) {
  const uint32_t n = uint32_t(keep.size());
  std::vector<uint32_t> src(n), dst(n, 0xdeadbeef);
  std::iota(src.begin(), src.end(), 0u);
  Field field{src.data(), dst.data(), 4};
  uint32_t kept = 0xffffffff;
  Request r;
  r.keep = keep.data();
  r.fields = &field;
  r.numFields = 1;
  r.count = n;
  r.numKept = &kept;
  r.memory = MemorySpace::Host;
  c.compact(r);
  dst.resize(std::min(kept, n));
  EXPECT_LE(kept, n);
  return dst;
}

class GlCompaction : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string why;
    if (!srt::gl::glAvailable(&why)) GTEST_SKIP() << why;
  }
};

TEST_P(GlCompaction, MatchesTheCpuReference) {
  const std::string spec = GetParam();
  const Info* info = Registry::global().find(Registry::nameOf(spec));
  ASSERT_NE(info, nullptr);
  auto c = Registry::global().create(spec);
  uint32_t seed = 1;
  for (const Case& k : awkwardCases()) {
    const std::vector<uint8_t> keep = makeFlags(k.pattern, k.n, seed++);
    std::vector<uint32_t> got = compactIndices(*c, keep);
    std::vector<uint32_t> want = reference(keep);
    if (!info->ordered) {
      // Not order-preserving: the same survivors, each once.
      std::sort(got.begin(), got.end());
    }
    ASSERT_EQ(got, want) << spec << ", n = " << k.n << ", pattern " << k.pattern;
  }
}

// Compacts fields of these sizes in host memory (checked by compactsFields); returns whether
// GL gather passes ran (the final pass did not write the fields itself).
bool checkFields(const std::string& spec, const std::vector<uint32_t>& sizes, uint32_t n,
                 uint32_t seed) {
  auto c = Registry::global().create(spec);
  const bool ordered = Registry::global().find(Registry::nameOf(spec))->ordered;
  EXPECT_TRUE(
      testing::compactsFields(*c, ordered, sizes, makeFlags("half", n, seed), MemorySpace::Host))
      << spec;
  return testing::ranGlGather(*c);
}

// payload=cuda: the stream side (here the host) gathers every field by GL's indices, so no GL
// gather pass runs whatever the fields.
bool payloadByIndices(const std::string& spec) {
  return spec.find("payload=cuda") != std::string::npos;
}

TEST_P(GlCompaction, MovesEveryFieldWithOnePermutation) {
  // 12 and 32 bytes: gathered after the indices are known (not render-target formats).
  EXPECT_EQ(checkFields(GetParam(), {4, 12, 32, 8}, 3001, 77), !payloadByIndices(GetParam()));
}

TEST_P(GlCompaction, FieldsWrittenByTheFinalPass) {
  // Render-target fields: the path state (four 16-byte fields), mixed widths, eight 4-byte
  // fields (the most render targets; transform feedback takes four), and nine (one too many:
  // gathered instead).
  const bool feedback = Registry::nameOf(GetParam()) == "gl-gs-packing";
  const bool byIndices = payloadByIndices(GetParam());
  EXPECT_FALSE(checkFields(GetParam(), {16, 16, 16, 16}, 2999, 11));
  EXPECT_FALSE(checkFields(GetParam(), {4, 8, 16, 4}, 1027, 12));
  EXPECT_EQ(checkFields(GetParam(), std::vector<uint32_t>(8, 4), 777, 13), feedback);
  EXPECT_EQ(checkFields(GetParam(), std::vector<uint32_t>(9, 4), 778, 14), !byIndices);
}

TEST_P(GlCompaction, CountOnlyAndEmptyStreams) {
  auto c = Registry::global().create(GetParam());
  const std::vector<uint8_t> keep = makeFlags("half", 999, 5);
  uint32_t kept = 0;
  Request r;
  r.keep = keep.data();
  r.count = 999;
  r.numKept = &kept;
  r.memory = MemorySpace::Host;
  c->compact(r);
  EXPECT_EQ(kept, reference(keep).size());
  r.count = 0;
  kept = 123;
  c->compact(r);
  EXPECT_EQ(kept, 0u);
}

// The same check at sizes for a real GPU (SRT_GL_LARGE=1 in the environment; the CUDA host runs
// it): millions of elements, many rows, full-size textures.
TEST_P(GlCompaction, LargeStreamsWhenAsked) {
  if (!std::getenv("SRT_GL_LARGE")) GTEST_SKIP() << "large sizes run with SRT_GL_LARGE=1";
  const std::string spec = GetParam();
  auto c = Registry::global().create(spec);
  const bool ordered = Registry::global().find(Registry::nameOf(spec))->ordered;
  uint32_t seed = 900;
  for (uint32_t n : {(1u << 20) + 77, (4u << 20) + 3})
    for (const char* pattern : {"half", "runs", "sparse"}) {
      const std::vector<uint8_t> keep = makeFlags(pattern, n, seed++);
      std::vector<uint32_t> got = compactIndices(*c, keep);
      if (!ordered) std::sort(got.begin(), got.end());
      ASSERT_EQ(got, reference(keep)) << spec << ", n = " << n << ", pattern " << pattern;
    }
}

TEST_P(GlCompaction, CudaMemoryThroughInterop) {
  if (!cudaDeviceAvailable()) GTEST_SKIP() << "no CUDA device: " << cudaDeviceDescription();
  auto c = Registry::global().create(GetParam());
  for (uint32_t n : {1u, 1000u, 70001u}) {
    const std::vector<uint8_t> keep = makeFlags("half", n, n);
    std::vector<uint32_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0u);
    Buffer<uint8_t> dKeep(MemorySpace::Cuda, keep);
    Buffer<uint32_t> dSrc(MemorySpace::Cuda, idx), dDst(MemorySpace::Cuda, n);
    Buffer<uint32_t> dKept(MemorySpace::Cuda, 1);
    Field field{dSrc.data(), dDst.data(), 4};
    Request r;
    r.keep = dKeep.data();
    r.fields = &field;
    r.numFields = 1;
    r.count = n;
    r.numKept = dKept.data();
    r.memory = MemorySpace::Cuda;
    c->compact(r);
    const uint32_t kept = dKept.download()[0];
    std::vector<uint32_t> got = dDst.download(kept);
    if (!Registry::global().find(Registry::nameOf(GetParam()))->ordered)
      std::sort(got.begin(), got.end());
    ASSERT_EQ(got, reference(keep)) << GetParam() << ", n = " << n;
  }
}

// Every registered GL name, plus the option combinations worth a run of their own. Sengupta's
// hybrid gets a small `parallelism` so both its reduce and its Hillis-Steele part run here.
std::vector<std::string> specs() {
  return testing::glSpecs({"gl-roger:block=8",
                        "gl-roger:block=2048",
                        "gl-roger:block=256",
                        "gl-roger:block=32",
                        "gl-roger:scan=blelloch",
                        "gl-roger:scan=sengupta,parallelism=256",
                        "gl-roger:radix=8",
                        "gl-roger:radix=32,block=8",
                        "gl-roger:block=2048,radix=4,scan=sengupta,parallelism=64",
                        "gl-horn:radix=16",
                        "gl-rlz:block=256,radix=8",
                        "gl-roger:search=improved",
                        "gl-roger:block=2048,search=improved",
                        "gl-roger:block=512,search=improved,scan=blelloch",
                        "gl-roger:search=plain",
                        "gl-roger:block=8,search=plain",
                        "gl-roger:block=1024,search=next,output=element",
                        "gl-roger:offsets=aligned",
                        "gl-roger:offsets=aligned,search=plain",
                        "gl-roger:offsets=aligned,block=8",
                        "gl-roger:offsets=aligned,block=32,wrap=draw-twice",
                        "gl-roger:offsets=aligned,output=element",
                        "gl-roger:offsets=wide",
                        "gl-roger:offsets=wide,search=plain",
                        "gl-roger:offsets=wide,block=16",
                        "gl-roger:offsets=wide,block=64,radix=8",
                        "gl-roger:wrap=draw-twice",
                        "gl-roger:output=element",
                        "gl-roger:output=element,wrap=draw-twice,block=1024",
                        "gl-roger:block=8,wrap=draw-twice,scan=blelloch",
                        "gl-roger:wrap=vertex",
                        "gl-roger:wrap=vertex,block=8",
                        "gl-roger:wrap=vertex,block=2048",
                        "gl-roger:wrap=vertex,output=element,block=1024",
                        "gl-roger:offsets=wide,wrap=vertex",
                        "gl-roger:offsets=aligned,block=8,wrap=vertex",
                        "gl-roger:diag=concat",
                        "gl-roger:invalidate=output",
                        "gl-roger:concat=pair",
                        "gl-roger:concat=pair,block=8",
                        "gl-roger:concat=pair,block=256,search=plain",
                        "gl-roger:concat=pair,block=16,wrap=vertex",
                        "gl-roger:concat=pair,diag=concat",
                        "gl-roger:heads=inline",
                        "gl-roger:heads=inline,block=8",
                        "gl-roger:heads=inline,block=2048,scan=blelloch",
                        "gl-roger:heads=inline,offsets=aligned,block=8",
                        "gl-roger:heads=inline,offsets=wide",
                        "gl-roger:heads=inline,concat=pair,wrap=vertex",
                        "gl-roger:heads=inline,output=element",
                        "gl-roger:heads=inline,diag=concat",
                        // Bands only where the indices are read by the stream side (payload=cuda:
                        // here the host reads them back); with payload=gl the rows layout.
                        "gl-roger:layout=bands",
                        "gl-roger:payload=cuda",
                        "gl-roger:layout=rows,concat=quarters,heads=points",
                        "gl-roger:layout=rows,concat=quarters,heads=points,payload=cuda",
                        "gl-roger:payload=cuda,block=512",
                        "gl-roger:payload=cuda,offsets=wide",
                        "gl-roger:layout=bands,payload=cuda",
                        "gl-roger:layout=bands,payload=cuda,heads=inline",
                        "gl-roger:layout=bands,payload=cuda,block=8",
                        "gl-roger:layout=bands,payload=cuda,block=2048,heads=inline",
                        "gl-roger:layout=bands,payload=cuda,offsets=wide",
                        "gl-roger:layout=bands,payload=cuda,offsets=aligned,block=8,heads=inline",
                        "gl-roger:layout=bands,payload=cuda,concat=pair,heads=inline,diag=concat",
                        "gl-roger:layout=bands,payload=cuda,diag=concat",
                        "gl-roger:layout=bands,count=device,heads=inline",
                        "gl-roger:invalidate=output,offsets=wide,block=16",
                        "gl-roger:diag=concat,offsets=wide,wrap=vertex",
                        "gl-roger:diag=concat,block=8,output=element",
                        "gl-horn:scan=sengupta,parallelism=512",
                        "gl-horn:output=element",
                        "gl-horn-blelloch:output=element",
                        "gl-jumping-jack:block=8",
                        "gl-jumping-jack:block=2048,scan=blelloch",
                        "gl-jumping-jack:block=256,output=element",
                        "gl-rlz:runs=sweep",
                        "gl-rlz:block=8,runs=sweep,scan=sengupta,parallelism=64",
                        "gl-rlz:block=2048",
                        "gl-rlz:block=256,output=element",
                        "gl-binary-tree:block=8",
                        "gl-binary-tree:block=2048,scan=blelloch",
                        "gl-binary-tree:block=256",
                        "gl-binary-tree:block=512,output=element"});
}

INSTANTIATE_TEST_SUITE_P(AllGl, GlCompaction, ::testing::ValuesIn(specs()),
                         testing::specTestName);

TEST(GlCompactionRegistry, AllVariantsAreRegisteredWithTheirOrdering) {
  for (const char* name : {"gl-roger", "gl-horn", "gl-horn-blelloch", "gl-gs-packing",
                           "gl-jumping-jack", "gl-rlz", "gl-binary-tree"}) {
    const Info* info = Registry::global().find(name);
    ASSERT_NE(info, nullptr) << name;
    EXPECT_EQ(info->device, Device::Gl);
    EXPECT_TRUE(info->accepts_(MemorySpace::Host));
    EXPECT_TRUE(info->accepts_(MemorySpace::Cuda));
    EXPECT_EQ(info->ordered, std::string(name) != "gl-jumping-jack") << name;
  }
}

TEST(GlCompactionRegistry, BadOptionsAreErrors) {
  // Options are read before any GL call, so these fail the same way without a GL context.
  for (const char* spec :
       {"gl-roger:block=100",        "gl-roger:block=4",        "gl-roger:block=4096",
        "gl-roger:scan=foo",         "gl-roger:search=fast",    "gl-roger:wrap=twice",
        "gl-roger:wrap=vertices",    "gl-roger:diag=all",       "gl-horn:diag=concat",
        "gl-roger:invalidate=all",   "gl-roger:concat=pairs",   "gl-roger:concat=pair,block=512",
        "gl-roger:concat=pair,offsets=wide", "gl-roger:heads=lines",
        "gl-roger:layout=columns",   "gl-roger:heads=some",     "gl-roger:concat=any",
        "gl-horn:block=64",          "gl-rlz:runs=x",           "gl-binary-tree:block=abc",
        "gl-gs-packing:block=64",    "gl-roger:parallelism=0",  "gl-roger:output=wide",
        "gl-gs-packing:output=quad", "gl-horn:search=plain",    "gl-roger:interop=foo",
        "gl-roger:sync=never",       "gl-roger:payload=host",   "gl-gs-packing:payload=x",
        "gl-horn:interop=zero-copy", "gl-roger:radix=3",        "gl-roger:radix=64",
        "gl-roger:map=never",        "gl-roger:indices=buffer", "gl-roger:count=gl",
        "gl-roger:offsets=x",        "gl-roger:offsets=wide,block=8",
        "gl-roger:offsets=aligned,block=256", "gl-roger:offsets=aligned,search=improved",
        "gl-jumping-jack:offsets=aligned"}) {
    try {
      Registry::global().create(spec);
      ADD_FAILURE() << spec << " was accepted";
    } catch (const std::invalid_argument& e) {
      SUCCEED() << e.what();
    } catch (const srt::gl::GlUnavailable&) {
      ADD_FAILURE() << spec << ": options must be checked before GL";
    }
  }
  try {
    Registry::global().create("gl-roger:block=100");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("block=100"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace srt::compaction

namespace srt::compaction {
namespace {

// The point of the narrow formats: before the final pass, gl-roger writes flags as bits and
// in-block offsets as bytes, so all its passes together write about a byte per element, where
// a 32-bit pass writes four.
TEST(GlCompactionBytes, RogerWritesNarrowPasses) {
  std::string why;
  if (!srt::gl::glAvailable(&why)) GTEST_SKIP() << why;
  auto c = Registry::global().create("gl-roger");
  auto* gl = dynamic_cast<gl::GlCompactor*>(c.get());
  ASSERT_NE(gl, nullptr);
  const uint32_t n = 100000;
  const std::vector<uint8_t> keep = makeFlags("half", n, 21);
  const std::vector<uint32_t> got = compactIndices(*c, keep);
  ASSERT_EQ(got, reference(keep));
  uint64_t flagsWritten = 0, beforeFinal = 0, finalWritten = 0;
  for (const gl::PassRecord& p : gl->lastPasses()) {
    if (p.step == "flags") flagsWritten += p.written;
    if (p.step == "concatenate")
      finalWritten += p.written;
    else if (p.step != "upload" && p.step != "readback")
      beforeFinal += p.written;
  }
  EXPECT_EQ(flagsWritten, (n + 127) / 128 * 16);  // one bit per element
  EXPECT_LT(beforeFinal, uint64_t(n) * 5 / 4) << "passes before the concatenation";
  EXPECT_GE(finalWritten, uint64_t(got.size()) * 4);  // the 4-byte payload, once
}

// diag=concat draws the concatenation's decomposition into the output before the real draw,
// which then overwrites it: each reduced draw is a step of its own, the real one keeps its two
// passes, and the output is still right (twice: the second call sizes the full-target pass by
// the first call's count).
TEST(GlCompactionDiag, DecomposesTheConcatenationBesideTheRealOne) {
  std::string why;
  if (!srt::gl::glAvailable(&why)) GTEST_SKIP() << why;
  auto c = Registry::global().create("gl-roger:diag=concat");
  auto* gl = dynamic_cast<gl::GlCompactor*>(c.get());
  ASSERT_NE(gl, nullptr);
  for (uint32_t seed : {31u, 32u}) {
    const std::vector<uint8_t> keep = makeFlags("half", 5003, seed);
    ASSERT_EQ(compactIndices(*c, keep), reference(keep));
  }
  int diagPasses = 0, realPasses = 0;
  for (const gl::PassRecord& p : gl->lastPasses()) {
    diagPasses += p.step.rfind("diag: ", 0) == 0;
    realPasses += p.step == "concatenate";
  }
  EXPECT_EQ(realPasses, 2);   // the lines and the head points
  EXPECT_GE(diagPasses, 12);  // every reduced draw but "nothing" (two more with wide lines)
  std::vector<std::string> steps;
  for (const auto& [step, ms] : gl->lastStepTimes()) steps.push_back(step);
  for (const char* step : {"diag: nothing", "diag: lines, constant", "diag: head points",
                           "diag: vertex-shader lines, full shader",
                           "diag: full-target pass, full shader", "concatenate"})
    EXPECT_NE(std::find(steps.begin(), steps.end(), step), steps.end()) << step;
}

// The viewer's case: a context the application made (GLFW there; a second headless one here) is
// current, and the algorithms run on it instead of making their own.
TEST(GlCompactionContext, RunsOnTheCallersCurrentContext) {
  std::string why;
  if (!srt::gl::glAvailable(&why)) GTEST_SKIP() << why;
  auto own = srt::gl::GlContext::createHeadless();
  own->makeCurrent();
  srt::gl::useExternalContext(true);
  struct Restore {
    ~Restore() { srt::gl::useExternalContext(false); }
  } restore;
  auto c = Registry::global().create("gl-roger:block=16");
  const std::vector<uint8_t> keep = makeFlags("half", 2000, 3);
  EXPECT_EQ(compactIndices(*c, keep), reference(keep));
  EXPECT_TRUE(own->isCurrent());
}

}  // namespace
}  // namespace srt::compaction
