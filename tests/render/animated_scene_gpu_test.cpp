// Animated scenes on the CUDA backend, with either kd-tree builder (animated_scene_test_util.h
// says what is checked): the transform kernels must round like the host's flatten().
#include "tests/render/animated_scene_test_util.h"

namespace srt::test {
namespace {

#define REQUIRE_CUDA() \
  if (!cudaDeviceAvailable()) GTEST_SKIP() << "no CUDA device: " << cudaDeviceDescription()

AccelOptions gpuBuild() {
  AccelOptions a;
  a.builder = "gpu";
  return a;
}

TEST(AnimatedSceneGpu, MovedGeometryIsTheLoadedGeometry) {
  REQUIRE_CUDA();
  const Backend cuda = selectBackend("cuda");
  expectMovedEqualsLoaded(cuda, {}, false);
  expectMovedEqualsLoaded(cuda, gpuBuild(), true);
}

TEST(AnimatedSceneGpu, TreeStatsOnlyWhenAsked) {
  REQUIRE_CUDA();
  expectTreeStats(selectBackend("cuda"), gpuBuild());
  expectTreeStats(selectBackend("cuda"), {});
}

TEST(AnimatedSceneGpu, ImageAtTimeIsTheImageLoadedAtTime) {
  REQUIRE_CUDA();
  const Backend cuda = selectBackend("cuda");
  for (const AccelOptions& accel : {AccelOptions{}, gpuBuild()}) {
    const Image moved = renderAt(cuda, accel, 0.f, {0.f, 0.9f, 0.45f});
    EXPECT_TRUE(bitIdentical(moved, renderAt(cuda, accel, 0.45f, {0.45f}))) << accel.builder;
  }
  // The GPU's moved vertices are the host's: a CPU-built tree over them sees the same image.
  EXPECT_TRUE(
      bitIdentical(renderAt(cuda, {}, 0.f, {0.f, 0.45f}), renderAt(cuda, {}, 0.45f, {0.45f})));
}

// The next frame's tree built on its own stream and thread beside the render: every frame is the
// serial one's, bit for bit, at either stream priority.
TEST(AnimatedSceneGpu, OverlappedRebuildKeepsEveryFrame) {
  REQUIRE_CUDA();
  const Backend cuda = selectBackend("cuda");
  expectOverlapKeepsTheFrames(cuda, gpuBuild(), "auto");
  setenv("SRT_KD_BUILD_PRIORITY", "normal", 1);
  AccelOptions withStats = gpuBuild();  // the tree copied back on the build's thread too
  withStats.rebuildTreeStats = true;
  expectOverlapKeepsTheFrames(cuda, withStats, "on");
  unsetenv("SRT_KD_BUILD_PRIORITY");
  // The CPU builder on CUDA keeps the serial path.
  AccelOptions cpuBuild;
  cpuBuild.builder = "cpu";
  EXPECT_FALSE(playFrames(cuda, cpuBuild, "on", {0.2f, 0.4f}, {0.4f}).overlapped[1]);
}

}  // namespace
}  // namespace srt::test
