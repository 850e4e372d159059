#include "base/exr_encode.h"

#include <cstdint>
#include <cstring>

namespace srt {
namespace {

void appendLe32(std::string& out, uint32_t v) {
  const char bytes[4] = {char(v), char(v >> 8), char(v >> 16), char(v >> 24)};
  out.append(bytes, 4);
}

void appendFloat(std::string& out, float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  appendLe32(out, u);
}

// name, type, size, value: one header attribute.
void appendAttribute(std::string& out, const char* name, const char* type,
                     const std::string& value) {
  out.append(name, std::strlen(name) + 1);
  out.append(type, std::strlen(type) + 1);
  appendLe32(out, uint32_t(value.size()));
  out += value;
}

std::string box(int width, int height) {
  std::string v;
  for (int c : {0, 0, width - 1, height - 1}) appendLe32(v, uint32_t(c));
  return v;
}

// A float stored little-endian whatever the host.
void storeLe(char* at, float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const unsigned char bytes[4] = {uint8_t(u), uint8_t(u >> 8), uint8_t(u >> 16), uint8_t(u >> 24)};
  std::memcpy(at, bytes, 4);
}

}  // namespace

std::string encodeUncompressedExr(const Vec3f* pixels, int width, int height) {
  std::string out("\x76\x2f\x31\x01", 4);  // magic
  appendLe32(out, 2);                      // version 2: single-part scanline, short names
  std::string channels;
  for (const char* name : {"B", "G", "R"}) {  // sorted by name, as the format requires
    channels.append(name, 2);
    appendLe32(channels, 2);         // FLOAT
    channels.append("\0\0\0\0", 4);  // pLinear, reserved
    appendLe32(channels, 1);         // x sampling
    appendLe32(channels, 1);         // y sampling
  }
  channels.push_back('\0');
  appendAttribute(out, "channels", "chlist", channels);
  appendAttribute(out, "compression", "compression", std::string(1, '\0'));  // none
  appendAttribute(out, "dataWindow", "box2i", box(width, height));
  appendAttribute(out, "displayWindow", "box2i", box(width, height));
  appendAttribute(out, "lineOrder", "lineOrder", std::string(1, '\0'));  // increasing y
  std::string one, center;
  appendFloat(one, 1.f);
  appendFloat(center, 0.f), appendFloat(center, 0.f);
  appendAttribute(out, "pixelAspectRatio", "float", one);
  appendAttribute(out, "screenWindowCenter", "v2f", center);
  appendAttribute(out, "screenWindowWidth", "float", one);
  out.push_back('\0');  // end of the header

  // The offset table (one chunk per row), then the rows: y, byte count, B, G and R planes.
  const size_t rowBytes = size_t(width) * 12, chunkBytes = 8 + rowBytes;
  const size_t tableAt = out.size(), firstChunk = tableAt + size_t(height) * 8;
  out.resize(firstChunk + size_t(height) * chunkBytes);
  char* file = out.data();
#pragma omp parallel for schedule(static)
  for (int y = 0; y < height; ++y) {
    const uint64_t offset = firstChunk + size_t(y) * chunkBytes;
    for (int b = 0; b < 8; ++b) file[tableAt + size_t(y) * 8 + size_t(b)] = char(offset >> (8 * b));
    char* chunk = file + offset;
    const uint32_t header[2] = {uint32_t(y), uint32_t(rowBytes)};
    for (int i = 0; i < 2; ++i)
      for (int b = 0; b < 4; ++b) chunk[4 * i + b] = char(header[i] >> (8 * b));
    const Vec3f* row = pixels + size_t(y) * size_t(width);
    for (int c = 0; c < 3; ++c) {
      char* plane = chunk + 8 + size_t(c) * size_t(width) * 4;
      for (int x = 0; x < width; ++x) storeLe(plane + size_t(x) * 4, row[x][2 - c]);
    }
  }
  return out;
}

}  // namespace srt
