// PLY reader of our own: ASCII and binary (little and big endian). Vertices take x/y/z (any
// numeric type), optional nx/ny/nz and u/v (or s/t, texture_u/texture_v); faces are lists of any
// integer type, fan-triangulated. Every other element and property is skipped. The header is
// checked against the file's size before anything is allocated (ply_header.cpp), every read is
// bounds-checked, and every index is checked against the vertex count.
#include <charconv>
#include <cmath>
#include <cstring>

#include "scenes/loader_internal.h"
#include "scenes/ply_header.h"

namespace srt::detail {
namespace {

using ply::Element;
using ply::Format;
using ply::Header;
using ply::Property;
using ply::Type;

// Tokens of an ASCII body, with the line each is on for messages.
class AsciiReader {
 public:
  AsciiReader(std::string_view body, size_t firstLine)
      : p_(body.data()), end_(p_ + body.size()), line_(firstLine) {}
  std::string where() const { return "line " + std::to_string(line_); }
  size_t remaining() const { return size_t(end_ - p_); }
  // False at the end of the file.
  bool integer(int64_t* v, bool* notInteger) {
    if (!token()) return false;
    const auto [end, ec] = std::from_chars(tok_.data(), tok_.data() + tok_.size(), *v);
    *notInteger = ec != std::errc() || end != tok_.data() + tok_.size();
    return true;
  }
  bool real(double* v, bool* bad) {
    if (!token()) return false;
    const auto [end, ec] = std::from_chars(tok_.data(), tok_.data() + tok_.size(), *v);
    // Out-of-range values (1e400) are infinite, as a float conversion would make them.
    if (ec == std::errc::result_out_of_range) *v = tok_[0] == '-' ? -HUGE_VAL : HUGE_VAL;
    *bad = (ec != std::errc() && ec != std::errc::result_out_of_range) ||
           end != tok_.data() + tok_.size();
    return true;
  }
  std::string token_text() const { return std::string(tok_.substr(0, 40)); }

 private:
  bool token() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\r' || *p_ == '\n'))
      line_ += *p_++ == '\n';
    if (p_ == end_) return false;
    const char* start = p_;
    while (p_ < end_ && *p_ != ' ' && *p_ != '\t' && *p_ != '\r' && *p_ != '\n') ++p_;
    tok_ = std::string_view(start, size_t(p_ - start));
    return true;
  }
  const char* p_;
  const char* end_;
  size_t line_;
  std::string_view tok_;
};

// Values of a binary body in either byte order.
class BinaryReader {
 public:
  BinaryReader(std::string_view body, size_t bodyOffset, bool bigEndian)
      : p_(body.data()),
        begin_(p_),
        end_(p_ + body.size()),
        offset_(bodyOffset),
        swap_(bigEndian) {}
  std::string where() const { return "byte " + std::to_string(offset_ + size_t(p_ - begin_)); }
  size_t remaining() const { return size_t(end_ - p_); }
  bool integer(Type t, int64_t* v) {
    unsigned char b[8];
    if (!raw(t, b)) return false;
    switch (t) {
      case Type::Int8:
        *v = int8_t(b[0]);
        break;
      case Type::UInt8:
        *v = b[0];
        break;
      case Type::Int16:
        *v = as<int16_t>(b);
        break;
      case Type::UInt16:
        *v = as<uint16_t>(b);
        break;
      case Type::Int32:
        *v = as<int32_t>(b);
        break;
      case Type::UInt32:
        *v = as<uint32_t>(b);
        break;
      case Type::Float32:
        *v = int64_t(as<float>(b));
        break;  // not reached: checked integer
      case Type::Float64:
        *v = int64_t(as<double>(b));
        break;
    }
    return true;
  }
  bool real(Type t, double* v) {
    if (t == Type::Float32 || t == Type::Float64) {
      unsigned char b[8];
      if (!raw(t, b)) return false;
      *v = t == Type::Float32 ? double(as<float>(b)) : as<double>(b);
      return true;
    }
    int64_t i = 0;
    if (!integer(t, &i)) return false;
    *v = double(i);
    return true;
  }
  std::string token_text() const { return {}; }  // binary values are never malformed
  bool skip(size_t bytes) {
    if (bytes > remaining()) return false;
    p_ += bytes;
    return true;
  }

 private:
  bool raw(Type t, unsigned char* b) {
    const size_t n = ply::sizeOf(t);
    if (n > remaining()) return false;
    std::memcpy(b, p_, n);
    if (swap_)
      for (size_t i = 0; i < n / 2; ++i) std::swap(b[i], b[n - 1 - i]);
    p_ += n;
    return true;
  }
  template <typename T>
  static T as(const unsigned char* b) {
    T v;
    std::memcpy(&v, b, sizeof(T));
    return v;
  }
  const char* p_;
  const char* begin_;
  const char* end_;
  size_t offset_;
  bool swap_;
};

// Which property of the vertex element feeds which attribute (-1: absent).
struct VertexLayout {
  int pos[3] = {-1, -1, -1}, normal[3] = {-1, -1, -1}, uv[2] = {-1, -1};
};

int firstOf(const Element& e, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (int i = e.property(n); i >= 0) return i;
  return -1;
}

class PlyBody {
 public:
  PlyBody(const std::string& source, const Header& h, LoadContext& ctx)
      : source_(source), header_(h), ctx_(ctx) {}
  Mesh read(std::string_view bytes);

 private:
  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw SceneError(source_ + ": " + where + ": " + what);
  }
  void layout();
  template <typename R>
  void readElements(R& r);
  template <typename R>
  void readElement(R& r, const Element& e, size_t elementIndex, uint64_t i);
  template <typename R>
  double value(R& r, const Element& e, uint64_t i, const Property& p);
  template <typename R>
  int64_t count(R& r, const Element& e, uint64_t i, const Property& p);
  void addFace(uint64_t face, const std::string& where);

  const std::string& source_;
  const Header& header_;
  LoadContext& ctx_;
  int vertexElement_ = -1, faceElement_ = -1, faceIndices_ = -1;
  VertexLayout v_;
  uint64_t vertexCount_ = 0;
  Mesh mesh_;
  double attr_[8] = {};           // the current vertex's x y z nx ny nz u v
  std::vector<int64_t> corners_;  // the current face's vertex indices
  size_t skippedFaces_ = 0;
};

void PlyBody::layout() {
  for (size_t i = 0; i < header_.elements.size(); ++i) {
    if (header_.elements[i].name == "vertex") vertexElement_ = int(i);
    if (header_.elements[i].name == "face") faceElement_ = int(i);
  }
  if (vertexElement_ < 0) throw SceneError(source_ + ": no 'element vertex' in the header");
  const Element& ve = header_.elements[size_t(vertexElement_)];
  const char* axes[3] = {"x", "y", "z"};
  for (int k = 0; k < 3; ++k) {
    v_.pos[k] = ve.property(axes[k]);
    if (v_.pos[k] < 0)
      fail("line " + std::to_string(ve.line),
           "element vertex has no property '" + std::string(axes[k]) + "'");
  }
  v_.normal[0] = ve.property("nx"), v_.normal[1] = ve.property("ny"),
  v_.normal[2] = ve.property("nz");
  if (v_.normal[0] < 0 || v_.normal[1] < 0 || v_.normal[2] < 0)
    v_.normal[0] = v_.normal[1] = v_.normal[2] = -1;
  v_.uv[0] = firstOf(ve, {"u", "s", "texture_u", "texture_s"});
  v_.uv[1] = firstOf(ve, {"v", "t", "texture_v", "texture_t"});
  if (v_.uv[0] < 0 || v_.uv[1] < 0) v_.uv[0] = v_.uv[1] = -1;
  for (int k : {v_.pos[0], v_.pos[1], v_.pos[2], v_.normal[0], v_.normal[1], v_.normal[2], v_.uv[0],
                v_.uv[1]})
    if (k >= 0 && ve.properties[size_t(k)].list)
      fail("line " + std::to_string(ve.line),
           "vertex property '" + ve.properties[size_t(k)].name + "' is a list");
  vertexCount_ = ve.count;
  if (faceElement_ < 0)
    throw SceneError(source_ + ": no 'element face': a point cloud has no surface to render");
  const Element& fe = header_.elements[size_t(faceElement_)];
  faceIndices_ = firstOf(fe, {"vertex_indices", "vertex_index"});
  if (faceIndices_ < 0 || !fe.properties[size_t(faceIndices_)].list ||
      !ply::isInteger(fe.properties[size_t(faceIndices_)].type))
    fail("line " + std::to_string(fe.line),
         "element face needs an integer list property 'vertex_indices'");
}

Mesh PlyBody::read(std::string_view bytes) {
  layout();
  // Sizes were checked against the file in parseHeader, so these reservations are bounded by it.
  mesh_.positions.reserve(size_t(vertexCount_));
  if (v_.normal[0] >= 0) mesh_.normals.reserve(size_t(vertexCount_));
  if (v_.uv[0] >= 0) mesh_.uvs.reserve(size_t(vertexCount_));
  const std::string_view body = bytes.substr(header_.bodyOffset);
  if (header_.format == Format::Ascii) {
    AsciiReader r(body, header_.bodyLine);
    readElements(r);
  } else {
    BinaryReader r(body, header_.bodyOffset, header_.format == Format::BinaryBigEndian);
    readElements(r);
  }
  if (skippedFaces_)
    ctx_.warn(source_ + ": " + std::to_string(skippedFaces_) +
              " faces with fewer than 3 vertices skipped");
  return std::move(mesh_);
}

template <typename R>
void PlyBody::readElements(R& r) {
  for (size_t ei = 0; ei < header_.elements.size(); ++ei) {
    const Element& e = header_.elements[ei];
    if (int(ei) != vertexElement_ && int(ei) != faceElement_ && e.count > 0)
      ctx_.warn(source_ + ": element '" + e.name + "' skipped");
    for (uint64_t i = 0; i < e.count; ++i) readElement(r, e, ei, i);
  }
}

template <typename R>
double PlyBody::value(R& r, const Element& e, uint64_t i, const Property& p) {
  double v = 0.0;
  bool bad = false;
  bool ok;
  if constexpr (std::is_same_v<R, AsciiReader>) {
    if (ply::isInteger(p.type)) {
      int64_t n = 0;
      ok = r.integer(&n, &bad);
      bad |= n < INT32_MIN || n > int64_t(UINT32_MAX);  // no PLY integer type is wider
      v = double(n);
    } else {
      ok = r.real(&v, &bad);
    }
  } else {
    ok = r.real(p.type, &v);
  }
  if (!ok)
    fail(r.where(), "the file ends inside " + e.name + " " + std::to_string(i) + " of " +
                        std::to_string(e.count) + " (truncated file?)");
  if (bad)
    fail(r.where(), e.name + " " + std::to_string(i) + ": property '" + p.name + "' is '" +
                        r.token_text() + "', not " +
                        (ply::isInteger(p.type) ? "an integer" : "a number"));
  return v;
}

template <typename R>
int64_t PlyBody::count(R& r, const Element& e, uint64_t i, const Property& p) {
  int64_t n = 0;
  bool bad = false, ok;
  if constexpr (std::is_same_v<R, AsciiReader>)
    ok = r.integer(&n, &bad);
  else
    ok = r.integer(p.countType, &n);
  if (!ok)
    fail(r.where(), "the file ends inside " + e.name + " " + std::to_string(i) + " of " +
                        std::to_string(e.count) + " (truncated file?)");
  // Each item takes at least one byte (ASCII: a digit and a separator), so a count beyond the
  // bytes left is a lie told before anything is read for it.
  const uint64_t minBytes = std::is_same_v<R, AsciiReader> ? 2 : ply::sizeOf(p.type);
  if (bad || n < 0 || uint64_t(n) > (r.remaining() + 1) / minBytes)
    fail(r.where(), e.name + " " + std::to_string(i) + ": list '" + p.name + "' has count " +
                        (bad ? "'" + r.token_text() + "'" : std::to_string(n)) +
                        (bad || n < 0 ? "" : ", more items than the file holds"));
  return n;
}

template <typename R>
void PlyBody::readElement(R& r, const Element& e, size_t ei, uint64_t i) {
  const bool isVertex = int(ei) == vertexElement_, isFace = int(ei) == faceElement_;
  std::string faceWhere;
  for (size_t pi = 0; pi < e.properties.size(); ++pi) {
    const Property& p = e.properties[pi];
    if (!p.list) {
      const double v = value(r, e, i, p);
      if (isVertex)
        for (int k = 0; k < 8; ++k)
          if ((k < 3 ? v_.pos[k] : k < 6 ? v_.normal[k - 3] : v_.uv[k - 6]) == int(pi))
            attr_[k] = v;
      continue;
    }
    const int64_t n = count(r, e, i, p);
    if (isFace && int(pi) == faceIndices_) {
      faceWhere = r.where();  // the line of the count, or the byte after it
      corners_.clear();
      for (int64_t k = 0; k < n; ++k) corners_.push_back(int64_t(value(r, e, i, p)));
    } else if constexpr (std::is_same_v<R, BinaryReader>) {
      r.skip(size_t(n) * ply::sizeOf(p.type));  // count() checked that these bytes exist
    } else {
      for (int64_t k = 0; k < n; ++k) value(r, e, i, p);
    }
  }
  if (isVertex) {
    mesh_.positions.push_back({float(attr_[0]), float(attr_[1]), float(attr_[2])});
    if (v_.normal[0] >= 0)
      mesh_.normals.push_back({float(attr_[3]), float(attr_[4]), float(attr_[5])});
    if (v_.uv[0] >= 0) mesh_.uvs.push_back({float(attr_[6]), float(attr_[7])});
  }
  if (isFace) addFace(i, faceWhere);
}

void PlyBody::addFace(uint64_t face, const std::string& where) {
  for (int64_t v : corners_)
    if (v < 0 || uint64_t(v) >= vertexCount_)
      fail(where, "face " + std::to_string(face) + " has vertex index " + std::to_string(v) +
                      " but the file has " + std::to_string(vertexCount_) + " vertices");
  if (corners_.size() < 3) {
    ++skippedFaces_;
    return;
  }
  for (size_t k = 1; k + 1 < corners_.size(); ++k) {
    mesh_.indices.insert(mesh_.indices.end(),
                         {uint32_t(corners_[0]), uint32_t(corners_[k]), uint32_t(corners_[k + 1])});
    mesh_.materialIds.push_back(0);
  }
}

}  // namespace

Scene readPly(const std::string& source, std::string_view bytes, LoadContext& ctx) {
  const Header header = ply::parseHeader(source, bytes);
  Mesh mesh = PlyBody(source, header, ctx).read(bytes);
  if (mesh.indices.empty()) throw SceneError(source + ": empty mesh: the PLY file has no faces");
  // Normals that are missing, zero or not finite are replaced by the smooth ones.
  bool badNormal = false;
  for (Vec3f& n : mesh.normals) {
    const float len = length(n);
    if (len > 0.f && std::isfinite(len))
      n = n / len;
    else
      badNormal = true;
  }
  if (badNormal) mesh.normals.clear();
  smoothNormals(mesh);
  mesh.name = source;
  Scene scene;
  scene.name = source;
  Material m;
  m.name = "default";
  scene.materials.push_back(m);
  scene.meshes.push_back(std::move(mesh));
  scene.instances.push_back(Instance{});
  return scene;
}

}  // namespace srt::detail
