// Built-in scenes and analytic shapes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "scenes/loader.h"
#include "scenes/shapes.h"
#include "test_util.h"

namespace srt {
namespace {

float triangleArea(const FlatGeometry& g, size_t t) {
  const Vec3f a = g.positions[g.indices[3 * t]], b = g.positions[g.indices[3 * t + 1]],
              c = g.positions[g.indices[3 * t + 2]];
  return 0.5f * length(cross(b - a, c - a));
}

Vec3f geometricNormal(const FlatGeometry& g, size_t t) {
  const Vec3f a = g.positions[g.indices[3 * t]], b = g.positions[g.indices[3 * t + 1]],
              c = g.positions[g.indices[3 * t + 2]];
  return normalize(cross(b - a, c - a));
}

TEST(BuiltinScenes, NamesLoadAndValidate) {
  const std::vector<std::string> names = builtinSceneNames();
  for (const char* expected : {"cornell", "cornell-whitted", "furnace"})
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  EXPECT_NE(std::find(names.begin(), names.end(), kDefaultSceneName), names.end());
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    const Scene s = loadScene(name);
    EXPECT_NO_THROW(validateScene(s, name));
    EXPECT_TRUE(s.camera.has_value());
    EXPECT_GT(s.triangleCount(), 0u);
    const FlatGeometry g = flatten(s);
    if (name == "furnace")  // flat facets on purpose: every pixel exactly 0.5 (builtin.cpp)
      EXPECT_TRUE(g.normals.empty()) << "the furnace sphere is flat-shaded";
    else
      EXPECT_EQ(g.normals.size(), g.positions.size()) << "every other built-in carries normals";
  }
}

TEST(BuiltinScenes, UnknownNameIsAnError) {
  test::expectErrorContaining<SceneError>([] { builtinScene("cornel"); }, {"cornel", "cornell"});
  test::expectErrorContaining<SceneError>([] { loadScene("cornel"); }, {"cornel"});
}

TEST(BuiltinScenes, CornellMatchesPublishedData) {
  const Scene s = builtinScene("cornell");
  const Bounds3f b = s.bounds();
  EXPECT_NEAR(b.lo.x, 0.f, 1e-3f);
  EXPECT_NEAR(b.lo.y, 0.f, 1e-3f);
  EXPECT_NEAR(b.lo.z, 0.f, 1e-3f);
  EXPECT_NEAR(b.hi.x, 556.f, 1e-3f);
  EXPECT_NEAR(b.hi.y, 548.8f, 1e-3f);
  EXPECT_NEAR(b.hi.z, 559.2f, 1e-3f);

  // Emitters: the 130 x 105 mm light just below the ceiling, facing down.
  const FlatGeometry g = flatten(s);
  float emitterArea = 0.f;
  size_t emitters = 0;
  for (size_t t = 0; t < g.triangleCount(); ++t) {
    const Material& m = s.materials[g.materialIds[t]];
    if (isBlack(m.ke)) continue;
    ++emitters;
    emitterArea += triangleArea(g, t);
    EXPECT_LT(geometricNormal(g, t).y, -0.99f);
    for (int k = 0; k < 3; ++k) {
      const Vec3f p = g.positions[g.indices[3 * t + k]];
      EXPECT_GT(p.y, 548.f);
      EXPECT_LT(p.y, 548.8f);
      EXPECT_TRUE(p.x >= 213.f && p.x <= 343.f && p.z >= 227.f && p.z <= 332.f);
    }
  }
  EXPECT_GT(emitters, 0u);
  EXPECT_NEAR(emitterArea, 130.f * 105.f, 1.f);

  // Camera in front of the open side, looking in along +z.
  ASSERT_TRUE(s.camera.has_value());
  const Camera& c = *s.camera;
  EXPECT_LT(c.position.z, b.lo.z);
  EXPECT_TRUE(c.position.x > b.lo.x && c.position.x < b.hi.x);
  EXPECT_TRUE(c.position.y > b.lo.y && c.position.y < b.hi.y);
  EXPECT_GT(normalize(c.target - c.position).z, 0.99f);
  EXPECT_NEAR(c.vfovDegrees, 39.3f, 0.1f);
  EXPECT_TRUE(isBlack(s.environment));

  // Walls face into the room; the red wall is the x = 556 side (left as seen from the camera).
  const Vec3f centre = b.center();
  bool sawRed = false, sawGreen = false;
  for (size_t mi = 0; mi < s.meshes.size(); ++mi) {
    const Mesh& m = s.meshes[mi];
    const bool block = m.name.find("block") != std::string::npos;
    for (size_t t = 0; t < m.triangleCount(); ++t) {
      const Vec3f p = m.positions[m.indices[3 * t]];
      const Vec3f n = m.normals[m.indices[3 * t]];
      const Material& mat = s.materials[m.materialIds[t]];
      if (mat.name == "red") {
        sawRed = true;
        EXPECT_GT(p.x, 540.f);
      }
      if (mat.name == "green") {
        sawGreen = true;
        EXPECT_LT(p.x, 1.f);
      }
      if (!block) {
        EXPECT_GT(dot(n, centre - p), 0.f) << m.name << " faces out of the room";
      }
    }
  }
  EXPECT_TRUE(sawRed && sawGreen);
}

TEST(BuiltinScenes, CornellBlocksFaceOutward) {
  const Scene s = builtinScene("cornell");
  int blocks = 0;
  for (const Mesh& m : s.meshes) {
    if (m.name.find("block") == std::string::npos) continue;
    ++blocks;
    Vec3f axis{0.f, 0.f, 0.f};
    for (const Vec3f& p : m.positions) axis += p;
    axis = axis / float(m.positions.size());
    EXPECT_EQ(m.triangleCount(), 10u) << "top and four sides";
    for (size_t t = 0; t < m.triangleCount(); ++t) {
      const Vec3f a = m.positions[m.indices[3 * t]], b = m.positions[m.indices[3 * t + 1]],
                  c = m.positions[m.indices[3 * t + 2]];
      const Vec3f n = normalize(cross(b - a, c - a));
      EXPECT_GT(dot(n, (a + b + c) / 3.f - axis), 0.f) << m.name;
      EXPECT_GT(dot(n, m.normals[m.indices[3 * t]]), 0.99f) << "winding agrees with the normal";
    }
  }
  EXPECT_EQ(blocks, 2);
}

TEST(BuiltinScenes, FurnaceAndWhitted) {
  const Scene f = builtinScene("furnace");
  ASSERT_EQ(f.materials.size(), 1u);
  EXPECT_EQ(f.materials[0].type, MaterialType::Diffuse);
  EXPECT_TRUE(f.materials[0].kd == Vec3f(1.f));
  EXPECT_TRUE(f.environment == Vec3f(0.5f));
  ASSERT_TRUE(f.camera.has_value());
  const Bounds3f fb = f.bounds();
  const float dist = length(f.camera->position - fb.center());
  const float halfFov = 0.5f * f.camera->vfovDegrees * kPi / 180.f;
  EXPECT_GT(dist * std::sin(halfFov), 0.5f * fb.diagonal().y) << "the sphere fits in the frame";

  const Scene w = builtinScene("cornell-whitted");
  bool mirror = false, glass = false;
  for (const Material& m : w.materials) {
    mirror |= m.type == MaterialType::Mirror;
    glass |= m.type == MaterialType::Dielectric && m.ior > 1.f;
  }
  EXPECT_TRUE(mirror && glass);
  ASSERT_EQ(w.pointLights.size(), 1u);
  const Bounds3f wb = w.bounds();
  const Vec3f lp = w.pointLights[0].position;
  EXPECT_TRUE(lp.x > wb.lo.x && lp.x < wb.hi.x && lp.z > wb.lo.z && lp.z < wb.hi.z);
  EXPECT_TRUE(lp.y > 300.f && lp.y < 548.7f) << "below the ceiling";
}

TEST(Shapes, SphereNormalsAndWinding) {
  for (bool inward : {false, true}) {
    const Vec3f c{1.f, -2.f, 3.f};
    const Mesh m = makeSphere(c, 2.f, 8, inward, 5);
    ASSERT_EQ(m.normals.size(), m.positions.size());
    ASSERT_EQ(m.uvs.size(), m.positions.size());
    EXPECT_EQ(m.materialIds.size(), m.triangleCount());
    EXPECT_TRUE(std::all_of(m.materialIds.begin(), m.materialIds.end(),
                            [](uint32_t id) { return id == 5; }));
    for (size_t i = 0; i < m.positions.size(); ++i) {
      EXPECT_NEAR(length(m.positions[i] - c), 2.f, 1e-4f);
      EXPECT_NEAR(length(m.normals[i]), 1.f, 1e-4f);
      EXPECT_GT(dot(m.normals[i], m.positions[i] - c) * (inward ? -1.f : 1.f), 0.f);
    }
    for (size_t t = 0; t < m.triangleCount(); ++t) {
      const Vec3f a = m.positions[m.indices[3 * t]], b = m.positions[m.indices[3 * t + 1]],
                  d = m.positions[m.indices[3 * t + 2]];
      const Vec3f n = cross(b - a, d - a);
      ASSERT_GT(length(n), 0.f) << "no degenerate triangles";
      EXPECT_GT(dot(n, m.normals[m.indices[3 * t]]), 0.f) << "triangle " << t;
    }
  }
  EXPECT_GE(makeSphere({}, 1.f, 0).triangleCount(), 4u) << "subdivisions clamp to a valid sphere";
}

TEST(Shapes, BoxAndQuad) {
  const Mesh box = makeBox({-1.f, 0.f, 2.f}, {1.f, 3.f, 4.f});
  EXPECT_EQ(box.triangleCount(), 12u);
  EXPECT_EQ(box.positions.size(), 24u);
  const Vec3f centre{0.f, 1.5f, 3.f};
  for (size_t t = 0; t < box.triangleCount(); ++t) {
    const Vec3f a = box.positions[box.indices[3 * t]], b = box.positions[box.indices[3 * t + 1]],
                c = box.positions[box.indices[3 * t + 2]];
    const Vec3f n = normalize(cross(b - a, c - a));
    EXPECT_GT(dot(n, a - centre), 0.f) << "outward";
    EXPECT_GT(dot(n, box.normals[box.indices[3 * t]]), 0.99f);
  }
  const Mesh q = makeQuad({0.f, 0.f, 0.f}, {2.f, 0.f, 0.f}, {0.f, 0.f, -3.f});
  EXPECT_EQ(q.triangleCount(), 2u);
  for (const Vec3f& n : q.normals) EXPECT_NEAR(n.y, 1.f, 1e-6f);
}

}  // namespace
}  // namespace srt
