// A render split over CUDA devices (--devices): one GPU listed twice runs two parts side by side
// on two streams, and the summed image is the one-GPU render's, bit for bit, with the persistent
// traversal (whose ray counter the two parts must not share) and with every GPU of the machine.
#include <gtest/gtest.h>

#include "renderer/multi_device.h"
#include "tests/render/render_test_util.h"

namespace srt {
namespace {

#define REQUIRE_CUDA() \
  if (!cudaDeviceAvailable()) GTEST_SKIP() << "no CUDA device: " << cudaDeviceDescription()

RenderOptions options(IntegratorKind integrator, uint32_t pool) {
  RenderOptions o;
  o.integrator = integrator;
  o.width = 131, o.height = 97;  // not a multiple of a block
  o.spp = 7;                     // split 4 + 3
  o.maxDepth = 8;
  o.poolSize = pool;  // small pools: many passes, so the two parts' launches overlap
  return o;
}

void expectSplitIsTheWhole(const RenderOptions& o, const std::vector<int>& devices,
                           const std::string& what) {
  const Backend cuda = selectBackend("cuda");
  Renderer one(loadScene("cornell"), cuda, o);
  const RenderResult reference = one.render(0.f);
  ASSERT_GT(test::meanOf(reference.image).y, 0.01f) << what;
  MultiDeviceRenderer split(loadScene("cornell"), cuda, o, {}, 0.f, devices);
  for (int repeat = 0; repeat < 2; ++repeat) {  // the streams and pools are reused
    const RenderResult r = split.render(0.f);
    EXPECT_TRUE(test::bitIdentical(reference.image, r.image)) << what << ", render " << repeat;
    EXPECT_EQ(split.filmSums(), one.filmSums()) << what;
    EXPECT_EQ(r.stats.totalRays(), reference.stats.totalRays()) << what;
    EXPECT_EQ(r.stats.samplesDone, o.spp) << what;
  }
}

TEST(MultiDeviceGpu, OneDeviceListedTwiceGivesTheOneDeviceImage) {
  REQUIRE_CUDA();
  for (Traversal t : {Traversal::Persistent, Traversal::Standard})
    for (uint32_t pool : {4096u, 0u}) {  // 0: the device's default pool
      RenderOptions o = options(IntegratorKind::Path, pool);
      o.traversal = t;
      expectSplitIsTheWhole(o, {0, 0},
                            std::string("path, ") + toString(t) + ", pool " + std::to_string(pool));
    }
  expectSplitIsTheWhole(options(IntegratorKind::Whitted, 0), {0, 0}, "whitted");
  RenderOptions index = options(IntegratorKind::Path, 4096);
  index.payload = Payload::Index;
  expectSplitIsTheWhole(index, {0, 0, 0}, "index payload, three parts");
}

TEST(MultiDeviceGpu, EveryDeviceOfTheMachineGivesTheOneDeviceImage) {
  REQUIRE_CUDA();
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  std::vector<int> all;
  for (int d = 0; d < count; ++d) all.push_back(d);
  expectSplitIsTheWhole(options(IntegratorKind::Path, 0), all,
                        std::to_string(count) + " device(s)");
}

}  // namespace
}  // namespace srt
