// glTF and GLB through tinygltf: materials, node transforms, strips, GLB chunks, and every
// inconsistent accessor, buffer view, node tree or URI as a one-line error.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "scenes/loader.h"
#include "test_util.h"

namespace srt {
namespace {

// Three float positions (36 bytes) and three ushort indices (6 bytes), padded to 44.
std::string triangleBuffer() {
  std::string b;
  for (float f : {0.f, 0.f, 0.f, 1.f, 0.f, 0.f, 0.f, 1.f, 0.f}) b += test::bytesOf(f);
  for (uint16_t i : {uint16_t(0), uint16_t(1), uint16_t(2), uint16_t(0)}) b += test::bytesOf(i);
  return b;
}

// One triangle; `buffer` is the buffers[0] entry, `extra` replaces the accessor and node fields.
std::string triangleGltf(
    const std::string& buffer,
    const std::string& positions =
        R"({"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"})",
    const std::string& nodes = R"([{"mesh": 0, "translation": [0, 0, 5]}])",
    const std::string& view0 = R"({"buffer": 0, "byteOffset": 0, "byteLength": 36})") {
  return R"({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": )" +
         nodes + R"(,
    "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1, "material": 0}]}],
    "materials": [{"name": "glow", "pbrMetallicRoughness": {"baseColorFactor": [0.2, 0.4, 0.6, 1]},
                   "emissiveFactor": [1, 0.5, 0.25]}],
    "buffers": [)" +
         buffer + R"(],
    "bufferViews": [)" +
         view0 + R"(, {"buffer": 0, "byteOffset": 36, "byteLength": 6}],
    "accessors": [)" +
         positions + R"(,
                  {"bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"}]})";
}

std::string dataUri() {
  return R"({"byteLength": 44, "uri": "data:application/octet-stream;base64,)" +
         test::base64(triangleBuffer()) + R"("})";
}

Scene gltf(const std::string& text) {
  return loadSceneFromMemory("tri.gltf", text);
}

void expectGltfError(const std::string& text, std::initializer_list<std::string> fragments) {
  test::expectErrorContaining<SceneError>([&] { gltf(text); }, fragments);
}

TEST(GltfFiles, MaterialsAndNodeTransforms) {
  const Scene s = gltf(triangleGltf(dataUri()));
  ASSERT_EQ(s.triangleCount(), 1u);
  EXPECT_NEAR(s.bounds().lo.z, 5.f, 1e-5f) << "node transform applied";
  const Material& m = s.materials[s.meshes[0].materialIds[0]];
  EXPECT_NEAR(m.kd.y, 0.4f, 1e-6f);
  EXPECT_NEAR(m.ke.x, 1.f, 1e-6f);
  EXPECT_NEAR(m.ke.z, 0.25f, 1e-6f);
  ASSERT_EQ(s.meshes[0].normals.size(), 3u) << "normals made where the file has none";
  EXPECT_NEAR(s.meshes[0].normals[0].z, 1.f, 1e-6f);
}

TEST(GltfFiles, NestedNodesRotateAndScale) {
  // Parent: scale 2; child: a quarter turn about z, then +1 x. (1, 0, 0) -> (0, 1, 0) -> (1, 1, 0)
  // -> (2, 2, 0).
  const Scene s = gltf(triangleGltf(
      dataUri(), R"({"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"})",
      R"([{"children": [1], "scale": [2, 2, 2]},
                                        {"mesh": 0, "translation": [1, 0, 0],
                                         "rotation": [0, 0, 0.7071068, 0.7071068]}])"));
  ASSERT_EQ(s.instances.size(), 1u);
  const Vec3f p = s.instances[0].transform.point({1.f, 0.f, 0.f});
  EXPECT_NEAR(p.x, 2.f, 1e-5f);
  EXPECT_NEAR(p.y, 2.f, 1e-5f);
  EXPECT_NEAR(p.z, 0.f, 1e-5f);
}

TEST(GltfFiles, ExternalBufferInTheFolderOnly) {
  test::ScratchDir dir;
  dir.write("tri.bin", triangleBuffer());
  const Scene s =
      loadScene(dir.write("ok.gltf", triangleGltf(R"({"byteLength": 44, "uri": "tri.bin"})")));
  EXPECT_EQ(s.triangleCount(), 1u);
  for (const char* uri : {"../tri.bin", "/etc/passwd", "http://example.com/tri.bin"})
    test::expectErrorContaining<SceneError>(
        [&] {
          loadScene(
              dir.write("bad.gltf",
                        triangleGltf(std::string(R"({"byteLength": 44, "uri": ")") + uri + "\"}")));
        },
        {"bad.gltf", "malformed glTF", "outside the glTF's folder"});
}

TEST(GltfFiles, AccessorsAndViewsAreChecked) {
  expectGltfError(
      triangleGltf(dataUri(),
                   R"({"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3"})"),
      {"tri.gltf: meshes[0].primitives[0].attributes.POSITION: accessor 0 needs 4 elements"});
  expectGltfError(
      triangleGltf(
          dataUri(),
          R"({"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "byteOffset": 4000000000})"),
      {"accessor 0 needs 3 elements", "from byte 4000000000"});
  expectGltfError(
      triangleGltf(dataUri(),
                   R"({"bufferView": 7, "componentType": 5126, "count": 3, "type": "VEC3"})"),
      {"bufferView 7 does not exist"});
  expectGltfError(
      triangleGltf(dataUri(),
                   R"({"bufferView": 0, "componentType": 5121, "count": 3, "type": "VEC3"})"),
      {"accessor 0 has an unexpected componentType"});
  expectGltfError(triangleGltf(dataUri(), R"({"componentType": 5126, "count": 3, "type": "VEC3"})"),
                  {"accessor 0 has no bufferView"});
  expectGltfError(
      triangleGltf(dataUri(),
                   R"({"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"})",
                   R"([{"mesh": 0}])", R"({"buffer": 0, "byteOffset": 40, "byteLength": 36})"),
      {"bufferView 0 spans bytes 40 + 36 of a buffer of 44"});
  expectGltfError(
      triangleGltf(dataUri(),
                   R"({"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"})",
                   R"([{"mesh": 0}])", R"({"buffer": 0, "byteLength": 36, "byteStride": 8})"),
      {"elements of 12 bytes but a byteStride of 8"});
  std::string bad = triangleBuffer();
  bad[40] = 9;  // third index: 9 of 3 vertices
  expectGltfError(
      triangleGltf(R"({"byteLength": 44, "uri": "data:application/octet-stream;base64,)" +
                   test::base64(bad) + "\"}"),
      {"meshes[0].primitives[0].indices: index 2 is 9 but POSITION has 3 vertices"});
}

TEST(GltfFiles, NodeTreesMustBeTrees) {
  const std::string pos = R"({"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"})";
  expectGltfError(
      triangleGltf(dataUri(), pos, R"([{"mesh": 0, "children": [1]}, {"children": [0]}])"),
      {"nodes[0] is reached twice"});
  expectGltfError(triangleGltf(dataUri(), pos, R"([{"mesh": 0, "children": [5]}])"),
                  {"node 5 does not exist"});
  expectGltfError(triangleGltf(dataUri(), pos, R"([{"mesh": 3}])"),
                  {"nodes[0]: mesh 3 does not exist"});
  expectGltfError(triangleGltf(dataUri(), pos, R"([{"mesh": 0, "rotation": [0, 0, 0, 0]}])"),
                  {"nodes[0].rotation", "zero quaternion"});
  expectGltfError(triangleGltf(dataUri(), pos, R"([{"mesh": 0, "scale": [1, 0, 1]}])"),
                  {"instance 0", "not invertible"});
  expectGltfError(triangleGltf(dataUri(), pos, R"([{"mesh": 0, "translation": [1, 2]}])"),
                  {"nodes[0].translation has 2 numbers, not 3"});
}

TEST(GltfFiles, DeepJsonIsRefusedBeforeParsing) {
  const std::string deep =
      "{\"asset\": {\"version\": \"2.0\"}, \"extras\": " + std::string(1000000, '[') +
      std::string(1000000, ']') + "}";
  expectGltfError(deep, {"tri.gltf", "nested more than"});
  expectGltfError("{\"asset\": ", {"tri.gltf", "malformed glTF"});
}

TEST(GltfFiles, TriangleStripsKeepTheirWinding) {
  // Four vertices of a unit square in strip order: two triangles, both facing +z.
  std::string b;
  for (float f : {0.f, 0.f, 0.f, 1.f, 0.f, 0.f, 0.f, 1.f, 0.f, 1.f, 1.f, 0.f})
    b += test::bytesOf(f);
  const std::string text = R"({"asset": {"version": "2.0"}, "nodes": [{"mesh": 0}],
    "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "mode": 5}]}],
    "buffers": [{"byteLength": 48, "uri": "data:application/octet-stream;base64,)" +
                           test::base64(b) + R"("}],
    "bufferViews": [{"buffer": 0, "byteLength": 48}],
    "accessors": [{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3"}]})";
  const Scene s = gltf(text);
  ASSERT_EQ(s.triangleCount(), 2u);
  const Mesh& m = s.meshes[0];
  for (size_t t = 0; t < 2; ++t) {
    const Vec3f n = cross(m.positions[m.indices[3 * t + 1]] - m.positions[m.indices[3 * t]],
                          m.positions[m.indices[3 * t + 2]] - m.positions[m.indices[3 * t]]);
    EXPECT_GT(n.z, 0.f) << "triangle " << t;
  }
}

std::string glb(const std::string& json, const std::string& bin) {
  std::string j = json;
  while (j.size() % 4) j += ' ';
  std::string out =
      "glTF" + test::bytesOf(uint32_t(2), uint32_t(0), uint32_t(j.size()), uint32_t(0x4E4F534A)) +
      j;
  if (!bin.empty()) out += test::bytesOf(uint32_t(bin.size()), uint32_t(0x004E4942)) + bin;
  const uint32_t length = uint32_t(out.size());
  std::memcpy(&out[8], &length, 4);
  return out;
}

TEST(GltfFiles, GlbChunksAreChecked) {
  const std::string json = triangleGltf(R"({"byteLength": 44})");
  const std::string file = glb(json, triangleBuffer());
  EXPECT_EQ(loadSceneFromMemory("tri.glb", file).triangleCount(), 1u);
  std::string lying = file;
  const uint32_t huge = 1u << 30;
  std::memcpy(&lying[20 + ((json.size() + 3) & ~size_t(3))], &huge, 4);  // BIN chunk length
  test::expectErrorContaining<SceneError>([&] { loadSceneFromMemory("tri.glb", lying); },
                                          {"tri.glb", "BIN chunk", "does not fit"});
  test::expectErrorContaining<SceneError>(
      [&] { loadSceneFromMemory("tri.glb", file.substr(0, file.size() - 4)); },
      {"tri.glb", "GLB header says"});
  test::expectErrorContaining<SceneError>([&] { loadSceneFromMemory("tri.glb", "glTF"); },
                                          {"tri.glb", "not a GLB file"});
}

}  // namespace
}  // namespace srt
