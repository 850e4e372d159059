// OBJ/MTL and assimp loading: the shared real scenes, the material mapping, and bad input.
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "base/image_io.h"
#include "scenes/loader.h"
#include "test_util.h"

namespace srt {
namespace {

namespace fs = std::filesystem;

const Material* materialNamed(const Scene& s, const std::string& name) {
  for (const Material& m : s.materials)
    if (m.name == name) return &m;
  return nullptr;
}

// Triangles a fan triangulation of the file's faces gives, counted from the text itself.
size_t trianglesInObj(const std::string& path) {
  std::ifstream in(path);
  size_t triangles = 0;
  for (std::string line; std::getline(in, line);) {
    std::istringstream s(line);
    std::string tok;
    if (!(s >> tok) || tok != "f") continue;
    size_t n = 0;
    while (s >> tok) ++n;
    if (n >= 3) triangles += n - 2;
  }
  return triangles;
}

// Whether the MTL the OBJ names (mtllib) gives any material a non-zero Ke.
bool mtlHasEmitter(const fs::path& objPath) {
  std::ifstream obj(objPath);
  std::string mtlName;
  for (std::string line; std::getline(obj, line);)
    if (line.rfind("mtllib ", 0) == 0) mtlName = line.substr(7);
  while (!mtlName.empty() && std::isspace((unsigned char)mtlName.back())) mtlName.pop_back();
  std::ifstream in(objPath.parent_path() / mtlName);
  for (std::string line; std::getline(in, line);) {
    std::istringstream s(line);
    std::string tok;
    float r = 0, g = 0, b = 0;
    if ((s >> tok) && tok == "Ke" && (s >> r >> g >> b) && (r > 0 || g > 0 || b > 0)) return true;
  }
  return false;
}

std::string cornellDir() {
  return test::testScenesDir() + "/cornell-box";
}

TEST(ObjScenes, EveryCornellBoxLoads) {
  if (!fs::exists(cornellDir())) GTEST_SKIP() << "no shared scenes at " << cornellDir();
  int files = 0;
  for (const auto& entry : fs::directory_iterator(cornellDir())) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("CornellBox-", 0) != 0 || entry.path().extension() != ".obj") continue;
    SCOPED_TRACE(name);
    ++files;
    const Scene s = loadScene(entry.path().string());
    EXPECT_EQ(s.triangleCount(), trianglesInObj(entry.path().string()));
    const Bounds3f b = s.bounds();
    EXPECT_FALSE(b.empty());
    EXPECT_GT(b.diagonal().y, 1.f) << "the box is about 2 units tall";
    bool emissive = false;
    for (const Material& m : s.materials) emissive |= !isBlack(m.ke);
    // CornellBox-Glossy-Floor.obj names CornellBox-Glossy.mtl, which has no light.
    EXPECT_EQ(emissive, mtlHasEmitter(entry.path()));
  }
  EXPECT_GE(files, 8);
}

TEST(ObjScenes, CornellMaterialMapping) {
  if (!fs::exists(cornellDir())) GTEST_SKIP() << "no shared scenes at " << cornellDir();
  // CornellBox-Sphere.mtl: leftSphere is illum 5 (mirror, Ks 0.95), rightSphere illum 7 Ni 2.5.
  const Scene sphere = loadScene(cornellDir() + "/CornellBox-Sphere.obj");
  const Material* mirror = materialNamed(sphere, "leftSphere");
  const Material* glass = materialNamed(sphere, "rightSphere");
  ASSERT_TRUE(mirror && glass);
  EXPECT_EQ(mirror->type, MaterialType::Mirror);
  EXPECT_NEAR(mirror->ks.x, 0.95f, 1e-6f);
  EXPECT_EQ(glass->type, MaterialType::Dielectric);
  EXPECT_NEAR(glass->ior, 2.5f, 1e-6f);
  EXPECT_EQ(materialNamed(sphere, "floor")->type, MaterialType::Diffuse);
  // Smooth spheres: the file has vn, so the whole scene keeps per-vertex normals.
  const FlatGeometry g = flatten(sphere);
  EXPECT_EQ(g.normals.size(), g.positions.size());

  const Scene original = loadScene(cornellDir() + "/CornellBox-Original.obj");
  const Material* light = materialNamed(original, "light");
  ASSERT_TRUE(light);
  EXPECT_TRUE(light->ke == Vec3f(17.f, 12.f, 4.f));
  const Material* red = materialNamed(original, "leftWall");
  ASSERT_TRUE(red);
  EXPECT_EQ(red->type, MaterialType::Diffuse);
  EXPECT_TRUE(red->kd == Vec3f(0.63f, 0.065f, 0.05f));

  // Glossy: Ks 0.9, Ns 40 → glossy with the diffuse base kept.
  const Scene glossy = loadScene(cornellDir() + "/CornellBox-Glossy.obj");
  const Material* s = materialNamed(glossy, "sphere");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->type, MaterialType::Glossy);
  EXPECT_NEAR(s->kd.y, 0.631f, 1e-6f);
  EXPECT_NEAR(s->ns, 40.f, 1e-6f);
}

TEST(ObjScenes, Teapot) {
  const std::string path = test::testScenesDir() + "/teapot/teapot.obj";
  if (!fs::exists(path)) GTEST_SKIP() << "no shared teapot at " << path;
  const Scene s = loadScene(path);
  EXPECT_EQ(s.triangleCount(), trianglesInObj(path));
  ASSERT_GE(s.meshes.size(), 1u);
  for (const Mesh& m : s.meshes) EXPECT_EQ(m.uvs.size(), m.positions.size()) << m.name;
  // default.mtl has map_Kd default.png next to it.
  ASSERT_EQ(s.textures.size(), 1u);
  EXPECT_GT(s.textures[0].width, 0);
  EXPECT_EQ(s.textures[0].texels.size(), size_t(s.textures[0].width) * s.textures[0].height);
  EXPECT_GE(s.materials[0].kdTexture, 0);
}

TEST(ObjScenes, SponzaTexturesAllFound) {
  const std::string path = test::testScenesDir() + "/dabrovic-sponza/sponza.obj";
  if (!fs::exists(path)) GTEST_SKIP() << "no shared Sponza at " << path;
  const Scene s = loadScene(path);
  EXPECT_EQ(s.triangleCount(), trianglesInObj(path));
  // Every distinct map_Kd of the MTL (spelled in another case than the files) is loaded.
  std::ifstream mtl(test::testScenesDir() + "/dabrovic-sponza/sponza.mtl");
  std::set<std::string> maps;
  for (std::string line; std::getline(mtl, line);) {
    std::istringstream in(line);
    std::string key, file;
    if ((in >> key >> file) && key == "map_Kd") {
      for (char& c : file) c = char(std::tolower((unsigned char)c));
      maps.insert(file);
    }
  }
  EXPECT_GT(maps.size(), 0u);
  std::set<int> albedo;  // bump maps add textures of their own
  for (const Material& m : s.materials)
    if (m.kdTexture >= 0) albedo.insert(m.kdTexture);
  EXPECT_EQ(albedo.size(), maps.size());
  for (const Texture& t : s.textures) EXPECT_EQ(t.texels.size(), size_t(t.width) * t.height);
}

TEST(ObjFiles, PolygonsTriangulateAndVerticesSplitByAttributes) {
  test::ScratchDir dir;
  // A unit cube with one normal per face: 8 positions become 24 vertices; the top is a pentagon
  // (fan: 3 triangles).
  const std::string obj = dir.write("cube.obj", R"(
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1
v 0.5 1 1.2
vn 0 0 -1
vn 0 0 1
vn -1 0 0
vn 1 0 0
vn 0 -1 0
vn 0 1 0
f 1//1 4//1 3//1 2//1
f 5//2 6//2 7//2 8//2
f 1//3 5//3 8//3 4//3
f 2//4 3//4 7//4 6//4
f 1//5 2//5 6//5 5//5
f 4//6 8//6 9//6 7//6 3//6
)");
  const Scene s = loadScene(obj);
  ASSERT_EQ(s.meshes.size(), 1u);
  const Mesh& m = s.meshes[0];
  EXPECT_EQ(m.triangleCount(), 5u * 2u + 3u);
  EXPECT_EQ(m.positions.size(), 4u * 5u + 5u);
  ASSERT_EQ(m.normals.size(), m.positions.size());
  EXPECT_TRUE(m.uvs.empty());
  ASSERT_EQ(s.materials.size(), 1u) << "no MTL: one default material";
  EXPECT_EQ(s.materials[0].name, "default");
}

TEST(ObjFiles, MtlMappingRules) {
  test::ScratchDir dir;
  dir.write("m.mtl", R"(
newmtl glass4
illum 4
newmtl dissolved
d 0.5
Ni 1.33
newmtl tr
Tr 0.25
newmtl mirrorBlack
illum 3
Ks 0 0 0
newmtl mirrorTint
illum 5
Ks 0.9 0.5 0.1
newmtl glossy
illum 2
Kd 0.2 0.3 0.4
Ks 0.5 0.5 0.5
Ns 50
newmtl shinyButBlack
Kd 0.2 0.3 0.4
Ks 0 0 0
Ns 50
newmtl lamp
Kd 0 0 0
Ke 5 6 7
newmtl textured
Kd 0.3 0.3 0.3
map_Kd tex.png
newmtl upperCase
map_Kd TEX.PNG
newmtl lostTexture
Kd 0.4 0.5 0.6
map_Kd does-not-exist.png
)");
  std::string obj = "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\n";
  for (const char* name : {"glass4", "dissolved", "tr", "mirrorBlack", "mirrorTint", "glossy",
                           "shinyButBlack", "lamp", "textured", "upperCase", "lostTexture"})
    obj += std::string("usemtl ") + name + "\nf 1/1 2/2 3/3\n";
  // A 2x2 texture: top row red/green, bottom row blue/white (sRGB 8-bit).
  Image tex(2, 2);
  tex.at(0, 0) = {1.f, 0.f, 0.f};
  tex.at(1, 0) = {0.f, 1.f, 0.f};
  tex.at(0, 1) = {0.f, 0.f, 1.f};
  tex.at(1, 1) = {0.5f, 0.5f, 0.5f};
  writeImage(dir.file("tex.png"), tex);
  const Scene s = loadScene(dir.write("m.obj", obj));

  EXPECT_EQ(materialNamed(s, "glass4")->type, MaterialType::Dielectric);
  EXPECT_NEAR(materialNamed(s, "glass4")->ior, 1.5f, 1e-6f) << "no Ni: the default 1.5";
  EXPECT_EQ(materialNamed(s, "dissolved")->type, MaterialType::Dielectric);
  EXPECT_NEAR(materialNamed(s, "dissolved")->ior, 1.33f, 1e-6f);
  EXPECT_EQ(materialNamed(s, "tr")->type, MaterialType::Dielectric);
  EXPECT_EQ(materialNamed(s, "mirrorBlack")->type, MaterialType::Mirror);
  EXPECT_TRUE(materialNamed(s, "mirrorBlack")->ks == Vec3f(1.f))
      << "black Ks on a mirror means white";
  EXPECT_EQ(materialNamed(s, "mirrorTint")->type, MaterialType::Mirror);
  EXPECT_TRUE(materialNamed(s, "mirrorTint")->ks == Vec3f(0.9f, 0.5f, 0.1f));
  EXPECT_EQ(materialNamed(s, "glossy")->type, MaterialType::Glossy);
  EXPECT_TRUE(materialNamed(s, "glossy")->kd == Vec3f(0.2f, 0.3f, 0.4f));
  EXPECT_EQ(materialNamed(s, "shinyButBlack")->type, MaterialType::Diffuse);
  EXPECT_TRUE(materialNamed(s, "lamp")->ke == Vec3f(5.f, 6.f, 7.f));

  const Material* textured = materialNamed(s, "textured");
  ASSERT_GE(textured->kdTexture, 0);
  const Texture& t = s.textures[size_t(textured->kdTexture)];
  ASSERT_EQ(t.width, 2);
  ASSERT_EQ(t.height, 2);
  EXPECT_NEAR(t.texels[0].x, 1.f, 1e-6f) << "row 0 is the top of the image";
  EXPECT_NEAR(t.texels[1].y, 1.f, 1e-6f);
  EXPECT_NEAR(t.texels[2].z, 1.f, 1e-6f);
  EXPECT_NEAR(t.texels[3].x, 0.5f, 0.01f) << "decoded from sRGB to linear";

  EXPECT_EQ(materialNamed(s, "upperCase")->kdTexture, textured->kdTexture)
      << "a name differing only in case finds the same file, loaded once";
  EXPECT_EQ(s.textures.size(), 1u);

  const Material* lost = materialNamed(s, "lostTexture");
  EXPECT_EQ(lost->kdTexture, -1) << "a missing texture is a warning, not an error";
  EXPECT_TRUE(lost->kd == Vec3f(0.4f, 0.5f, 0.6f));

  // Per-triangle material ids follow usemtl.
  ASSERT_EQ(s.meshes.size(), 1u);
  for (size_t tri = 0; tri < s.meshes[0].triangleCount(); ++tri)
    EXPECT_EQ(s.materials[s.meshes[0].materialIds[tri]].name,
              std::vector<std::string>({"glass4", "dissolved", "tr", "mirrorBlack", "mirrorTint",
                                        "glossy", "shinyButBlack", "lamp", "textured", "upperCase",
                                        "lostTexture"})[tri]);
}

// Vertices are split by (v, vt): a big group finds each position's first pair through an array
// and the others through a hash map, a small group through the map alone; either way every
// corner keeps its own position and uv, and equal pairs share a vertex.
TEST(ObjFiles, PositionsWithSeveralUvsSplitInBigAndSmallGroups) {
  test::ScratchDir dir;
  std::string obj;
  for (int i = 0; i < 200; ++i)
    obj += "v " + std::to_string(i) + " " + std::to_string(i % 7) + " 0\n";
  obj += "vt 0 0\nvt 1 0\nvt 0 1\n";
  // (v, vt) of each corner, 1-based as in the file.
  std::vector<std::array<int, 2>> small = {{1, 1}, {2, 2}, {3, 3}, {1, 2}, {2, 2}, {4, 1}};
  std::vector<std::array<int, 2>> big;
  for (int t = 0; t < 30; ++t)
    for (int k = 0; k < 3; ++k) big.push_back({5 + (t + k) % 12, 1 + (t * 3 + k) % 3});
  auto faces = [&](const std::vector<std::array<int, 2>>& c) {
    std::string f;
    for (size_t i = 0; i < c.size(); i += 3)
      f += "f " + std::to_string(c[i][0]) + "/" + std::to_string(c[i][1]) + " " +
           std::to_string(c[i + 1][0]) + "/" + std::to_string(c[i + 1][1]) + " " +
           std::to_string(c[i + 2][0]) + "/" + std::to_string(c[i + 2][1]) + "\n";
    return f;
  };
  obj += "g small\n" + faces(small) + "g big\n" + faces(big);
  const Scene s = loadScene(dir.write("uvs.obj", obj));
  ASSERT_EQ(s.meshes.size(), 2u);
  const float uv[3][2] = {{0, 0}, {1, 0}, {0, 1}};
  for (size_t mi = 0; mi < 2; ++mi) {
    const Mesh& m = s.meshes[mi];
    const auto& corners = mi == 0 ? small : big;
    ASSERT_EQ(m.indices.size(), corners.size());
    ASSERT_EQ(m.uvs.size(), m.positions.size());
    std::set<std::array<int, 2>> distinct(corners.begin(), corners.end());
    EXPECT_EQ(m.positions.size(), distinct.size()) << m.name;
    for (size_t i = 0; i < corners.size(); ++i) {
      const uint32_t v = m.indices[i];
      EXPECT_EQ(m.positions[v].x, float(corners[i][0] - 1)) << m.name << " corner " << i;
      EXPECT_EQ(m.uvs[v].x, uv[corners[i][1] - 1][0]) << m.name << " corner " << i;
      EXPECT_EQ(m.uvs[v].y, uv[corners[i][1] - 1][1]) << m.name << " corner " << i;
    }
  }
}

TEST(ObjFiles, MixedNormalsGetFaceNormals) {
  test::ScratchDir dir;
  const Scene s = loadScene(dir.write("mixed.obj", R"(
v 0 0 0
v 1 0 0
v 0 1 0
v 0 0 1
vn 0 0 1
f 1//1 2//1 3//1
f 1 4 2
)"));
  const FlatGeometry g = flatten(s);
  ASSERT_EQ(g.normals.size(), g.positions.size());
  for (const Vec3f& n : g.normals) EXPECT_NEAR(length(n), 1.f, 1e-5f);
}

TEST(ObjFiles, BadInput) {
  test::ScratchDir dir;
  // Out-of-range index: the message names the file and the line of the face.
  test::expectErrorContaining<SceneError>(
      [&] { loadScene(dir.write("range.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n\nf 1 2 7\n")); },
      {"range.obj:6", "vertex index 7", "has 3"});
  test::expectErrorContaining<SceneError>(
      [&] {
        loadScene(
            dir.write("normal.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//1 3//2\n"));
      },
      {"normal.obj:5", "normal index 2"});
  test::expectErrorContaining<SceneError>(
      [&] { loadScene(dir.write("zero.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n")); },
      {"zero.obj:4", "index 0"});
  test::expectErrorContaining<SceneError>([&] { loadScene(dir.write("empty.obj", "")); },
                                          {"empty.obj", "empty mesh"});
  test::expectErrorContaining<SceneError>(
      [&] { loadScene(dir.write("points.obj", "v 0 0 0\nv 1 0 0\n")); },
      {"points.obj", "no faces"});
  test::expectErrorContaining<SceneError>([&] { loadScene(dir.file("missing.obj")); },
                                          {"missing.obj", "no such file"});
  test::expectErrorContaining<SceneError>([&] { loadScene(dir.write("scene.xyz", "x")); },
                                          {"scene.xyz", "extension"});
  test::expectErrorContaining<SceneError>([&] { loadScene("no-extension"); }, {"no-extension"});
}

TEST(ObjFiles, MissingMtlIsOneWarningWithThePrefixAndQuietSilencesIt) {
  const std::string obj = "mtllib gone.mtl\nusemtl white\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
  testing::internal::CaptureStderr();
  const Scene s = loadSceneFromMemory("m.obj", obj);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(s.triangleCount(), 1u);
  EXPECT_NE(err.find("streamrt: warning: m.obj:1: material file 'gone.mtl' not read"),
            std::string::npos)
      << err;
  size_t lines = 0;
  for (size_t at = 0; (at = err.find('\n', at)) != std::string::npos; ++at) ++lines;
  EXPECT_EQ(err.find("gone.mtl"), err.rfind("gone.mtl")) << "printed once: " << err;
  for (size_t at = 0; (at = err.find('\n', at)) != std::string::npos;) {
    const size_t start = err.rfind('\n', at - 1);
    EXPECT_EQ(err.compare(start == std::string::npos ? 0 : start + 1, 18, "streamrt: warning:"), 0)
        << "every line carries the prefix: " << err;
    ++at;
  }
  EXPECT_GE(lines, 1u);
  testing::internal::CaptureStderr();
  loadSceneFromMemory("m.obj", obj, {}, LoadOptions{/*quiet=*/true});
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(ObjFiles, MtlFromMemory) {
  const Scene s =
      loadSceneFromMemory("m.obj", "mtllib m.mtl\nusemtl red\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
                          {{"m.mtl", "newmtl red\nKd 1 0 0\n"}});
  ASSERT_EQ(s.materials.size(), 1u);
  EXPECT_EQ(s.materials[0].kd.x, 1.f);
  EXPECT_EQ(s.materials[0].kd.y, 0.f);
}

TEST(RetiredFormats, FbxColladaStlSayWhatToDo) {
  test::ScratchDir dir;
  for (const char* name : {"a.fbx", "b.dae", "c.stl"})
    test::expectErrorContaining<SceneError>([&] { loadScene(dir.write(name, "x")); },
                                            {name, "convert it to glTF or PLY"});
}

}  // namespace
}  // namespace srt
