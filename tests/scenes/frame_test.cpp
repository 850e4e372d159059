// frameScene, the camera of files without one: from the front for an object, from within for a
// room (a closed model seen from inside, as the Dabrovic Sponza OBJ).
#include <gtest/gtest.h>

#include <fstream>

#include "scenes/loader.h"
#include "scenes/scene.h"
#include "test_util.h"

namespace srt {
namespace {

Scene fromJson(const std::string& text) {
  test::ScratchDir dir;
  return loadScene(dir.write("s.json", text));
}

bool insideBounds(const Camera& c, const Scene& s) {
  const Bounds3f b = s.bounds();
  for (int k = 0; k < 3; ++k)
    if (c.position[k] < b.lo[k] || c.position[k] > b.hi[k]) return false;
  return true;
}

TEST(FrameScene, AnObjectIsFramedFromOutside) {
  const Scene s = fromJson("{\"objects\": [{\"shape\": \"sphere\", \"radius\": 3}]}");
  const Camera c = frameScene(s, 16.f / 9.f);
  EXPECT_FALSE(insideBounds(c, s));
  EXPECT_GT(c.position.z, s.bounds().hi.z);
}

TEST(FrameScene, ARoomWithThingsInsideIsFramedFromWithin) {
  const Scene s = fromJson(
      "{\"objects\": [{\"shape\": \"sphere\", \"radius\": 10, \"inward\": true, \"subdivisions\": "
      "8}, {\"shape\": \"sphere\", \"center\": [2, 0, 0], \"radius\": 1, \"subdivisions\": 32}]}");
  const Camera c = frameScene(s, 16.f / 9.f);
  EXPECT_TRUE(insideBounds(c, s));
  EXPECT_GT(c.vfovDegrees, 40.f);
}

TEST(FrameScene, SponzaFromWithinTheTeapotFromOutside) {
  const std::string sponza = test::testScenesDir() + "/dabrovic-sponza/sponza.obj";
  const std::string teapot = test::testScenesDir() + "/teapot/teapot.obj";
  if (!std::ifstream(sponza).good() || !std::ifstream(teapot).good())
    GTEST_SKIP() << "the shared scenes are not unpacked in " << test::testScenesDir();
  LoadOptions quiet;
  quiet.quiet = true;
  const Scene room = loadScene(sponza, quiet), object = loadScene(teapot, quiet);
  EXPECT_TRUE(insideBounds(frameScene(room, 16.f / 9.f), room));
  EXPECT_FALSE(insideBounds(frameScene(object, 16.f / 9.f), object));
}

}  // namespace
}  // namespace srt
