#include <gtest/gtest.h>

#include <cmath>

#include "apps/viewer/camera_controller.h"

namespace srt::viewer {
namespace {

Camera start() {
  Camera c;
  c.position = {0.f, 1.f, 4.f};
  c.target = {0.f, 1.f, 0.f};
  c.up = {0.f, 1.f, 0.f};
  return c;
}

void expectNear(Vec3f a, Vec3f b, float eps = 1e-4f) {
  EXPECT_NEAR(a.x, b.x, eps);
  EXPECT_NEAR(a.y, b.y, eps);
  EXPECT_NEAR(a.z, b.z, eps);
}

TEST(CameraController, StartsWithTheSceneCameraUnchanged) {
  Camera c = start();
  c.vfovDegrees = 33.f;
  CameraController cc(c);
  expectNear(cc.camera().position, c.position, 0.f);
  expectNear(cc.camera().target, c.target, 0.f);
  EXPECT_EQ(cc.camera().vfovDegrees, 33.f);
}

TEST(CameraController, OrbitKeepsTargetAndDistance) {
  CameraController cc(start());
  cc.orbit(kPi / 2, 0.f);  // a quarter turn about +y: the eye goes from +z to +x or -x
  expectNear(cc.camera().target, {0.f, 1.f, 0.f});
  EXPECT_NEAR(length(cc.camera().position - cc.camera().target), 4.f, 1e-4f);
  EXPECT_NEAR(std::fabs(cc.camera().position.x), 4.f, 1e-4f);
  cc.orbit(0.f, 0.3f);  // pitch: still on the sphere
  EXPECT_NEAR(length(cc.camera().position - cc.camera().target), 4.f, 1e-4f);
  EXPECT_GT(std::fabs(cc.camera().position.y - 1.f), 0.5f);
}

TEST(CameraController, PitchStopsShortOfTheUpAxis) {
  CameraController cc(start());
  cc.orbit(0.f, 1.4f);
  cc.orbit(0.f, 1.4f);  // would pass the pole: refused
  const Vec3f forward = normalize(cc.camera().target - cc.camera().position);
  EXPECT_LT(std::fabs(forward.y), 0.99f);
}

TEST(CameraController, LookKeepsTheEye) {
  CameraController cc(start());
  cc.look(0.5f, 0.2f);
  expectNear(cc.camera().position, {0.f, 1.f, 4.f});
  EXPECT_NEAR(length(cc.camera().target - cc.camera().position), 4.f, 1e-4f);
}

TEST(CameraController, MoveTranslatesEyeAndTargetTogether) {
  CameraController cc(start());
  cc.move({0.f, 0.f, 0.25f});  // forward (-z) by a quarter of the distance: 1 unit
  expectNear(cc.camera().position, {0.f, 1.f, 3.f});
  expectNear(cc.camera().target, {0.f, 1.f, -1.f});
  cc.move({1.f, 0.f, 0.f});  // right of a camera looking down -z is +x
  expectNear(cc.camera().position, {4.f, 1.f, 3.f});
}

TEST(CameraController, DollyApproachesButNeverReachesTheTarget) {
  CameraController cc(start());
  cc.dolly(0.5f);
  expectNear(cc.camera().position, {0.f, 1.f, 2.f});
  for (int i = 0; i < 20; ++i) cc.dolly(5.f);
  EXPECT_GT(length(cc.camera().target - cc.camera().position), 0.f);
  expectNear(cc.camera().target, {0.f, 1.f, 0.f});
}

}  // namespace
}  // namespace srt::viewer
