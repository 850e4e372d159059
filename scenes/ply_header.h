// The PLY header: format, elements and their properties, checked against the bytes that follow it
// before the body is read (scenes/loader_ply.cpp reads the body).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace srt::detail::ply {

enum class Type : uint8_t { Int8, UInt8, Int16, UInt16, Int32, UInt32, Float32, Float64 };

size_t sizeOf(Type t);
bool isInteger(Type t);
const char* nameOf(Type t);

struct Property {
  std::string name;
  bool list = false;
  Type countType = Type::UInt8;  // lists only
  Type type = Type::Float32;     // the value, or a list's items
};

struct Element {
  std::string name;
  uint64_t count = 0;
  size_t line = 0;  // header line that declared it
  std::vector<Property> properties;
  int property(std::string_view name) const;  // index, or -1
};

enum class Format { Ascii, BinaryLittleEndian, BinaryBigEndian };

struct Header {
  Format format = Format::Ascii;
  std::vector<Element> elements;
  size_t bodyOffset = 0;  // first byte after the end_header line
  size_t bodyLine = 0;    // line number of the body's first line (ASCII messages)
};

// Parses and checks the header of `bytes`: throws SceneError naming `source` and the header line
// when it is malformed, has no end_header, or declares more data than the file holds.
Header parseHeader(const std::string& source, std::string_view bytes);

}  // namespace srt::detail::ply
