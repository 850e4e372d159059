// The PLY reader: ASCII and binary files agree, polygons are fan-triangulated, and every malformed
// file (the fuzzer's findings among them) is a one-line error naming the file and the place.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "scenes/loader.h"
#include "test_util.h"

namespace srt {
namespace {

const std::string kSquareHeader =
    "ply\nformat ascii 1.0\ncomment a unit square\nelement vertex 4\nproperty float x\n"
    "property float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\n"
    "end_header\n";

Scene ply(const std::string& text, const LoadOptions& options = {}) {
  return loadSceneFromMemory("scene.ply", text, {}, options);
}

void expectPlyError(const std::string& text, std::initializer_list<std::string> fragments) {
  test::expectErrorContaining<SceneError>([&] { ply(text); }, fragments);
}

TEST(PlyFiles, AsciiSquareWithSmoothNormals) {
  const Scene s = ply(kSquareHeader + "0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 2 3\n");
  ASSERT_EQ(s.triangleCount(), 2u);
  const Mesh& m = s.meshes[0];
  EXPECT_EQ(m.indices, (std::vector<uint32_t>{0, 1, 2, 0, 2, 3})) << "fan from the first corner";
  ASSERT_EQ(m.normals.size(), 4u) << "normals made where the file has none";
  for (const Vec3f& n : m.normals) EXPECT_NEAR(n.z, 1.f, 1e-6f);
  EXPECT_EQ(s.materials.size(), 1u);
}

// The same mesh as ASCII, binary little endian and binary big endian, with doubles, normals,
// uvs, an extra colour property and an edge element that is skipped.
std::string binaryPly(bool big) {
  std::string h = std::string("ply\nformat binary_") + (big ? "big" : "little") +
                  "_endian 1.0\nelement vertex 3\nproperty double x\nproperty double y\n"
                  "property double z\nproperty float nx\nproperty float ny\nproperty float nz\n"
                  "property uchar red\nproperty float u\nproperty float v\n"
                  "element face 1\nproperty list uchar ushort vertex_indices\n"
                  "element edge 1\nproperty int vertex1\nproperty int vertex2\nend_header\n";
  auto put = [&](auto value) {
    std::string b = test::bytesOf(value);
    if (big) std::reverse(b.begin(), b.end());
    h += b;
  };
  const double p[3][3] = {{0, 0, 0}, {2, 0, 0}, {0, 2, 0}};
  for (int v = 0; v < 3; ++v) {
    for (double c : p[v]) put(c);
    put(0.f), put(0.f), put(1.f), put(uint8_t(200)), put(float(v) / 2.f), put(0.25f);
  }
  put(uint8_t(3)), put(uint16_t(0)), put(uint16_t(1)), put(uint16_t(2));
  put(int32_t(0)), put(int32_t(1));
  return h;
}

TEST(PlyFiles, BinaryBothEndiansMatchAscii) {
  const Scene ascii = ply(
      "ply\nformat ascii 1.0\nelement vertex 3\nproperty double x\nproperty double y\n"
      "property double z\nproperty float nx\nproperty float ny\nproperty float nz\n"
      "property uchar red\nproperty float u\nproperty float v\n"
      "element face 1\nproperty list uchar ushort vertex_indices\n"
      "element edge 1\nproperty int vertex1\nproperty int vertex2\nend_header\n"
      "0 0 0 0 0 1 200 0 0.25\n2 0 0 0 0 1 200 0.5 0.25\n0 2 0 0 0 1 200 1 0.25\n3 0 1 2\n0 1\n",
      LoadOptions{true});
  for (bool big : {false, true}) {
    const Scene b = ply(binaryPly(big), LoadOptions{true});
    ASSERT_EQ(b.triangleCount(), 1u) << big;
    const Mesh &m = b.meshes[0], &a = ascii.meshes[0];
    EXPECT_EQ(m.indices, a.indices);
    ASSERT_EQ(m.positions.size(), 3u);
    ASSERT_EQ(m.uvs.size(), 3u);
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_TRUE(m.positions[i] == a.positions[i]) << big << " vertex " << i;
      EXPECT_TRUE(m.normals[i] == a.normals[i]);
      EXPECT_EQ(m.uvs[i].x, a.uvs[i].x);
      EXPECT_EQ(m.uvs[i].y, 0.25f);
    }
    EXPECT_EQ(m.positions[1].x, 2.f);
  }
}

TEST(PlyFiles, PolygonsFanAndShortFacesAreSkippedWithOneWarning) {
  const std::string text =
      "ply\nformat ascii 1.0\nelement vertex 5\nproperty float x\nproperty float y\n"
      "property float z\nelement face 3\nproperty list uchar int vertex_indices\nend_header\n"
      "0 0 0\n1 0 0\n2 1 0\n1 2 0\n0 1 0\n5 0 1 2 3 4\n2 0 1\n1 4\n";
  testing::internal::CaptureStderr();
  const Scene s = ply(text);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(s.triangleCount(), 3u);
  EXPECT_NE(err.find("streamrt: warning: scene.ply: 2 faces with fewer than 3 vertices"),
            std::string::npos)
      << err;
  testing::internal::CaptureStderr();
  ply(text, LoadOptions{/*quiet=*/true});
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "") << "quiet prints nothing";
}

TEST(PlyFiles, CrLfHeadersAndSizedTypeNames) {
  const Scene s = ply(
      "ply\r\nformat ascii 1.0\r\nelement vertex 3\r\nproperty float32 x\r\nproperty float32 y\r\n"
      "property float32 z\r\nelement face 1\r\nproperty list uint8 uint32 vertex_index\r\n"
      "end_header\r\n0 0 0\r\n1 0 0\r\n0 1 0\r\n3 0 1 2\r\n");
  EXPECT_EQ(s.triangleCount(), 1u);
}

// The failures the mutation fuzzer found in the assimp reader, and their relatives.
TEST(PlyFiles, HeaderWithoutEndHeaderIsAnErrorNotAHang) {
  expectPlyError("ply\nformat ascii 1.0\n", {"scene.ply", "no end_header"});
  std::string binary = "ply\nformat binary_little_endian 1.0\nelement vertex 3\n";
  for (int i = 0; i < 256; ++i) binary += char(i);
  expectPlyError(binary, {"scene.ply", "line"});
}

TEST(PlyFiles, BodyShorterThanTheHeaderSays) {
  expectPlyError(
      "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
      "property float z\nelement face 1\nproperty list uchar int vertex_indices\n"
      "end_header\n1 2\n",
      {"scene.ply", "3 vertex, 1 face", "bytes follow"});
  // Enough bytes for the size check, but the values run out inside the last vertex.
  expectPlyError(kSquareHeader + "0 0 0\n1 0 0\n1 1 0\n0 1" + std::string(10, ' '),
                 {"scene.ply: line 14", "the file ends inside vertex 3 of 4"});
  std::string bin = binaryPly(false);
  bin.resize(bin.size() - 5);  // the size check counts lists as empty; the reads catch the rest
  expectPlyError(bin, {"scene.ply: byte", "the file ends inside edge 0 of 1"});
}

TEST(PlyFiles, HugeCountsAreRefusedBeforeAllocating) {
  const std::string text =
      "ply\nformat ascii 1.0\nelement vertex 500000000\nproperty float x\nproperty float y\n"
      "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
      "0 0 0\n";
  EXPECT_LT(text.size(), 200u);
  const auto start = std::chrono::steady_clock::now();
  expectPlyError(text, {"500000000 vertex", "at least 3000000001 bytes", "truncated"});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  expectPlyError(
      "ply\nformat ascii 1.0\nelement vertex 99999999999\nproperty float x\nend_header\n",
      {"line 3", "over 2^32"});
  // A list count beyond the bytes left.
  expectPlyError(kSquareHeader + "0 0 0\n1 0 0\n1 1 0\n0 1 0\n200 0 1 2 3\n",
                 {"line 15", "count 200", "more items than the file holds"});
}

TEST(PlyFiles, IndicesAndValuesAreChecked) {
  expectPlyError(kSquareHeader + "0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 9999 3\n",
                 {"scene.ply: line 15: face 0 has vertex index 9999 but the file has 4 vertices"});
  expectPlyError(kSquareHeader + "0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 -1 2 3\n",
                 {"face 0 has vertex index -1"});
  expectPlyError(kSquareHeader + "0 0 0\n1 zero 0\n1 1 0\n0 1 0\n4 0 1 2 3\n",
                 {"line 12", "vertex 1", "property 'y' is 'zero', not a number"});
  expectPlyError(kSquareHeader + "0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1.5 2 3\n",
                 {"line 15", "not an integer"});
  expectPlyError(kSquareHeader + "0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 2 9223372036854775807\n",
                 {"line 15", "not an integer"});
  expectPlyError(kSquareHeader + "0 0 0\n1 0 0\n1 1 0\n0 1 0\n-4 0 1 2 3\n",
                 {"line 15", "count -4"});
  std::string bin = binaryPly(false);
  bin[bin.size() - 8 - 1] = char(0x7f);  // the face's last index, high byte: 0x7f02
  expectPlyError(bin, {"scene.ply: byte", "face 0 has vertex index 32514 but the file has 3"});
}

TEST(PlyFiles, MalformedHeaders) {
  expectPlyError("", {"scene.ply", "empty file"});
  expectPlyError("plx\n", {"scene.ply", "not a PLY file"});
  expectPlyError("ply\nformat ascii 2.0\nend_header\n", {"line 2", "version '2.0'"});
  expectPlyError("ply\nformat utf8 1.0\nend_header\n", {"line 2", "unknown format 'utf8'"});
  expectPlyError("ply\nformat ascii 1.0\nproperty float x\nend_header\n",
                 {"line 3", "before any element"});
  expectPlyError("ply\nformat ascii 1.0\nelement vertex 1\nproperty half x\nend_header\n0\n",
                 {"line 4", "unknown property type 'half'"});
  expectPlyError("ply\nformat ascii 1.0\nelement vertex 1\nproperty list float int i\nend_header\n",
                 {"line 4", "integer type"});
  expectPlyError("ply\nformat ascii 1.0\nelement vertex 100\nend_header\n",
                 {"line 3", "no properties"});
  expectPlyError("ply\nformat ascii 1.0\nelemnt vertex 1\nend_header\n",
                 {"line 3", "unknown header keyword 'elemnt'"});
  expectPlyError("ply\nelement vertex 0\nend_header\n", {"before any format line"});
  expectPlyError(
      "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\n"
      "end_header\n0 0\n",
      {"no property 'z'"});
  expectPlyError(
      "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
      "property float z\nend_header\n0 0 0\n1 0 0\n0 1 0\n",
      {"no 'element face'", "point cloud"});
  expectPlyError(
      "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
      "property float z\nelement face 0\nproperty list uchar int vertex_indices\n"
      "end_header\n0 0 0\n1 0 0\n0 1 0\n",
      {"no faces"});
}

TEST(PlyFiles, FromDiskAndNotFromAFifo) {
  test::ScratchDir dir;
  const Scene s =
      loadScene(dir.write("sq.ply", kSquareHeader + "0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 2 3\n"));
  EXPECT_EQ(s.triangleCount(), 2u);
  const std::string fifo = dir.file("pipe.ply");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  test::expectErrorContaining<SceneError>([&] { loadScene(fifo); },
                                          {"pipe.ply", "not a regular file"});
}

}  // namespace
}  // namespace srt
