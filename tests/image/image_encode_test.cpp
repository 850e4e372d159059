// The fast image encoders against references: our PNG decoded by zlib with every CRC and the
// Adler-32 checked and the rows unfiltered here (and by stb_image), byte-identical whatever the
// thread count; the 8-bit sRGB table against a pow per value; our uncompressed EXR read back by
// tinyexr.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../scenes/test_util.h"
#include "base/exr_encode.h"
#include "base/image_io.h"
#include "base/png_encode.h"

namespace srt {
namespace {

uint32_t bigEndian(const std::string& s, size_t at) {
  return uint32_t(uint8_t(s[at])) << 24 | uint32_t(uint8_t(s[at + 1])) << 16 |
         uint32_t(uint8_t(s[at + 2])) << 8 | uint32_t(uint8_t(s[at + 3]));
}

int paethPredictor(int a, int b, int c) {
  const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return pa <= pb && pa <= pc ? a : (pb <= pc ? b : c);
}

// A strict decoder of the PNG files we write (8-bit RGB, no interlace): chunk CRCs, IHDR, the
// zlib stream inflated whole (inflate checks the Adler-32), every row unfiltered.
std::vector<uint8_t> decodePng(const std::string& png, int* width, int* height) {
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  std::string idat;
  bool ended = false;
  for (size_t at = 8; at < png.size();) {
    const uint32_t length = bigEndian(png, at);
    const std::string type = png.substr(at + 4, 4);
    const std::string data = png.substr(at + 8, length);
    uLong crc = crc32(0, reinterpret_cast<const Bytef*>(png.data() + at + 4), 4 + length);
    EXPECT_EQ(crc, bigEndian(png, at + 8 + length)) << type << " chunk's CRC";
    if (type == "IHDR") {
      *width = int(bigEndian(data, 0)), *height = int(bigEndian(data, 4));
      EXPECT_EQ(data.substr(8), std::string("\x08\x02\x00\x00\x00", 5));
    } else if (type == "IDAT") {
      idat += data;
    } else {
      EXPECT_EQ(type, "IEND");
      ended = true;
      EXPECT_EQ(at + 12, png.size()) << "nothing after IEND";
    }
    at += 12 + length;
  }
  EXPECT_TRUE(ended);
  const size_t rowBytes = size_t(*width) * 3;
  std::vector<uint8_t> raw(size_t(*height) * (rowBytes + 1));
  uLongf size = uLongf(raw.size());
  EXPECT_EQ(uncompress(raw.data(), &size, reinterpret_cast<const Bytef*>(idat.data()),
                       uLong(idat.size())),
            Z_OK);
  EXPECT_EQ(size, raw.size());
  std::vector<uint8_t> rgb(size_t(*height) * rowBytes);
  for (size_t y = 0; y < size_t(*height); ++y) {
    const uint8_t filter = raw[y * (rowBytes + 1)];
    const uint8_t* in = &raw[y * (rowBytes + 1) + 1];
    uint8_t* row = &rgb[y * rowBytes];
    const uint8_t* up = y > 0 ? row - rowBytes : nullptr;
    EXPECT_LE(filter, 4);
    for (size_t i = 0; i < rowBytes; ++i) {
      const int a = i >= 3 ? row[i - 3] : 0, b = up ? up[i] : 0, c = up && i >= 3 ? up[i - 3] : 0;
      const int predictor = filter == 0   ? 0
                            : filter == 1 ? a
                            : filter == 2 ? b
                            : filter == 3 ? (a + b) / 2
                                          : paethPredictor(a, b, c);
      row[i] = uint8_t(in[i] + predictor);
    }
  }
  return rgb;
}

// Smooth where filters pay, noisy where they do not, with flat runs.
std::vector<uint8_t> testPixels(int width, int height, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> rgb(size_t(width) * size_t(height) * 3);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < 3; ++c) {
        const size_t i = (size_t(y) * size_t(width) + size_t(x)) * 3 + size_t(c);
        rgb[i] = x < width / 3 ? uint8_t(x + y + c) : x < 2 * width / 3 ? uint8_t(rng()) : 200;
      }
  return rgb;
}

TEST(PngEncode, DecodesToTheSameBytesForEveryFilterLevelAndSize) {
  // Sizes: one pixel, one row, one column, odd widths, a band boundary (192 KiB of rows: 21
  // rows of 3121 pixels), and an image of many bands.
  for (auto [w, h] : {std::pair{1, 1}, std::pair{1, 300}, std::pair{257, 1}, std::pair{13, 7},
                      std::pair{3121, 21}, std::pair{3121, 22}, std::pair{200, 700}}) {
    const std::vector<uint8_t> rgb = testPixels(w, h, unsigned(w * 7 + h));
    for (PngFilter filter :
         {PngFilter::None, PngFilter::Sub, PngFilter::Up, PngFilter::Paeth, PngFilter::Adaptive})
      for (int level : {1, 3})
        for (bool rle : {false, true}) {
          SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " " + toString(filter) +
                       " level " + std::to_string(level) + (rle ? " rle" : ""));
          const std::string png = encodePngRgb8(rgb.data(), w, h, {level, filter, rle, 0});
          int dw = 0, dh = 0;
          const std::vector<uint8_t> back = decodePng(png, &dw, &dh);
          ASSERT_EQ(dw, w);
          ASSERT_EQ(dh, h);
          ASSERT_TRUE(back == rgb);
        }
  }
}

TEST(PngEncode, SameFileOnAnyThreadCount) {
  const std::vector<uint8_t> rgb = testPixels(1000, 700, 3);
  const std::string one = encodePngRgb8(rgb.data(), 1000, 700, {1, PngFilter::Up, false, 1});
  for (int threads : {2, 3, 16})
    EXPECT_EQ(encodePngRgb8(rgb.data(), 1000, 700, {1, PngFilter::Up, false, threads}), one);
}

TEST(PngEncode, EmptyImageRefused) {
  const uint8_t pixel[3] = {};
  EXPECT_THROW(encodePngRgb8(pixel, 0, 1, {}), std::runtime_error);
  EXPECT_THROW(encodePngRgb8(pixel, 1, 0, {}), std::runtime_error);
}

TEST(PngEncode, StbReadsWhatWeWrite) {
  test::ScratchDir dir;
  Image img(301, 77);
  for (size_t i = 0; i < img.pixels.size(); ++i)
    img.pixels[i] = {float(i % 301) / 300.f, float(i / 301) / 76.f, 0.25f};
  const std::string path = dir.file("a.png");
  writeImage(path, img);
  const Image back = readImage(path);
  ASSERT_EQ(back.width, 301);
  ASSERT_EQ(back.height, 77);
  for (size_t i = 0; i < img.pixels.size(); ++i)
    for (int c = 0; c < 3; ++c)
      ASSERT_EQ(linearToSrgb8(back.pixels[i][c]), linearToSrgb8(img.pixels[i][c])) << i;
}

// The code of a pow per value, as the table claims to give.
uint8_t srgbCodeByPow(float v) {
  v = std::isnan(v) ? 0.f : clampf(v, 0.f, 1.f);
  return uint8_t(std::lround(linearToSrgb(v) * 255.f));
}

float fromBits(uint32_t bits) {
  float v;
  std::memcpy(&v, &bits, 4);
  return v;
}

TEST(SrgbTable, MatchesAPowPerValue) {
  // Every 997th float in [0, 1], and 200 floats either side of each step between codes.
  for (uint32_t bits = 0; bits <= 0x3f800000u; bits += 997)
    ASSERT_EQ(linearToSrgb8(fromBits(bits)), srgbCodeByPow(fromBits(bits))) << fromBits(bits);
  uint32_t previous = 0;
  for (uint32_t bits = 0; bits <= 0x3f800000u; bits += 64) {
    if (srgbCodeByPow(fromBits(bits)) == srgbCodeByPow(fromBits(previous))) {
      previous = bits;
      continue;
    }
    for (uint32_t b = previous > 200 ? previous - 200 : 0; b < bits + 200; ++b)
      ASSERT_EQ(linearToSrgb8(fromBits(b)), srgbCodeByPow(fromBits(b))) << fromBits(b);
    previous = bits;
  }
  for (float v : {0.f, -0.f, -1.f, 1.f, 2.f, 1e-40f, std::nextafter(1.f, 0.f), INFINITY, -INFINITY,
                  std::nanf("")})
    EXPECT_EQ(linearToSrgb8(v), srgbCodeByPow(v)) << v;
}

TEST(ExrEncode, UncompressedReadsBackExactly) {
  test::ScratchDir dir;
  for (auto [w, h] : {std::pair{1, 1}, std::pair{1, 5}, std::pair{9, 1}, std::pair{123, 45}}) {
    Image img(w, h);
    std::mt19937 rng(unsigned(w + h));
    std::uniform_real_distribution<float> u(-5.f, 1e4f);
    for (Vec3f& p : img.pixels) p = {u(rng), u(rng), u(rng)};
    for (ExrCompression c : {ExrCompression::None, ExrCompression::Zip}) {
      SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " " + toString(c));
      ImageEncoding encoding;
      encoding.exr = c;
      const std::string path = dir.file("a.exr");
      const std::string bytes = encodeImage(path, img, 0.f, encoding);
      dir.write("a.exr", bytes);
      const Image back = readImage(path);
      ASSERT_EQ(back.width, w);
      ASSERT_EQ(back.height, h);
      for (size_t i = 0; i < img.pixels.size(); ++i) ASSERT_TRUE(back.pixels[i] == img.pixels[i]);
    }
  }
}

}  // namespace
}  // namespace srt
