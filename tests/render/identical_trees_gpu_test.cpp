// The CUDA counterpart of identical_trees_cpu_test.cpp: on the device, the Conference Room's image
// is the same bit for bit whether the kd-tree comes from the CPU builder, the GPU builder, or the
// GPU algorithm's host reference (which separates the algorithm from the device build), with the
// default (persistent) traversal and the standard one. Skips without a CUDA device or the scenes.
#include <gtest/gtest.h>

#include "primitives/common/cuda_check.h"
#include "tests/render/identical_trees_test.h"

namespace srt {
namespace {

TEST(IdenticalTreesGpu, ConferenceRoomImageIsTheSameWithEveryBuildersTree) {
  if (!cudaDeviceAvailable()) GTEST_SKIP() << "no CUDA device: " << cudaDeviceDescription();
  Scene scene;
  if (!test::litConferenceRoom(&scene))
    GTEST_SKIP() << "no conference-room/conference.obj under " << test::testScenesDir();
  const Backend cuda = selectBackend("cuda");
  for (Traversal traversal : {Traversal::Auto, Traversal::Standard}) {
    RenderOptions o;
    o.width = 480, o.height = 270, o.spp = 16, o.maxDepth = 8;
    o.traversal = traversal;
    Image images[3];
    const char* builders[3] = {"cpu", "gpu", "gpu-host"};
    for (int k = 0; k < 3; ++k) {
      AccelOptions accel;
      accel.builder = builders[k];
      images[k] = Renderer(scene, cuda, o, accel).render(0.f).image;
    }
    for (int k = 1; k < 3; ++k)
      EXPECT_EQ(test::firstDifferingPixel(images[0], images[k]), "")
          << "first pixel (x,y) where the " << builders[k] << " tree's image differs from the cpu "
          << "tree's, traversal " << (traversal == Traversal::Auto ? "auto" : "standard");
  }
}

}  // namespace
}  // namespace srt
