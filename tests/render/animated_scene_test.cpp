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

}  // namespace
}  // namespace srt::test
