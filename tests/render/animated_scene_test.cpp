// Animated scenes on the CPU backend (animated_scene_test_util.h says what is checked).
#include "tests/render/animated_scene_test_util.h"

namespace srt::test {
namespace {

TEST(AnimatedScene, MovedGeometryIsTheLoadedGeometryCpu) {
  const Backend cpu = selectBackend("cpu");
  expectMovedEqualsLoaded(cpu, {}, false);
  expectMovedEqualsLoaded(cpu, {}, true);
}

TEST(AnimatedScene, TreeStatsOnlyWhenAskedCpu) {
  expectTreeStats(selectBackend("cpu"), {});
}

TEST(AnimatedScene, ImageAtTimeIsTheImageLoadedAtTimeCpu) {
  const Backend cpu = selectBackend("cpu");
  const Image moved = renderAt(cpu, {}, 0.f, {0.f, 0.9f, 0.45f});
  const Image loaded = renderAt(cpu, {}, 0.45f, {0.45f});
  EXPECT_TRUE(bitIdentical(moved, loaded));
  EXPECT_FALSE(bitIdentical(moved, renderAt(cpu, {}, 0.f, {0.f})));  // it did move
}

TEST(AnimatedScene, OverlappedRebuildKeepsEveryFrameCpu) {
  expectOverlapKeepsTheFrames(selectBackend("cpu"), {}, "on");
  AccelOptions gpuAlgorithm;  // the GPU builder's algorithm on the host
  gpuAlgorithm.builder = "gpu-host";
  expectOverlapKeepsTheFrames(selectBackend("cpu"), gpuAlgorithm, "on");
}

TEST(AnimatedScene, OverlapIsOffByDefaultOnTheCpu) {
  const PlayedFrames f = playFrames(selectBackend("cpu"), {}, "auto", {0.2f, 0.4f}, {0.4f});
  EXPECT_FALSE(f.overlapped[1]);
}

TEST(AnimatedScene, UnknownOverlapIsRefused) {
  AccelOptions accel;
  accel.overlap = "sometimes";
  unsetenv("SRT_KD_OVERLAP");
  EXPECT_THROW(SceneData(movingSpheres(false), selectBackend("cpu"), 0.f, accel),
               std::invalid_argument);
  setenv("SRT_KD_OVERLAP", "maybe", 1);
  EXPECT_THROW(SceneData(movingSpheres(false), selectBackend("cpu"), 0.f, {}),
               std::invalid_argument);
  unsetenv("SRT_KD_OVERLAP");
}

}  // namespace
}  // namespace srt::test
