// Image files for the renderer's output and for image comparisons in tests and tools.
//   .png  8-bit sRGB: exposure (stops), clamp to [0,1], sRGB OETF (display-referred); encoded on
//         every core at a fast zlib level (base/png_encode.h)
//   .exr  linear 32-bit float RGB (tinyexr), uncompressed by default: the fastest to write
//   .pfm  linear 32-bit float RGB, little-endian, rows stored bottom to top as the format requires
// Images are encoded in memory and written through a temporary file renamed over the target
// (base/atomic_file.h), so a failed write never leaves a partial file behind.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "base/math.h"
#include "base/png_encode.h"

namespace srt {

// Linear RGB, row-major, row 0 at the top of the picture.
struct Image {
  int width = 0, height = 0;
  std::vector<Vec3f> pixels;

  Image() = default;
  Image(int w, int h) : width(w), height(h), pixels(size_t(w) * size_t(h)) {}
  Vec3f& at(int x, int y) { return pixels[size_t(y) * size_t(width) + size_t(x)]; }
  const Vec3f& at(int x, int y) const { return pixels[size_t(y) * size_t(width) + size_t(x)]; }
};

class ImageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// EXR's compressions that tinyexr writes.
enum class ExrCompression { None, Rle, Zips, Zip, Piz };
inline constexpr ExrCompression kExrCompressions[] = {ExrCompression::None, ExrCompression::Rle,
                                                      ExrCompression::Zips, ExrCompression::Zip,
                                                      ExrCompression::Piz};
const char* toString(ExrCompression compression);

// How images are encoded; the defaults are the fastest measured (bench/image/RESULTS.md).
struct ImageEncoding {
  PngSettings png;
  ExrCompression exr = ExrCompression::None;
};

// Format chosen by the (case-insensitive) extension. `exposure` (stops) only affects PNG; the
// float formats store radiance as it is. Throws ImageError naming the path on an unknown
// extension, an inconsistent image, or a path that cannot take a file (checkOutputFile).
void writeImage(const std::string& path, const Image& image, float exposure = 0.f);
// The bytes of that file, for a caller that writes it with others (StagedFile::commitTogether).
std::string encodeImage(const std::string& path, const Image& image, float exposure = 0.f,
                        const ImageEncoding& encoding = {});
// The 8-bit sRGB code of linear radiance `v`: clamped to [0, 1] (NaN as 0), encoded, rounded.
uint8_t linearToSrgb8(float v);
// The 8-bit sRGB bytes a PNG holds (RGB, rows top to bottom), converted on every core.
std::vector<uint8_t> toSrgb8(const Image& image, float exposure);
// Throws ImageError unless the extension names a format writeImage knows (checked before a render).
void checkImageExtension(const std::string& path);

// Reads .pfm, .exr (linear) and .png (decoded from sRGB to linear). Throws ImageError.
Image readImage(const std::string& path);

// The sRGB transfer functions on one channel (no clamping of the input to linear).
float srgbToLinear(float v);
float linearToSrgb(float v);

}  // namespace srt
