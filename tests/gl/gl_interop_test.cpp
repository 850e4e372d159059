// The ways a stream crosses between its memory and GL, each against the CPU reference on the
// awkward sizes, with one 4-byte field, the path state's four 16-byte fields, mixed widths (GL
// gather passes under payload=gl) and nine 4-byte fields:
//   - payload=cuda on host streams: GL computes the survivors' indices, the host gathers;
//   - external memory on the host side (interop=vulkan): Vulkan memory GL imports, mapped by the
//     host (lavapipe with llvmpipe here), with growth from stream to stream;
//   - on a CUDA host, every interop (registered buffers; host copies; external memory from Vulkan
//     or CUDA VMM, with semaphores or host waits, only with SRT_GL_TEST_EXTERNAL=1) with both
//     payload sides, alternating two CUDA streams.
// An explicit interop the machine cannot give skips with its reason; auto and host copies must
// always work.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <stdexcept>

#include "primitives/gl/external_buffer.h"
#include "primitives/gl/gl_context.h"
#include "tests/gl/gl_test_streams.h"

namespace srt::compaction {
namespace {

using testing::awkwardCases;
using testing::compactsFields;
using testing::makeFlags;

const std::vector<std::vector<uint32_t>> kWideShapes{
    {16, 16, 16, 16}, {4, 12, 32, 8}, std::vector<uint32_t>(9, 4)};

bool orderedSpec(const std::string& spec) {
  return Registry::global().find(Registry::nameOf(spec))->ordered;
}

std::string withOption(const std::string& spec, const std::string& option) {
  return spec + (spec.find(':') == std::string::npos ? ":" : ",") + option;
}

// Every awkward size with one 4-byte field, and the wide shapes on a few sizes.
void checkAllShapes(Compactor& c, const std::string& spec, MemorySpace memory,
                    const std::vector<cudaStream_t>& streams = {nullptr}) {
  uint32_t seed = 31, call = 0;
  for (const auto& k : awkwardCases())
    ASSERT_TRUE(compactsFields(c, orderedSpec(spec), {4}, makeFlags(k.pattern, k.n, seed++), memory,
                               streams[call++ % streams.size()]))
        << spec << ", pattern " << k.pattern;
  for (const auto& shape : kWideShapes)
    for (uint32_t n : {1u, 1000u, 5003u})
      ASSERT_TRUE(compactsFields(c, orderedSpec(spec), shape, makeFlags("half", n, seed++), memory,
                                 streams[call++ % streams.size()]))
          << spec << ", " << shape.size() << " fields";
}

bool hasStep(const Compactor& c, const std::string& name) {
  for (const auto& [step, ms] : dynamic_cast<const gl::GlCompactor&>(c).lastStepTimes())
    if (step == name) return true;
  return false;
}

class GlPayloadOnHost : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string why;
    if (!srt::gl::glAvailable(&why)) GTEST_SKIP() << why;
  }
};

// payload=cuda on host streams: GL writes only the survivors' indices, the host gathers.
TEST_P(GlPayloadOnHost, GathersOnTheHostFromGlsIndices) {
  const std::string spec = withOption(GetParam(), "payload=cuda");
  auto c = Registry::global().create(spec);
  checkAllShapes(*c, spec, MemorySpace::Host);
  EXPECT_TRUE(hasStep(*c, "payload gather (host)")) << spec;
  EXPECT_FALSE(testing::ranGlGather(*c)) << spec << ": no GL gather passes";
  EXPECT_NE(c->choiceSummary().find("gathered on the host"), std::string::npos)
      << c->choiceSummary();
}

// payload=gl on host streams (also the default there): GL's final pass writes the fields.
TEST_P(GlPayloadOnHost, GlWritesTheFieldsByDefault) {
  for (const std::string& spec : {GetParam(), withOption(GetParam(), "payload=gl")}) {
    auto c = Registry::global().create(spec);
    ASSERT_TRUE(compactsFields(*c, orderedSpec(spec), {16, 16, 16, 16}, makeFlags("half", 2999, 8),
                               MemorySpace::Host));
    EXPECT_FALSE(hasStep(*c, "payload gather (host)")) << spec;
    EXPECT_NE(c->choiceSummary().find("written by GL"), std::string::npos) << c->choiceSummary();
  }
}

std::vector<std::string> payloadSpecs() {
  return testing::glSpecs({"gl-roger:output=element", "gl-roger:block=2048", "gl-rlz:block=8"});
}

INSTANTIATE_TEST_SUITE_P(AllGl, GlPayloadOnHost, ::testing::ValuesIn(payloadSpecs()),
                         testing::specTestName);

// Whether Vulkan can export memory on the GL context's GPU here; `why` when not.
bool vulkanMemoryHere(std::string* why) {
  if (!srt::gl::glAvailable(why)) return false;
  srt::gl::ensureCurrentContext();
  srt::gl::vulkan::Uuid uuid{};
  if (!srt::gl::glCanImport(false, why)) return false;
  if (!srt::gl::glDeviceUuid(&uuid)) {
    *why = "GL gives no device UUID";
    return false;
  }
  return srt::gl::vulkan::available(uuid, false, why);
}

// External memory with the host as the stream's side: the buffers GL reads and writes are Vulkan
// memory it imported, the host writes and reads them through a mapping. Sizes grow from call to
// call, so the buffers are re-made on imported memory several times.
TEST(GlExternalMemory, VulkanMemoryMappedOnTheHost) {
  std::string why;
  if (!vulkanMemoryHere(&why)) GTEST_SKIP() << why;
  for (const char* spec :
       {"gl-roger:interop=vulkan", "gl-roger:interop=vulkan,payload=cuda",
        "gl-gs-packing:interop=vulkan", "gl-gs-packing:interop=vulkan,payload=cuda",
        "gl-horn:interop=vulkan,output=element", "gl-jumping-jack:interop=vulkan,payload=cuda"}) {
    auto c = Registry::global().create(spec);
    checkAllShapes(*c, spec, MemorySpace::Host);
    EXPECT_NE(c->choiceSummary().find("external memory (Vulkan"), std::string::npos)
        << spec << ": " << c->choiceSummary();
  }
}

// reserve() compiles the programs and sets up the interop with small compactions of its own;
// the calls after it see none of that.
TEST(GlReserve, WarmUpLeavesLaterCallsExact) {
  std::string why;
  if (!srt::gl::glAvailable(&why)) GTEST_SKIP() << why;
  for (const char* spec : {"gl-roger", "gl-gs-packing:payload=cuda", "gl-rlz:block=2048"}) {
    auto c = Registry::global().create(spec);
    c->reserve(40000);
    checkAllShapes(*c, spec, MemorySpace::Host);
  }
}

// interop=host (host copies, auto's last resort on CUDA streams) on host streams: plain uploads.
TEST(GlHostCopies, HostStreamsCompactThroughUploads) {
  std::string why;
  if (!srt::gl::glAvailable(&why)) GTEST_SKIP() << why;
  for (const char* spec : {"gl-roger:interop=host", "gl-roger:interop=host,payload=cuda"}) {
    auto c = Registry::global().create(spec);
    checkAllShapes(*c, spec, MemorySpace::Host);
    EXPECT_NE(c->choiceSummary().find("host memory"), std::string::npos) << c->choiceSummary();
  }
  EXPECT_THROW(Registry::global().create("gl-roger:interop=mapped"), std::invalid_argument);
}

TEST(GlExternalMemory, CudaOnlyChoicesAreErrorsOnHostStreams) {
  std::string why;
  if (!srt::gl::glAvailable(&why)) GTEST_SKIP() << why;
  for (const char* spec :
       {"gl-roger:interop=vmm", "gl-roger:interop=registered", "gl-roger:sync=semaphores"}) {
    auto c = Registry::global().create(spec);
    EXPECT_THROW(
        EXPECT_TRUE(compactsFields(*c, true, {4}, makeFlags("half", 100, 1), MemorySpace::Host)),
        std::invalid_argument)
        << spec;
  }
}

// On a CUDA host: every interop with both payload sides.
class GlCudaInterop : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!cudaDeviceAvailable()) GTEST_SKIP() << "no CUDA device: " << cudaDeviceDescription();
    std::string why;
    if (!srt::gl::glAvailable(&why)) GTEST_SKIP() << why;
  }
};

// Makes the compactor and runs one small call; an explicit choice the machine cannot give
// returns null with the reason (auto and registered must work).
std::unique_ptr<Compactor> madeAndRun(const std::string& spec, std::string* why) {
  auto c = Registry::global().create(spec);
  try {
    EXPECT_TRUE(
        compactsFields(*c, orderedSpec(spec), {4}, makeFlags("half", 1000, 2), MemorySpace::Cuda));
  } catch (const std::runtime_error& e) {
    const bool optional = spec.find("interop=vulkan") != std::string::npos ||
                          spec.find("interop=vmm") != std::string::npos ||
                          spec.find("interop=registered") != std::string::npos ||
                          spec.find("sync=") != std::string::npos;
    if (!optional) throw;
    *why = e.what();
    return nullptr;
  }
  return c;
}

bool externalSpec(const std::string& spec) {
  return spec.find("interop=vulkan") != std::string::npos ||
         spec.find("interop=vmm") != std::string::npos;
}

TEST_P(GlCudaInterop, MatchesTheReference) {
  const std::string spec = GetParam();
  // A failed external path can leave CUDA unusable (a fatal kernel error) for every test after
  // it in this process: asked for explicitly. streamrt-bench-gl --interop-diagnose isolates them.
  if (externalSpec(spec) && !std::getenv("SRT_GL_TEST_EXTERNAL"))
    GTEST_SKIP() << spec << ": external memory runs with SRT_GL_TEST_EXTERNAL=1";
  std::string why;
  auto c = madeAndRun(spec, &why);
  if (!c) GTEST_SKIP() << spec << " unavailable here: " << why;
  std::cout << spec << ": " << c->choiceSummary() << "\n";
  cudaStream_t streams[2];
  for (auto& s : streams) SRT_CUDA_CHECK(cudaStreamCreate(&s));
  checkAllShapes(*c, spec, MemorySpace::Cuda, {streams[0], streams[1]});
  if (std::getenv("SRT_GL_LARGE")) {
    for (const auto& shape : {std::vector<uint32_t>{4}, std::vector<uint32_t>{16, 16, 16, 16}})
      ASSERT_TRUE(compactsFields(*c, orderedSpec(spec), shape,
                                 makeFlags("half", (2u << 20) + 77, 5), MemorySpace::Cuda,
                                 streams[0]))
          << spec << ", 2M, " << shape.size() << " fields";
  }
  const bool onStream = spec.find("payload=gl") == std::string::npos;
  EXPECT_EQ(hasStep(*c, "payload gather (cuda)"), onStream) << spec;
  EXPECT_GE(c->lastTransferMs(), 0.0);
  for (auto& s : streams) cudaStreamDestroy(s);
}

std::vector<std::string> cudaSpecs() {
  std::vector<std::string> out;
  for (const char* interop :
       {"", "interop=registered", "interop=registered,map=call", "interop=host", "interop=vulkan",
        "interop=vulkan,sync=fences", "interop=vmm", "interop=vmm,sync=fences"})
    for (const char* payload : {"", "payload=gl"}) {
      std::string options = interop;
      if (*payload) options += std::string(options.empty() ? "" : ",") + payload;
      out.push_back("gl-roger" + (options.empty() ? "" : ":" + options));
    }
  for (const char* s : {"gl-gs-packing", "gl-gs-packing:payload=gl", "gl-horn:output=element",
                        "gl-jumping-jack", "gl-binary-tree:payload=gl"})
    out.push_back(s);
  // The gather reading the indices from GL's output texture (four a texel, then one), and the
  // count from where GL packed it (8-, 16- and 32-bit block scans).
  for (const char* s : {"gl-roger:indices=texture", "gl-roger:indices=texture,map=call",
                        "gl-roger:indices=texture,output=element", "gl-gs-packing:indices=texture",
                        "gl-horn:output=element,indices=texture", "gl-roger:count=device",
                        "gl-roger:count=device,output=element,block=1024",
                        "gl-jumping-jack:count=device,map=call", "gl-rlz:count=device,block=8",
                        "gl-roger:offsets=wide", "gl-roger:offsets=aligned,count=device"})
    out.push_back(s);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Cuda, GlCudaInterop, ::testing::ValuesIn(cudaSpecs()),
                         testing::specTestName);

// auto takes registered buffers where their round trip works, else host copies.
TEST(GlCudaInteropChoice, AutoTakesRegisteredBuffersWhereTheyWorkElseHostCopies) {
  if (!cudaDeviceAvailable()) GTEST_SKIP() << "no CUDA device: " << cudaDeviceDescription();
  std::string why;
  if (!srt::gl::glAvailable(&why)) GTEST_SKIP() << why;
  std::string reason;
  const bool registered = madeAndRun("gl-roger:interop=registered", &reason) != nullptr;
  std::cout << "gl-roger:interop=registered" << (registered ? ": works" : ": " + reason) << "\n";
  auto c = madeAndRun("gl-roger", &why);
  ASSERT_NE(c, nullptr);
  std::cout << "auto: " << c->choiceSummary() << "\n";
  const std::string want = registered ? "interop: registered" : "interop: host copies";
  EXPECT_EQ(c->choiceSummary().rfind(want, 0), 0u) << c->choiceSummary();
}

}  // namespace
}  // namespace srt::compaction
