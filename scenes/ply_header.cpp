// PLY header parsing and the size checks that run before anything is allocated for the body.
#include "scenes/ply_header.h"

#include <charconv>
#include <limits>

#include "scenes/loader.h"

namespace srt::detail::ply {
namespace {

struct TypeName {
  const char* name;
  Type type;
};
// PLY's original names and the sized ones most writers use today.
constexpr TypeName kTypeNames[] = {
    {"char", Type::Int8},      {"int8", Type::Int8},       {"uchar", Type::UInt8},
    {"uint8", Type::UInt8},    {"short", Type::Int16},     {"int16", Type::Int16},
    {"ushort", Type::UInt16},  {"uint16", Type::UInt16},   {"int", Type::Int32},
    {"int32", Type::Int32},    {"uint", Type::UInt32},     {"uint32", Type::UInt32},
    {"float", Type::Float32},  {"float32", Type::Float32}, {"double", Type::Float64},
    {"float64", Type::Float64}};

bool typeNamed(std::string_view name, Type* type) {
  for (const TypeName& t : kTypeNames)
    if (name == t.name) return *type = t.type, true;
  return false;
}

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

// Sums with saturation: a hostile header must not wrap the size estimate around to a small value.
uint64_t addSat(uint64_t a, uint64_t b) {
  return a > std::numeric_limits<uint64_t>::max() - b ? std::numeric_limits<uint64_t>::max()
                                                      : a + b;
}
uint64_t mulSat(uint64_t a, uint64_t b) {
  return b != 0 && a > std::numeric_limits<uint64_t>::max() / b
             ? std::numeric_limits<uint64_t>::max()
             : a * b;
}

class HeaderParser {
 public:
  HeaderParser(const std::string& source, std::string_view bytes)
      : source_(source), bytes_(bytes) {}
  Header parse();

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw SceneError(source_ + ": line " + std::to_string(line_) + ": " + what);
  }
  void parseLine(const std::vector<std::string_view>& w);
  void checkSizes() const;

  const std::string& source_;
  std::string_view bytes_;
  size_t line_ = 0;
  bool sawFormat_ = false;
  Header header_;
};

Header HeaderParser::parse() {
  size_t pos = 0;
  bool ended = false;
  while (pos < bytes_.size()) {
    size_t eol = bytes_.find('\n', pos);
    const size_t next = eol == std::string_view::npos ? bytes_.size() : eol + 1;
    if (eol == std::string_view::npos) eol = bytes_.size();
    std::string_view text = bytes_.substr(pos, eol - pos);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    ++line_;
    pos = next;
    if (line_ == 1) {
      if (text != "ply")
        throw SceneError(source_ + ": not a PLY file (the first line is not 'ply')");
      continue;
    }
    const std::vector<std::string_view> w = words(text);
    if (!w.empty() && w[0] == "end_header") {
      if (w.size() != 1) fail("end_header takes nothing after it");
      ended = true;
      break;
    }
    parseLine(w);
  }
  if (line_ == 0) throw SceneError(source_ + ": empty file (not a PLY file)");
  if (!ended)
    throw SceneError(source_ + ": the header has no end_header line (" + std::to_string(line_) +
                     " lines read)");
  if (!sawFormat_) fail("end_header before any format line");
  header_.bodyOffset = pos;
  header_.bodyLine = line_ + 1;
  checkSizes();
  return std::move(header_);
}

void HeaderParser::parseLine(const std::vector<std::string_view>& w) {
  if (w.empty() || w[0] == "comment" || w[0] == "obj_info") return;
  if (w[0] == "format") {
    if (w.size() != 3) fail("expected 'format ascii|binary_little_endian|binary_big_endian 1.0'");
    if (sawFormat_) fail("a second format line");
    if (w[1] == "ascii")
      header_.format = Format::Ascii;
    else if (w[1] == "binary_little_endian")
      header_.format = Format::BinaryLittleEndian;
    else if (w[1] == "binary_big_endian")
      header_.format = Format::BinaryBigEndian;
    else
      fail("unknown format '" + std::string(w[1]) + "'");
    if (w[2] != "1.0" && w[2] != "1") fail("unsupported PLY version '" + std::string(w[2]) + "'");
    sawFormat_ = true;
  } else if (w[0] == "element") {
    if (w.size() != 3) fail("expected 'element NAME COUNT'");
    Element e;
    e.name = std::string(w[1]);
    e.line = line_;
    const auto [end, ec] = std::from_chars(w[2].data(), w[2].data() + w[2].size(), e.count);
    if (ec != std::errc() || end != w[2].data() + w[2].size())
      fail("element '" + e.name + "' has count '" + std::string(w[2]) +
           "', not a non-negative integer");
    if (e.count > std::numeric_limits<uint32_t>::max())
      fail("element '" + e.name + "' count " + std::string(w[2]) + " is over 2^32 - 1");
    for (const Element& other : header_.elements)
      if (other.name == e.name) fail("a second element '" + e.name + "'");
    header_.elements.push_back(std::move(e));
  } else if (w[0] == "property") {
    if (header_.elements.empty()) fail("a property before any element");
    Element& e = header_.elements.back();
    Property p;
    if (w.size() == 5 && w[1] == "list") {
      p.list = true;
      if (!typeNamed(w[2], &p.countType) || !typeNamed(w[3], &p.type))
        fail("unknown type in 'property list " + std::string(w[2]) + " " + std::string(w[3]) + "'");
      if (!isInteger(p.countType)) fail("a list count must have an integer type");
      p.name = std::string(w[4]);
    } else if (w.size() == 3 && w[1] != "list") {
      if (!typeNamed(w[1], &p.type)) fail("unknown property type '" + std::string(w[1]) + "'");
      p.name = std::string(w[2]);
    } else {
      fail("expected 'property TYPE NAME' or 'property list COUNT_TYPE TYPE NAME'");
    }
    if (e.property(p.name) >= 0)
      fail("element '" + e.name + "' has a second property '" + p.name + "'");
    e.properties.push_back(std::move(p));
  } else {
    fail("unknown header keyword '" + std::string(w[0]) + "'");
  }
}

// The body must hold at least the smallest encoding of every declared element: in binary, each
// value's bytes (an empty list costs its count); in ASCII, one character and one separator per
// value. So a 188-byte file cannot claim 500M vertices and make the reader allocate for them.
void HeaderParser::checkSizes() const {
  const uint64_t body = bytes_.size() - header_.bodyOffset;
  uint64_t need = 0;
  for (const Element& e : header_.elements) {
    if (e.count > 0 && e.properties.empty())
      throw SceneError(source_ + ": line " + std::to_string(e.line) + ": element '" + e.name +
                       "' has " + std::to_string(e.count) + " entries but no properties");
    uint64_t per = 0;
    for (const Property& p : e.properties)
      per += header_.format == Format::Ascii ? 2 : sizeOf(p.list ? p.countType : p.type);
    need = addSat(need, mulSat(per, e.count));
  }
  if (header_.format == Format::Ascii && need > 0) need -= 1;  // the last value needs no separator
  if (need > body) {
    std::string counts;
    for (const Element& e : header_.elements)
      counts += (counts.empty() ? "" : ", ") + std::to_string(e.count) + " " + e.name;
    throw SceneError(source_ + ": the header declares " + counts + ", at least " +
                     std::to_string(need) + " bytes of data, but only " + std::to_string(body) +
                     " bytes follow it (truncated file?)");
  }
}

}  // namespace

size_t sizeOf(Type t) {
  switch (t) {
    case Type::Int8:
    case Type::UInt8:
      return 1;
    case Type::Int16:
    case Type::UInt16:
      return 2;
    case Type::Int32:
    case Type::UInt32:
    case Type::Float32:
      return 4;
    case Type::Float64:
      return 8;
  }
  return 1;
}

bool isInteger(Type t) {
  return t != Type::Float32 && t != Type::Float64;
}

const char* nameOf(Type t) {
  for (const TypeName& n : kTypeNames)
    if (n.type == t) return n.name;
  return "?";
}

int Element::property(std::string_view want) const {
  for (size_t i = 0; i < properties.size(); ++i)
    if (properties[i].name == want) return int(i);
  return -1;
}

Header parseHeader(const std::string& source, std::string_view bytes) {
  return HeaderParser(source, bytes).parse();
}

}  // namespace srt::detail::ply
