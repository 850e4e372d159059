// Image files: exact float round trips, PNG tone mapping, and failures that leave nothing behind.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include <sys/stat.h>
#include <unistd.h>

#include "base/atomic_file.h"
#include "base/image_io.h"
#include "base/paths.h"
#include "test_util.h"

namespace srt {
namespace {

namespace fs = std::filesystem;

Image randomImage(int w, int h, float lo, float hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  Image img(w, h);
  for (Vec3f& p : img.pixels) p = {u(rng), u(rng), u(rng)};
  return img;
}

size_t filesIn(const fs::path& dir) {
  return size_t(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

class FloatFormats : public ::testing::TestWithParam<const char*> {};

TEST_P(FloatFormats, RoundTripIsExact) {
  test::ScratchDir dir;
  for (auto [w, h] : {std::pair{1, 1}, std::pair{7, 3}, std::pair{3, 7}, std::pair{64, 33}}) {
    SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
    const Image img = randomImage(w, h, -10.f, 1000.f, unsigned(w * 131 + h));
    const std::string path = dir.file(std::string("img") + GetParam());
    writeImage(path, img, /*exposure ignored for float formats*/ 3.f);
    const Image back = readImage(path);
    ASSERT_EQ(back.width, w);
    ASSERT_EQ(back.height, h);
    for (size_t i = 0; i < img.pixels.size(); ++i)
      ASSERT_TRUE(back.pixels[i] == img.pixels[i]) << "pixel " << i;
  }
  EXPECT_EQ(filesIn(dir.path()), 1u) << "no temporary files left";
}

INSTANTIATE_TEST_SUITE_P(All, FloatFormats, ::testing::Values(".pfm", ".exr", ".PFM"));

TEST(ImageIo, PfmStoresBottomRowFirstLittleEndian) {
  test::ScratchDir dir;
  Image img(2, 2);
  img.at(0, 0) = Vec3f(1.f);  // top row
  img.at(0, 1) = Vec3f(2.f);  // bottom row
  const std::string path = dir.file("order.pfm");
  writeImage(path, img);
  std::ifstream in(path, std::ios::binary);
  std::string magic, scale;
  int w, h;
  in >> magic >> w >> h >> scale;
  in.get();
  EXPECT_EQ(magic, "PF");
  EXPECT_EQ(scale, "-1.0") << "negative scale: little-endian";
  unsigned char bytes[4];
  in.read(reinterpret_cast<char*>(bytes), 4);
  const uint32_t bits = uint32_t(bytes[0]) | uint32_t(bytes[1]) << 8 | uint32_t(bytes[2]) << 16 |
                        uint32_t(bytes[3]) << 24;
  float first;
  std::memcpy(&first, &bits, 4);
  EXPECT_EQ(first, 2.f) << "the first stored row is the bottom of the picture";
}

TEST(ImageIo, PngWithinOneStepAfterToneMapping) {
  test::ScratchDir dir;
  Image img = randomImage(17, 9, -0.2f, 1.5f, 7);
  img.pixels[0] = {std::nanf(""), 0.f, 1.f};
  for (float exposure : {0.f, 1.f, -2.f}) {
    SCOPED_TRACE(exposure);
    const std::string path = dir.file("img.png");
    writeImage(path, img, exposure);
    const Image back = readImage(path);
    ASSERT_EQ(back.width, img.width);
    ASSERT_EQ(back.height, img.height);
    const float scale = std::exp2(exposure);
    for (size_t i = 0; i < img.pixels.size(); ++i)
      for (int c = 0; c < 3; ++c) {
        float v = img.pixels[i][c] * scale;
        v = std::isnan(v) ? 0.f : clampf(v, 0.f, 1.f);
        ASSERT_NEAR(linearToSrgb(back.pixels[i][c]), linearToSrgb(v), 1.f / 255.f + 1e-5f)
            << "pixel " << i << " channel " << c;
      }
  }
}

TEST(ImageIo, SrgbCurvesInvert) {
  for (float v = 0.f; v <= 1.f; v += 1.f / 64.f)
    EXPECT_NEAR(srgbToLinear(linearToSrgb(v)), v, 1e-5f);
  EXPECT_NEAR(linearToSrgb(0.5f), 0.7354f, 1e-3f);
}

TEST(ImageIo, FailedWritesLeaveNothing) {
  test::ScratchDir dir;
  const Image img = randomImage(4, 4, 0.f, 1.f, 1);
  test::expectErrorContaining<ImageError>([&] { writeImage(dir.file("a.bmp"), img); },
                                          {"a.bmp", "extension"});
  test::expectErrorContaining<ImageError>([&] { writeImage(dir.file("noext"), img); }, {"noext"});
  test::expectErrorContaining<ImageError>([&] { writeImage(dir.file("missing/a.png"), img); },
                                          {"missing/a.png"});
  Image bad(4, 4);
  bad.pixels.pop_back();
  test::expectErrorContaining<ImageError>([&] { writeImage(dir.file("bad.exr"), bad); },
                                          {"bad.exr"});
  test::expectErrorContaining<ImageError>([&] { writeImage(dir.file("empty.png"), Image()); },
                                          {"empty.png"});
  EXPECT_EQ(filesIn(dir.path()), 0u);
  // The final rename fails (the target is a folder): the encoded temporary must be removed.
  for (const char* ext : {".png", ".exr", ".pfm"}) {
    fs::create_directories(dir.path() / (std::string("taken") + ext));
    test::expectErrorContaining<ImageError>(
        [&] { writeImage(dir.file(std::string("taken") + ext), img); },
        {std::string("taken") + ext});
  }
  EXPECT_EQ(filesIn(dir.path()), 3u) << "only the three folders";
}

TEST(ImageIo, OverwriteAndBadReads) {
  test::ScratchDir dir;
  const std::string path = dir.file("x.pfm");
  writeImage(path, Image(2, 2));
  writeImage(path, randomImage(3, 1, 0.f, 1.f, 2));
  EXPECT_EQ(readImage(path).width, 3);
  test::expectErrorContaining<ImageError>([&] { readImage(dir.file("none.pfm")); }, {"none.pfm"});
  test::expectErrorContaining<ImageError>([&] { readImage(dir.file("none.exr")); }, {"none.exr"});
  test::expectErrorContaining<ImageError>([&] { readImage(dir.file("none.png")); }, {"none.png"});
  test::expectErrorContaining<ImageError>(
      [&] { readImage(dir.write("t.pfm", "PF\n4 4\n-1.0\nabc")); }, {"t.pfm", "truncated"});
  test::expectErrorContaining<ImageError>([&] { readImage(dir.write("h.pfm", "P6\n4 4\n255\n")); },
                                          {"h.pfm"});
  test::expectErrorContaining<ImageError>([&] { readImage(dir.file("a.tga")); }, {"a.tga"});
}

TEST(OutputFiles, RefusedUnlessARegularFileOrANewName) {
  test::ScratchDir dir;
  ASSERT_EQ(mkfifo(dir.file("fifo.png").c_str(), 0644), 0);
  fs::create_directories(dir.path() / "folder.png");
  fs::create_symlink("fifo.png", dir.path() / "to-fifo.png");
  test::expectErrorContaining<FileWriteError>([&] { checkOutputFile(dir.file("fifo.png"), "-o"); },
                                              {"-o", "fifo.png", "a FIFO"});
  test::expectErrorContaining<FileWriteError>(
      [&] { checkOutputFile(dir.file("to-fifo.png"), "-o"); }, {"to-fifo.png", "a FIFO"});
  test::expectErrorContaining<FileWriteError>(
      [&] { checkOutputFile(dir.file("folder.png"), "-o"); }, {"folder.png", "is a folder"});
  test::expectErrorContaining<FileWriteError>([&] { checkOutputFile("/dev/null", "--stats"); },
                                              {"--stats /dev/null", "a character device"});
  test::expectErrorContaining<FileWriteError>([&] { checkOutputFile("", "-o"); }, {"empty"});
  test::expectErrorContaining<ImageError>([&] { writeImage(dir.file("fifo.png"), Image(1, 1)); },
                                          {"fifo.png", "a FIFO"});
  struct stat st {};
  ASSERT_EQ(lstat(dir.file("fifo.png").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
  EXPECT_EQ(filesIn(dir.path()), 3u) << "no temporaries";
}

TEST(OutputFiles, SymlinksAreWrittenThrough) {
  test::ScratchDir dir;
  fs::create_directories(dir.path() / "sub");
  fs::create_symlink("sub/target.pfm", dir.path() / "link.pfm");
  const OutputFile out = checkOutputFile(dir.file("link.pfm"), "-o");
  EXPECT_EQ(out.path, dir.file("link.pfm"));
  EXPECT_EQ(out.target, dir.file("sub/target.pfm"));
  writeImage(dir.file("link.pfm"), Image(2, 3));
  EXPECT_TRUE(fs::is_symlink(dir.path() / "link.pfm"));
  EXPECT_EQ(readImage(dir.file("sub/target.pfm")).height, 3);
  EXPECT_EQ(filesIn(dir.path() / "sub"), 1u) << "no temporaries beside the target";
}

TEST(OutputFiles, OneFileNamedTwiceIsRefused) {
  test::ScratchDir dir;
  fs::create_directories(dir.path() / "sub");
  dir.write("a.json", "old");
  fs::create_hard_link(dir.path() / "a.json", dir.path() / "hard.json");
  fs::create_symlink("a.json", dir.path() / "link.json");
  const OutputFile a = checkOutputFile(dir.file("a.json"), "-o");
  for (const char* other : {"a.json", "sub/../a.json", "link.json", "hard.json"}) {
    SCOPED_TRACE(other);
    test::expectErrorContaining<FileWriteError>(
        [&] {
          checkDistinctOutputs({{"-o", a}, {"--stats", checkOutputFile(dir.file(other), "")}});
        },
        {"--stats", other, "the same file as -o"});
  }
  checkDistinctOutputs({{"-o", a}, {"--stats", checkOutputFile(dir.file("b.json"), "")}});
}

TEST(OutputFiles, StagedFilesAppearTogetherOrNotAtAll) {
  test::ScratchDir dir;
  dir.write("keep.txt", "old");
  {
    StagedFile a(checkOutputFile(dir.file("keep.txt"), "-o"), "text");
    StagedFile b(checkOutputFile(dir.file("new.txt"), "-o"), "text");
    a.write("new");
    b.write("new");
    EXPECT_EQ(filesIn(dir.path()), 3u) << "the old file and two temporaries";
  }  // not committed: both temporaries go, the old file stays
  EXPECT_EQ(filesIn(dir.path()), 1u);
  std::ifstream in(dir.file("keep.txt"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "old");
  StagedFile a(checkOutputFile(dir.file("keep.txt"), "-o"), "text");
  StagedFile b(checkOutputFile(dir.file("new.txt"), "-o"), "text");
  a.write("new");
  b.write("new");
  StagedFile::commitTogether({&a, &b});
  EXPECT_EQ(filesIn(dir.path()), 2u);
  EXPECT_EQ(fs::file_size(dir.path() / "keep.txt"), 3u);
}

TEST(Paths, ValidUtf8ReplacesStrayBytes) {
  EXPECT_EQ(validUtf8("plain/\xc3\xa9t\xc3\xa9.obj"), "plain/\xc3\xa9t\xc3\xa9.obj");
  EXPECT_EQ(validUtf8("a\xff.obj"), "a\xef\xbf\xbd.obj");
  EXPECT_EQ(validUtf8("\xc0\x80"), "\xef\xbf\xbd\xef\xbf\xbd") << "overlong";
  EXPECT_EQ(validUtf8("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd") << "surrogate";
  EXPECT_EQ(validUtf8("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80") << "U+1F600";
  EXPECT_EQ(validUtf8("x\xe2\x82"), "x\xef\xbf\xbd\xef\xbf\xbd") << "cut short";
}

}  // namespace
}  // namespace srt
