#include "base/image_read.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include <stb_image.h>

#include "base/paths.h"

namespace srt {
namespace {

Image readHdr(const std::string& path) {
  FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) throw ImageError("cannot read image '" + path + "': " + std::strerror(errno));
  std::unique_ptr<FILE, decltype(&std::fclose)> closer(file, &std::fclose);
  // stbi_loadf would also take an 8-bit file and undo a 2.2 gamma: only true RGBE is radiance.
  if (!stbi_is_hdr_from_file(file))
    throw ImageError("cannot read image '" + path + "': not a Radiance RGBE (.hdr) file");
  int width = 0, height = 0, channels = 0;
  float* data = stbi_loadf_from_file(file, &width, &height, &channels, 3);
  if (!data) throw ImageError("cannot read image '" + path + "': " + stbi_failure_reason());
  std::unique_ptr<float, decltype(&stbi_image_free)> owner(data, &stbi_image_free);
  Image image(width, height);
  for (size_t i = 0; i < image.pixels.size(); ++i)
    image.pixels[i] = {data[3 * i], data[3 * i + 1], data[3 * i + 2]};
  return image;
}

}  // namespace

bool isRadianceImagePath(const std::string& path) {
  const std::string ext = lowerExtension(path);
  return ext == ".hdr" || ext == ".exr";
}

Image readRadianceImage(const std::string& path) {
  const std::string ext = lowerExtension(path);
  Image image;
  if (ext == ".hdr")
    image = readHdr(path);
  else if (ext == ".exr")
    image = readImage(path);
  else
    throw ImageError("cannot read image '" + path + "': unknown extension '" + ext +
                     "' (a radiance map is .hdr or .exr)");
  if (image.width <= 0 || image.height <= 0 || image.pixels.empty())
    throw ImageError("cannot read image '" + path + "': it has no pixels");
  for (size_t i = 0; i < image.pixels.size(); ++i) {
    Vec3f& p = image.pixels[i];
    for (int c = 0; c < 3; ++c) {
      if (!std::isfinite(p[c]))
        throw ImageError("cannot read image '" + path + "': pixel (" +
                         std::to_string(i % size_t(image.width)) + ", " +
                         std::to_string(i / size_t(image.width)) + ") is not finite");
      p[c] = std::fmax(p[c], 0.f);
    }
  }
  return image;
}

}  // namespace srt
