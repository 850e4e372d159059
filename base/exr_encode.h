// An uncompressed scanline OpenEXR file of 32-bit float RGB, written by hand because it is
// simple and tinyexr writes it one row at a time (about 75 MB/s where this runs at memory speed):
// the header, the offset table and one chunk per row, rows filled in parallel. EXR readers
// (tinyexr, OpenEXR) read it; the compressed kinds still go through tinyexr (base/image_io.cpp).
#pragma once

#include <string>

#include "base/math.h"

namespace srt {

// `pixels`: width * height linear RGB values, row 0 at the top.
std::string encodeUncompressedExr(const Vec3f* pixels, int width, int height);

}  // namespace srt
