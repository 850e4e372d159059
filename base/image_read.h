// Reading high-dynamic-range images for lighting: Radiance .hdr (RGBE, through stb_image) and
// OpenEXR .exr (through tinyexr), as linear RGB. Kept apart from image_io.h, which is about the
// renderer's own outputs.
#pragma once

#include <string>

#include "base/image_io.h"

namespace srt {

// True for the extensions readRadianceImage takes (.hdr, .exr; any case).
bool isRadianceImagePath(const std::string& path);

// Linear RGB radiance, row 0 at the top. Negative values (ringing some EXR filters leave) read as
// 0. Throws ImageError naming the path for an unknown extension, an unreadable or malformed file,
// or a texel that is not finite.
Image readRadianceImage(const std::string& path);

}  // namespace srt
