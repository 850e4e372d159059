// The rendered image does not depend on which builder made the kd-tree: the Conference Room with
// its emissive panels (shadow rays with a finite tMax, paths leaving surfaces) rendered on the CPU
// backend through the CPU builder's tree and through the GPU build algorithm's tree (its host
// reference, --kd-build gpu-host) must match bit for bit. Skips without the shared scenes.
#include <gtest/gtest.h>

#include "tests/render/identical_trees_test.h"

namespace srt {
namespace {

TEST(IdenticalTrees, ConferenceRoomImageIsTheSameWithEitherBuildersTree) {
  Scene scene;
  if (!test::litConferenceRoom(&scene))
    GTEST_SKIP() << "no conference-room/conference.obj under " << test::testScenesDir();
  RenderOptions o;
  o.width = 96, o.height = 54, o.spp = 4, o.maxDepth = 8;
  const Backend cpu = selectBackend("cpu");
  AccelOptions cpuTree, gpuAlgorithmTree;
  cpuTree.builder = "cpu";
  gpuAlgorithmTree.builder = "gpu-host";
  const Image a = Renderer(scene, cpu, o, cpuTree).render(0.f).image;
  const Image b = Renderer(scene, cpu, o, gpuAlgorithmTree).render(0.f).image;
  EXPECT_EQ(test::firstDifferingPixel(a, b), "") << "first pixel that differs (x,y)";
}

}  // namespace
}  // namespace srt
