// PNG encoding built for speed on many cores: rows are filtered in parallel, and the deflate
// stream is cut into bands of rows that zlib compresses independently, each band ending on a byte
// boundary (a sync flush, as pigz does), then joined into the one zlib stream PNG wants, with the
// Adler-32 sums combined. The bands are fixed by the image size, not by the thread count, so the
// file is the same byte for byte on every machine.
#pragma once

#include <cstdint>
#include <string>

namespace srt {

// PNG's per-row filters (Adaptive: the one with the smallest sum of absolute values per row, the
// heuristic libpng and the PNG specification suggest).
enum class PngFilter { None, Sub, Up, Paeth, Adaptive };

struct PngSettings {
  // The defaults were the fastest and among the smallest on rendered images, noisy or clean
  // (bench/image/RESULTS.md): Sub with runs only beat every filter with zlib's string matching.
  int level = 1;  // zlib level, 1 (fastest) to 9
  PngFilter filter = PngFilter::Sub;
  bool rle = true;  // zlib's Z_RLE strategy (runs only, no string matching)
  int threads = 0;  // 0: OpenMP's default for the calling thread
};

// An 8-bit RGB image (rows top to bottom, `width` * 3 bytes each, no padding) as a PNG file.
// Throws std::runtime_error when zlib fails (it cannot run out of output space: sized by
// deflateBound).
std::string encodePngRgb8(const uint8_t* rgb, int width, int height, const PngSettings& settings);

const char* toString(PngFilter filter);

}  // namespace srt
