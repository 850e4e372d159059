#include "base/image_io.h"

#include "base/atomic_file.h"
#include "base/exr_encode.h"
#include "base/paths.h"

#include <stb_image.h>
#include <tinyexr.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

namespace srt {
namespace {

void checkImage(const std::string& path, const Image& image) {
  if (image.width <= 0 || image.height <= 0 ||
      image.pixels.size() != size_t(image.width) * size_t(image.height)) {
    std::ostringstream s;
    s << "cannot write image '" << path << "': " << image.width << "x" << image.height
      << " image holds " << image.pixels.size() << " pixels";
    throw ImageError(s.str());
  }
}

// tinyexr's SaveEXR, in memory: its file writer ignores fclose's error (a full disk).
int tinyexrCompression(ExrCompression c) {
  switch (c) {
    case ExrCompression::None:
      return TINYEXR_COMPRESSIONTYPE_NONE;
    case ExrCompression::Rle:
      return TINYEXR_COMPRESSIONTYPE_RLE;
    case ExrCompression::Zips:
      return TINYEXR_COMPRESSIONTYPE_ZIPS;
    case ExrCompression::Zip:
      return TINYEXR_COMPRESSIONTYPE_ZIP;
    case ExrCompression::Piz:
      return TINYEXR_COMPRESSIONTYPE_PIZ;
  }
  return TINYEXR_COMPRESSIONTYPE_NONE;
}

std::string encodeExr(const std::string& path, const Image& image, ExrCompression compression) {
  if (compression == ExrCompression::None)
    return encodeUncompressedExr(image.pixels.data(), image.width, image.height);
  const size_t n = image.pixels.size();
  std::vector<float> planes[3];  // B, G, R: the channel order EXR readers expect
  for (int c = 0; c < 3; ++c) {
    planes[c].resize(n);
    for (size_t i = 0; i < n; ++i) planes[c][i] = image.pixels[i][2 - c];
  }
  float* pointers[3] = {planes[0].data(), planes[1].data(), planes[2].data()};
  EXRImage exr;
  InitEXRImage(&exr);
  exr.num_channels = 3;
  exr.images = reinterpret_cast<unsigned char**>(pointers);
  exr.width = image.width;
  exr.height = image.height;
  EXRHeader header;
  InitEXRHeader(&header);
  // (tinyexr's compressors misbehave on images under 16 pixels a side)
  header.compression_type = image.width < 16 && image.height < 16 ? TINYEXR_COMPRESSIONTYPE_NONE
                                                                  : tinyexrCompression(compression);
  std::vector<EXRChannelInfo> channels(3);
  for (int c = 0; c < 3; ++c) {
    std::memset(&channels[c], 0, sizeof(EXRChannelInfo));
    channels[c].name[0] = "BGR"[c];
  }
  std::vector<int> types(3, TINYEXR_PIXELTYPE_FLOAT);
  header.num_channels = 3;
  header.channels = channels.data();
  header.pixel_types = types.data();
  header.requested_pixel_types = types.data();
  unsigned char* memory = nullptr;
  const char* err = nullptr;
  const size_t size = SaveEXRImageToMemory(&exr, &header, &memory, &err);
  if (size == 0) {
    const std::string msg = err ? err : "unknown error";
    if (err) FreeEXRErrorMessage(err);
    throw ImageError("cannot write EXR '" + path + "': " + msg);
  }
  std::string out(reinterpret_cast<const char*>(memory), size);
  std::free(memory);
  return out;
}

bool hostIsLittleEndian() {
  const uint32_t one = 1;
  uint8_t first;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

float byteSwap(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  u = (u >> 24) | ((u >> 8) & 0xff00u) | ((u << 8) & 0xff0000u) | (u << 24);
  std::memcpy(&v, &u, 4);
  return v;
}

std::string encodePfm(const Image& image) {
  std::string out =
      "PF\n" + std::to_string(image.width) + " " + std::to_string(image.height) + "\n-1.0\n";
  const bool swap = !hostIsLittleEndian();
  std::vector<float> row(size_t(image.width) * 3);
  for (int y = image.height - 1; y >= 0; --y) {  // PFM stores the bottom row first
    for (int x = 0; x < image.width; ++x)
      for (int c = 0; c < 3; ++c) {
        const float v = image.at(x, y)[c];
        row[size_t(x) * 3 + c] = swap ? byteSwap(v) : v;
      }
    out.append(reinterpret_cast<const char*>(row.data()), row.size() * 4);
  }
  return out;
}

Image readPfm(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ImageError("cannot open image '" + path + "'");
  std::string magic;
  int width = 0, height = 0;
  float scale = 0.f;
  in >> magic >> width >> height >> scale;
  if (!in || (magic != "PF" && magic != "Pf") || width <= 0 || height <= 0 || scale == 0.f)
    throw ImageError("'" + path + "' is not a valid PFM file (bad header)");
  in.get();  // the single whitespace byte before the raster
  const int channels = magic == "PF" ? 3 : 1;
  const bool swap = (scale < 0.f) != hostIsLittleEndian();
  std::vector<float> data(size_t(width) * size_t(height) * size_t(channels));
  in.read(reinterpret_cast<char*>(data.data()), std::streamsize(data.size() * 4));
  if (!in)
    throw ImageError("'" + path + "' is truncated (PFM raster shorter than its header says)");
  Image image(width, height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const float* p = &data[(size_t(height - 1 - y) * size_t(width) + size_t(x)) * channels];
      Vec3f v;
      for (int c = 0; c < 3; ++c)
        v[c] = swap ? byteSwap(p[channels == 3 ? c : 0]) : p[channels == 3 ? c : 0];
      image.at(x, y) = v;
    }
  return image;
}

Image readExr(const std::string& path) {
  float* rgba = nullptr;
  int width = 0, height = 0;
  const char* err = nullptr;
  if (LoadEXR(&rgba, &width, &height, path.c_str(), &err) != TINYEXR_SUCCESS) {
    const std::string msg = err ? err : "unknown error";
    if (err) FreeEXRErrorMessage(err);
    throw ImageError("cannot read EXR '" + path + "': " + msg);
  }
  std::unique_ptr<float, decltype(&std::free)> owner(rgba, &std::free);
  Image image(width, height);
  for (size_t i = 0; i < image.pixels.size(); ++i)
    image.pixels[i] = {rgba[4 * i], rgba[4 * i + 1], rgba[4 * i + 2]};
  return image;
}

Image readPng(const std::string& path) {
  int width = 0, height = 0, channels = 0;
  stbi_uc* data = stbi_load(path.c_str(), &width, &height, &channels, 3);
  if (!data) throw ImageError("cannot read image '" + path + "': " + stbi_failure_reason());
  std::unique_ptr<stbi_uc, decltype(&stbi_image_free)> owner(data, &stbi_image_free);
  Image image(width, height);
  for (size_t i = 0; i < image.pixels.size(); ++i)
    for (int c = 0; c < 3; ++c) image.pixels[i][c] = srgbToLinear(data[3 * i + c] / 255.f);
  return image;
}

}  // namespace

const char* toString(ExrCompression compression) {
  switch (compression) {
    case ExrCompression::None:
      return "none";
    case ExrCompression::Rle:
      return "rle";
    case ExrCompression::Zips:
      return "zips";
    case ExrCompression::Zip:
      return "zip";
    case ExrCompression::Piz:
      return "piz";
  }
  return "?";
}

namespace {

// The 8-bit code PNG stores for linear `v` (after exposure): clamped, sRGB-encoded, rounded.
uint8_t srgbCode(float v) {
  v = std::isnan(v) ? 0.f : clampf(v, 0.f, 1.f);
  return uint8_t(std::lround(linearToSrgb(v) * 255.f));
}

// The code only grows with v. Within one bucket of floats sharing their top 17 bits (1/256 of a
// binade) it grows by at most one, so the bucket's first code and the least float of the next
// code (found once by bisection over float bit patterns, which order positive floats as their
// values) give the code of any v with one load and one comparison, the same bytes a pow per
// channel gives.
struct SrgbTable {
  static constexpr int kShift = 15;
  static constexpr uint32_t kOne = 0x3f800000u;  // 1.f
  std::vector<uint8_t> bucketCode = std::vector<uint8_t>((kOne >> kShift) + 1);
  float least[256];  // least[k]: the least float with code k + 1 (least[255]: none)

  static float fromBits(uint32_t bits) {
    float v;
    std::memcpy(&v, &bits, 4);
    return v;
  }
  SrgbTable() {
    for (int k = 0; k < 255; ++k) {
      uint32_t lo = 0, hi = kOne;  // srgbCode(0) = 0, srgbCode(1) = 255
      while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        (srgbCode(fromBits(mid)) > k ? hi : lo) = mid;
      }
      least[k] = fromBits(hi);
    }
    least[255] = INFINITY;
    for (uint32_t b = 0; b < bucketCode.size(); ++b)
      bucketCode[b] = srgbCode(fromBits(b << kShift));
  }
  uint8_t code(float v) const {
    if (!(v > 0.f)) return 0;  // NaN too
    if (v >= 1.f) return 255;
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    const uint8_t k = bucketCode[bits >> kShift];
    return uint8_t(k + (v >= least[k]));
  }
};

}  // namespace

uint8_t linearToSrgb8(float v) {
  static const SrgbTable table;
  return table.code(v);
}

std::vector<uint8_t> toSrgb8(const Image& image, float exposure) {
  static_assert(sizeof(Vec3f) == 3 * sizeof(float), "pixels are read as one array of floats");
  if (image.pixels.empty()) return {};
  const float scale = std::exp2(exposure);
  std::vector<uint8_t> bytes(image.pixels.size() * 3);
  const float* in = &image.pixels.data()->x;
  const int64_t n = int64_t(bytes.size());
  linearToSrgb8(0.f);  // the table, before the threads
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) bytes[size_t(i)] = linearToSrgb8(in[i] * scale);
  return bytes;
}

float srgbToLinear(float v) {
  return v <= 0.04045f ? v / 12.92f : std::pow((v + 0.055f) / 1.055f, 2.4f);
}

float linearToSrgb(float v) {
  return v <= 0.0031308f ? 12.92f * v : 1.055f * std::pow(v, 1.f / 2.4f) - 0.055f;
}

void checkImageExtension(const std::string& path) {
  const std::string ext = lowerExtension(path);
  if (ext != ".png" && ext != ".exr" && ext != ".pfm")
    throw ImageError("cannot write image '" + path + "': unknown extension '" + ext +
                     "' (use .png, .exr or .pfm)");
}

std::string encodeImage(const std::string& path, const Image& image, float exposure,
                        const ImageEncoding& encoding) {
  checkImageExtension(path);
  checkImage(path, image);
  const std::string ext = lowerExtension(path);
  if (ext == ".exr") return encodeExr(path, image, encoding.exr);
  if (ext == ".pfm") return encodePfm(image);
  const std::vector<uint8_t> srgb = toSrgb8(image, exposure);
  try {
    return encodePngRgb8(srgb.data(), image.width, image.height, encoding.png);
  } catch (const std::runtime_error& e) {
    throw ImageError("cannot write PNG '" + path + "': " + e.what());
  }
}

void writeImage(const std::string& path, const Image& image, float exposure) {
  const std::string bytes = encodeImage(path, image, exposure);
  try {
    writeFileAtomically(path, bytes, "image");
  } catch (const FileWriteError& e) {
    throw ImageError(e.what());
  }
}

Image readImage(const std::string& path) {
  const std::string ext = lowerExtension(path);
  if (ext == ".pfm") return readPfm(path);
  if (ext == ".exr") return readExr(path);
  if (ext == ".png") return readPng(path);
  throw ImageError("cannot read image '" + path + "': unknown extension '" + ext +
                   "' (use .png, .exr or .pfm)");
}

}  // namespace srt
