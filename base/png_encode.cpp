#include "base/png_encode.h"

#include <zlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace srt {
namespace {

constexpr int kBytesPerPixel = 3;
// Raw bytes per band: small enough for every core to get a few bands of a 1080p image, large
// enough that restarting the 32 KB window at each band costs a fraction of a percent in size.
constexpr size_t kBandBytes = 192 << 10;

uint8_t paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return uint8_t(a);
  return uint8_t(pb <= pc ? b : c);
}

// Writes the filter byte and the filtered row (n bytes) to out[0..n]. `prev` is the row above,
// or all zeros for the first row.
void filterRow(PngFilter filter, const uint8_t* row, const uint8_t* prev, size_t n, uint8_t* out) {
  out[0] = filter == PngFilter::Paeth ? 4 : uint8_t(filter);  // PNG's type 3, Average, is unused
  uint8_t* f = out + 1;
  switch (filter) {
    case PngFilter::None:
      std::memcpy(f, row, n);
      return;
    case PngFilter::Sub:
      for (size_t i = 0; i < n; ++i) f[i] = uint8_t(row[i] - (i >= 3 ? row[i - 3] : 0));
      return;
    case PngFilter::Up:
      for (size_t i = 0; i < n; ++i) f[i] = uint8_t(row[i] - prev[i]);
      return;
    case PngFilter::Paeth:
      for (size_t i = 0; i < n; ++i) {
        const int a = i >= 3 ? row[i - 3] : 0, c = i >= 3 ? prev[i - 3] : 0;
        f[i] = uint8_t(row[i] - paeth(a, prev[i], c));
      }
      return;
    case PngFilter::Adaptive:
      break;
  }
  // Adaptive: try each filter into a scratch row and keep the one whose bytes, read as signed,
  // sum to the least absolute value.
  std::vector<uint8_t> scratch(n + 1);
  uint64_t best = UINT64_MAX;
  for (PngFilter candidate : {PngFilter::None, PngFilter::Sub, PngFilter::Up, PngFilter::Paeth}) {
    filterRow(candidate, row, prev, n, scratch.data());
    uint64_t sum = 0;
    for (size_t i = 1; i <= n; ++i) sum += uint64_t(std::abs(int(int8_t(scratch[i]))));
    if (sum < best) best = sum, std::memcpy(out, scratch.data(), n + 1);
  }
}

// One band as raw deflate data (no zlib header): a sync flush ends it on a byte boundary unless
// it is the last, which ends the stream.
std::string deflateBand(const uint8_t* data, size_t size, const PngSettings& s, bool last) {
  z_stream z{};
  if (deflateInit2(&z, std::clamp(s.level, 1, 9), Z_DEFLATED, -15, 8,
                   s.rle ? Z_RLE : Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("zlib could not start a stream (out of memory)");
  std::string out(deflateBound(&z, uLong(size)) + 64, '\0');  // + the flush marker
  z.next_in = const_cast<Bytef*>(data);
  z.avail_in = uInt(size);
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = uInt(out.size());
  const int result = deflate(&z, last ? Z_FINISH : Z_SYNC_FLUSH);
  const bool ok = (last ? result == Z_STREAM_END : result == Z_OK) && z.avail_in == 0;
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
  if (!ok) throw std::runtime_error("zlib could not compress a band of rows");
  return out;
}

void appendBigEndian(std::string& out, uint32_t v) {
  const char bytes[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
  out.append(bytes, 4);
}

// CRC-32 of a chunk's type and data.
uLong chunkCrc(const char type[4], const void* data, size_t size) {
  uLong crc = crc32(0, reinterpret_cast<const Bytef*>(type), 4);
  if (size > 0) crc = crc32_z(crc, static_cast<const Bytef*>(data), size);  // NULL: restart
  return crc;
}

// A chunk: length, type, data, CRC-32 of type and data (`crc`, or computed here).
void appendChunk(std::string& out, const char type[4], const void* data, size_t size,
                 const uLong* crc = nullptr) {
  appendBigEndian(out, uint32_t(size));
  out.append(type, 4);
  out.append(static_cast<const char*>(data), size);
  appendBigEndian(out, uint32_t(crc ? *crc : chunkCrc(type, data, size)));
}

constexpr size_t kMaxChunk = size_t(1) << 30;  // chunk lengths stop at 2^31 - 1

}  // namespace

const char* toString(PngFilter filter) {
  switch (filter) {
    case PngFilter::None:
      return "none";
    case PngFilter::Sub:
      return "sub";
    case PngFilter::Up:
      return "up";
    case PngFilter::Paeth:
      return "paeth";
    case PngFilter::Adaptive:
      return "adaptive";
  }
  return "?";
}

std::string encodePngRgb8(const uint8_t* rgb, int width, int height, const PngSettings& s) {
  if (width <= 0 || height <= 0) throw std::runtime_error("an empty image");
  const size_t rowBytes = size_t(width) * kBytesPerPixel;
  const size_t lineBytes = rowBytes + 1;  // with the filter byte
  const size_t rowsPerBand = std::max<size_t>(1, kBandBytes / lineBytes);
  const int bands = int((size_t(height) + rowsPerBand - 1) / rowsPerBand);
  const size_t bandCount = size_t(bands);
  std::vector<std::string> deflated(bandCount);
  std::vector<uLong> adler(bandCount);
  std::vector<uLong> crc(bandCount);  // each band's IDAT chunk's, but the last's (its Adler-32)
  std::vector<std::string> errors(bandCount);
  const std::vector<uint8_t> zeros(rowBytes, 0);
#ifdef _OPENMP
  const int threads = s.threads > 0 ? s.threads : omp_get_max_threads();
#pragma omp parallel num_threads(threads)
#endif
  {
    std::vector<uint8_t> filtered;  // this thread's band, filtered (not the whole image)
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
    for (int b = 0; b < bands; ++b) {
      const size_t first = size_t(b) * rowsPerBand;
      const size_t last = std::min(size_t(height), first + rowsPerBand);
      const size_t size = (last - first) * lineBytes;
      try {
        filtered.resize(size);
        for (size_t y = first; y < last; ++y)
          filterRow(s.filter, rgb + y * rowBytes, y > 0 ? rgb + (y - 1) * rowBytes : zeros.data(),
                    rowBytes, &filtered[(y - first) * lineBytes]);
        adler[size_t(b)] = adler32_z(adler32(0, nullptr, 0), filtered.data(), size);
        std::string& d = deflated[size_t(b)];
        d = deflateBand(filtered.data(), size, s, b + 1 == bands);
        // The zlib stream across the IDAT chunks: header (32 KB window, fastest), the bands, and
        // Adler-32 after the last. Each band is one chunk, its CRC computed here on its thread.
        if (b == 0) d.insert(0, "\x78\x01", 2);
        if (b + 1 < bands) crc[size_t(b)] = chunkCrc("IDAT", d.data(), d.size());
      } catch (const std::exception& e) {  // not out of an OpenMP region
        errors[size_t(b)] = e.what();
      }
    }
  }
  for (const std::string& e : errors)
    if (!e.empty()) throw std::runtime_error(e);

  uLong sum = adler[0];
  for (int b = 1; b < bands; ++b) {
    const size_t rows = std::min(size_t(height) - size_t(b) * rowsPerBand, rowsPerBand);
    sum = adler32_combine(sum, adler[size_t(b)], z_off_t(rows * lineBytes));
  }
  size_t total = 8 + 25 + 12 + 2 + 4 + bandCount * 12;
  for (const std::string& d : deflated) total += d.size();
  std::string out;
  out.reserve(total);
  out.append("\x89PNG\r\n\x1a\n", 8);
  uint8_t header[13] = {};
  for (int i = 0; i < 4; ++i) {
    header[i] = uint8_t(uint32_t(width) >> (24 - 8 * i));
    header[4 + i] = uint8_t(uint32_t(height) >> (24 - 8 * i));
  }
  header[8] = 8;                                    // bits per channel
  header[9] = 2;                                    // colour type: RGB
  appendChunk(out, "IHDR", header, sizeof header);  // deflate, adaptive filtering, no interlace
  std::string& tail = deflated.back();
  for (int shift = 24; shift >= 0; shift -= 8) tail.push_back(char(uint8_t(sum >> shift)));
  for (size_t b = 0; b < bandCount; ++b) {
    const std::string& d = deflated[b];
    if (d.size() <= kMaxChunk && b + 1 < bandCount) {
      appendChunk(out, "IDAT", d.data(), d.size(), &crc[b]);
      continue;
    }
    for (size_t at = 0; at < d.size(); at += kMaxChunk)  // a band over 1 GB: several chunks
      appendChunk(out, "IDAT", d.data() + at, std::min(kMaxChunk, d.size() - at));
  }
  appendChunk(out, "IEND", nullptr, 0);
  return out;
}

}  // namespace srt
