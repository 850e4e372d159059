#include "base/image_io.h"

#include "base/atomic_file.h"
#include "base/paths.h"

#include <stb_image.h>
#include <stb_image_write.h>
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

std::string encodePng(const Image& image, float exposure) {
  const float scale = std::exp2(exposure);
  std::vector<uint8_t> bytes(image.pixels.size() * 3);
  for (size_t i = 0; i < image.pixels.size(); ++i)
    for (int c = 0; c < 3; ++c) {
      float v = image.pixels[i][c] * scale;
      v = std::isnan(v) ? 0.f : clampf(v, 0.f, 1.f);
      bytes[3 * i + c] = uint8_t(std::lround(linearToSrgb(v) * 255.f));
    }
  std::string out;
  auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), size_t(size));
  };
  if (!stbi_write_png_to_func(append, &out, image.width, image.height, 3, bytes.data(),
                              image.width * 3))
    return {};
  return out;
}

// tinyexr's SaveEXR, in memory: its file writer ignores fclose's error (a full disk).
std::string encodeExr(const std::string& path, const Image& image) {
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
  header.compression_type = image.width < 16 && image.height < 16 ? TINYEXR_COMPRESSIONTYPE_NONE
                                                                  : TINYEXR_COMPRESSIONTYPE_ZIP;
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

std::string encodeImage(const std::string& path, const Image& image, float exposure) {
  checkImageExtension(path);
  checkImage(path, image);
  const std::string ext = lowerExtension(path);
  if (ext == ".exr") return encodeExr(path, image);
  if (ext == ".pfm") return encodePfm(image);
  std::string png = encodePng(image, exposure);
  if (png.empty()) throw ImageError("cannot write PNG '" + path + "': the encoder failed");
  return png;
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
