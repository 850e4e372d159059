// Environment maps from files: the .hdr and .exr reader (values kept, bad files refused with the
// path named) and the scene file's "environment": {"file", "scale", "rotation"} entry.
#include <gtest/gtest.h>
#include <stb_image_write.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "base/image_read.h"
#include "scenes/loader.h"

namespace srt {
namespace {

class EnvFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    char folder[] = "/tmp/streamrt-envfile-XXXXXX";
    ASSERT_NE(mkdtemp(folder), nullptr);
    dir_ = folder;
  }
  void TearDown() override {
    for (const char* f : {"/sky.hdr", "/sky.exr", "/fake.hdr", "/scene.json", "/bad.json"})
      std::remove((dir_ + f).c_str());
    rmdir(dir_.c_str());
  }
  // 3 × 2 texels of distinct radiances, one far above 1.
  std::string writeHdr() {
    const float px[18] = {0.5f, 1, 2, 1000, 0, 0, 0, 0, 0, 0.25f, 0.25f, 0.25f, 3, 2, 1, 0, 0, 8};
    const std::string path = dir_ + "/sky.hdr";
    EXPECT_TRUE(stbi_write_hdr(path.c_str(), 3, 2, 3, px));
    return path;
  }
  std::string dir_;
};

TEST_F(EnvFiles, HdrReadsLinearRadiance) {
  const Image img = readRadianceImage(writeHdr());
  ASSERT_EQ(img.width, 3);
  ASSERT_EQ(img.height, 2);
  // RGBE keeps 8 bits of mantissa per channel, relative to the largest of the three.
  EXPECT_NEAR(img.at(1, 0).x, 1000.f, 4.f);
  EXPECT_NEAR(img.at(0, 0).z, 2.f, 0.01f);
  EXPECT_NEAR(img.at(2, 1).z, 8.f, 0.04f);
  EXPECT_TRUE(isRadianceImagePath("a/B.HDR") && isRadianceImagePath("x.exr"));
  EXPECT_FALSE(isRadianceImagePath("x.png") || isRadianceImagePath("hdr"));
}

TEST_F(EnvFiles, ExrReadsLinearRadiance) {
  Image img(2, 1);
  img.at(0, 0) = Vec3f(123.f, 0.5f, 0.f);
  img.at(1, 0) = Vec3f(0.f, 7.f, 1e-3f);
  writeImage(dir_ + "/sky.exr", img);
  const Image back = readRadianceImage(dir_ + "/sky.exr");
  ASSERT_EQ(back.width, 2);
  EXPECT_EQ(back.at(0, 0).x, 123.f);
  EXPECT_EQ(back.at(1, 0).y, 7.f);
}

TEST_F(EnvFiles, BadFilesAreClearErrors) {
  std::ofstream(dir_ + "/fake.hdr") << "not an image";
  for (const std::string& path : {dir_ + "/fake.hdr", dir_ + "/missing.hdr", dir_ + "/x.png"}) {
    try {
      readRadianceImage(path);
      ADD_FAILURE() << path << " was read";
    } catch (const ImageError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
}

TEST_F(EnvFiles, SceneFileEntryLoadsTheMap) {
  writeHdr();
  std::ofstream(dir_ + "/scene.json")
      << R"({"environment": {"file": "sky.hdr", "scale": 2.5, "rotation": -30},
            "objects": [{"shape": "sphere", "center": [0, 0, 0], "radius": 1}]})";
  const Scene s = loadScene(dir_ + "/scene.json");
  ASSERT_TRUE(s.environmentMap.has_value());
  EXPECT_EQ(s.environmentMap->image.width, 3);
  EXPECT_EQ(s.environmentMap->scale, 2.5f);
  EXPECT_EQ(s.environmentMap->rotationDegrees, -30.f);
  EXPECT_TRUE(isBlack(s.environment));

  std::ofstream(dir_ + "/bad.json") << R"({"environment": {"file": "nope.hdr"},
            "objects": [{"shape": "sphere", "center": [0, 0, 0], "radius": 1}]})";
  try {
    loadScene(dir_ + "/bad.json");
    ADD_FAILURE() << "a missing map was accepted";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("environment.file"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("nope.hdr"), std::string::npos) << e.what();
  }
  std::ofstream(dir_ + "/bad.json") << R"({"environment": {"file": "sky.hdr", "scale": -1},
            "objects": [{"shape": "sphere", "center": [0, 0, 0], "radius": 1}]})";
  EXPECT_THROW(loadScene(dir_ + "/bad.json"), SceneError);
  std::ofstream(dir_ + "/bad.json") << R"({"environment": {"file": "sky.hdr", "spin": 3},
            "objects": [{"shape": "sphere", "center": [0, 0, 0], "radius": 1}]})";
  EXPECT_THROW(loadScene(dir_ + "/bad.json"), SceneError);
}

}  // namespace
}  // namespace srt
