// JSON scene files: the shipped examples, transforms and animation, and error messages.
#include <gtest/gtest.h>

#include <cmath>

#include "scenes/loader.h"
#include "test_util.h"

namespace srt {
namespace {

const std::string kExamples = srt::test::testDataDir() + "/examples";

void expectNear(Vec3f a, Vec3f b, float eps) {
  EXPECT_NEAR(a.x, b.x, eps);
  EXPECT_NEAR(a.y, b.y, eps);
  EXPECT_NEAR(a.z, b.z, eps);
}

TEST(JsonScenes, StaticExampleLoads) {
  const Scene s = loadScene(kExamples + "/shapes.json");
  EXPECT_EQ(s.name, "shapes");
  EXPECT_EQ(s.instances.size(), 7u);
  ASSERT_TRUE(s.camera.has_value());
  EXPECT_NEAR(s.camera->lensRadius, 0.02f, 1e-6f);
  EXPECT_EQ(s.pointLights.size(), 1u);
  EXPECT_TRUE(s.environment == Vec3f(0.6f, 0.7f, 0.9f));
  EXPECT_EQ(s.animationEnd, 0.f);
  int types[4] = {0, 0, 0, 0};
  for (const Material& m : s.materials) ++types[int(m.type)];
  for (int t = 0; t < 4; ++t) EXPECT_GT(types[t], 0) << "material type " << t;
}

TEST(JsonScenes, AnimatedExampleOrbits) {
  const Scene s = loadScene(kExamples + "/cornell-orbit.json");
  EXPECT_FLOAT_EQ(s.animationEnd, 2.f);
  const Scene cornell = builtinScene("cornell");
  EXPECT_EQ(s.meshes.size(), cornell.meshes.size() + 1) << "the built-in plus the sphere";
  const Instance& orbiter = s.instances.back();
  ASSERT_EQ(orbiter.keyframes.size(), 3u);
  // Sphere centre in object space is (150, 0, 0); the orbit is about (278, 420, 280).
  const Vec3f c0 = orbiter.transformAt(0.f).point({150.f, 0.f, 0.f});
  const Vec3f c1 = orbiter.transformAt(1.f).point({150.f, 0.f, 0.f});
  const Vec3f cHalf = orbiter.transformAt(0.5f).point({150.f, 0.f, 0.f});
  expectNear(c0, {428.f, 420.f, 280.f}, 1e-2f);
  expectNear(c1, {128.f, 420.f, 280.f}, 1e-2f);
  EXPECT_NEAR(length(cHalf - Vec3f{278.f, 420.f, 280.f}), 150.f, 1e-2f);
  EXPECT_NEAR(cHalf.y, 420.f, 1e-3f);
  EXPECT_GT(std::fabs(cHalf.z - 280.f), 149.f) << "a quarter turn at t = 0.5";
  // The sphere stays inside the box at every time.
  const Bounds3f box = cornell.bounds();
  for (float t = 0.f; t <= 2.f; t += 0.125f) {
    const Bounds3f b = s.bounds(t);
    EXPECT_TRUE(b.lo.x >= box.lo.x - 1e-3f && b.hi.x <= box.hi.x + 1e-3f &&
                b.hi.y <= box.hi.y + 1e-3f && b.lo.z >= box.lo.z - 1e-3f &&
                b.hi.z <= box.hi.z + 1e-3f)
        << "t = " << t;
  }
}

TEST(JsonScenes, TransformAtBetweenKeyframes) {
  Instance inst;
  inst.transform = Transform::translate({0.f, 0.f, 100.f});
  Keyframe a, b;
  a.time = 1.f, b.time = 3.f;
  b.translate = {10.f, 0.f, 0.f};
  b.scale = {3.f, 3.f, 3.f};
  inst.keyframes = {a, b};
  expectNear(inst.transformAt(0.f).point({1.f, 0.f, 0.f}), {1.f, 0.f, 100.f}, 1e-5f);  // clamps
  expectNear(inst.transformAt(2.f).point({1.f, 0.f, 0.f}), {5.f + 2.f, 0.f, 100.f}, 1e-5f);
  expectNear(inst.transformAt(9.f).point({1.f, 0.f, 0.f}), {13.f, 0.f, 100.f}, 1e-5f);
}

TEST(JsonScenes, FilesRelativeToTheSceneWithOverridesAndTransforms) {
  test::ScratchDir dir;
  std::filesystem::create_directories(dir.path() / "models");
  dir.write("models/tri.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
  const std::string json = dir.write("scene.json", R"({
    "materials": {"red": {"kd": [1, 0, 0]}, "lost": {"kd": 0.5, "kd_texture": "nope.png"}},
    // comments are allowed
    "objects": [
      {"file": "models/tri.obj", "material": "red",
       "transform": {"translate": [0, 0, 5], "rotate": {"axis": [0, 0, 1], "degrees": 90},
                     "scale": 2}},
      {"file": "models/tri.obj"}
    ]
  })");
  const Scene s = loadScene(json);
  ASSERT_EQ(s.instances.size(), 2u);
  EXPECT_EQ(s.materials[s.meshes[s.instances[0].mesh].materialIds[0]].name, "red");
  EXPECT_EQ(s.materials[s.meshes[s.instances[1].mesh].materialIds[0]].name, "default");
  expectNear(s.instances[0].transformAt(0.f).point({1.f, 0.f, 0.f}), {0.f, 2.f, 5.f}, 1e-5f);
  EXPECT_FALSE(s.camera.has_value());
  EXPECT_EQ(s.materials[1].kdTexture, -1) << "missing texture: warning only";
}

TEST(JsonScenes, DeepNestingIsAnErrorNotACrash) {
  // A million nested arrays: nlohmann parses and frees them without recursion.
  const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  test::expectErrorContaining<SceneError>([&] { loadSceneFromMemory("deep.json", deep); },
                                          {"deep.json", "expected an object"});
  test::expectErrorContaining<SceneError>(
      [&] { loadSceneFromMemory("open.json", std::string(1000000, '[')); },
      {"open.json:1:", "malformed JSON"});
}

struct BadJson {
  const char* label;
  const char* text;
  std::vector<std::string> fragments;
};

class JsonErrors : public ::testing::TestWithParam<BadJson> {};

TEST_P(JsonErrors, NameTheProblem) {
  test::ScratchDir dir;
  const std::string path = dir.write("bad.json", GetParam().text);
  try {
    loadScene(path);
    ADD_FAILURE() << "no exception for " << GetParam().label;
  } catch (const SceneError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("bad.json"), std::string::npos) << msg;
    for (const std::string& f : GetParam().fragments)
      EXPECT_NE(msg.find(f), std::string::npos) << "message '" << msg << "' lacks '" << f << "'";
  }
}

INSTANTIATE_TEST_SUITE_P(
    All, JsonErrors,
    ::testing::Values(
        BadJson{"syntax",
                "{\n  \"objects\": [\n    {\"shape\": \"sphere\",}\n  ]\n}\n",
                {"bad.json:3:", "malformed JSON"}},
        BadJson{"truncated", "{\n  \"objects\": [\n", {"bad.json:", "malformed JSON"}},
        BadJson{"unknown material",
                "{\"objects\": [{\"shape\": \"sphere\"}, {\"shape\": \"sphere\", \"material\": "
                "\"foo\"}]}",
                {"objects[1].material", "unknown material 'foo'"}},
        BadJson{"unknown shape",
                "{\"objects\": [{\"shape\": \"cone\"}]}",
                {"objects[0].shape", "'cone'"}},
        BadJson{"unknown top-level key",
                "{\n\"objetcs\": []\n}",
                {"bad.json:2", "unknown key 'objetcs'"}},
        BadJson{"unknown shape key",
                "{\"objects\": [{\"shape\": \"sphere\", \"radios\": 2}]}",
                {"objects[0]", "unknown key 'radios'"}},
        BadJson{"wrong type",
                "{\"objects\": [{\"shape\": \"sphere\", \"radius\": \"big\"}]}",
                {"objects[0].radius", "expected a number"}},
        BadJson{"bad vector", "{\"environment\": [1, 2]}", {"environment", "[x, y, z]"}},
        BadJson{"material type",
                "{\"materials\": {\"m\": {\"type\": \"metal\"}}}",
                {"materials.m.type", "'metal'"}},
        BadJson{"light type",
                "{\"lights\": [{\"type\": \"spot\", \"position\": [0,0,0], \"intensity\": 1}]}",
                {"lights[0].type", "'spot'"}},
        BadJson{"missing file",
                "{\"objects\": [{\"file\": \"gone.obj\"}]}",
                {"objects[0].file", "gone.obj", "no such file"}},
        BadJson{"file and shape",
                "{\"objects\": [{\"file\": \"a.obj\", \"shape\": \"cube\"}]}",
                {"objects[0]", "exactly one"}},
        BadJson{"keyframe order",
                "{\"objects\": [{\"shape\": \"cube\", \"animation\": [{\"time\": 1}, {\"time\": "
                "0.5}]}]}",
                {"objects[0].animation[1].time", "increase"}},
        BadJson{
            "unknown builtin", "{\"include_builtin\": \"cornel\"}", {"include_builtin", "cornel"}},
        BadJson{"no geometry", "{}", {"no triangles"}},
        BadJson{"too many triangles",
                "{\"objects\": [{\"shape\": \"sphere\", \"subdivisions\": 4096}, {\"shape\": "
                "\"sphere\", \"subdivisions\": 4096}, {\"shape\": \"sphere\", \"subdivisions\": "
                "4096}, {\"shape\": \"sphere\", \"subdivisions\": 4096}, {\"shape\": \"sphere\", "
                "\"subdivisions\": 4096}]}",
                {"objects[4]", "over the limit of 268435456"}},
        BadJson{"zero scale",
                "{\"objects\": [{\"shape\": \"cube\", \"transform\": {\"scale\": 0}}]}",
                {"objects[0]", "not invertible"}},
        BadJson{"scale through zero",
                "{\"objects\": [{\"shape\": \"cube\", \"animation\": [{\"time\": 0, \"scale\": "
                "1}, {\"time\": 1, \"scale\": [1, -1, 1]}]}]}",
                {"objects[0].animation[1].scale", "changes sign"}},
        BadJson{"float range",
                "{\"objects\": [{\"shape\": \"cube\", \"transform\": {\"translate\": [1e39, 0, "
                "0]}}]}",
                {"objects[0].transform.translate[0]", "float range"}},
        BadJson{"number overflow",
                "{\n  \"environment\": [1, 1e400, 1]\n}",
                {"bad.json:2:", "number overflow", "1e400"}},
        BadJson{"bad fov", "{\"camera\": {\"fov\": 0}}", {"camera.fov"}}),
    [](const ::testing::TestParamInfo<BadJson>& info) {
      std::string name = info.param.label;
      for (char& c : name)
        if (!std::isalnum((unsigned char)c)) c = '_';
      return name;
    });

}  // namespace
}  // namespace srt
