// Parallel OBJ parsing (see obj_parse.h). Each chunk is parsed into its own arrays with relative
// indices resolved against the chunk's own counts and marked; the join adds the counts of the
// chunks before it. Numbers go through std::from_chars: no locale, no overflow.
#include "scenes/obj_parse.h"

#include <array>
#include <charconv>
#include <cstring>
#include <limits>

#include "scenes/loader.h"

namespace srt::detail::obj {
namespace {

constexpr size_t kChunkBytes = size_t(1) << 20;

struct Chunk {
  std::string_view text;
  Data data;
  std::vector<uint8_t> relative;  // per corner: bit 0 v, bit 1 vt, bit 2 vn count back from here
  uint32_t lines = 0;             // line ends in the chunk
  std::string error;              // the first malformed statement, "LINE: what" (local line)
  uint32_t errorLine = 0;
};

bool space(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

class LineParser {
 public:
  LineParser(Chunk& c, const char* p, const char* end) : c_(c), p_(p), end_(end) {}
  // False with c_.error set on a malformed statement.
  bool statement(uint32_t line);

 private:
  void skip() {
    while (p_ < end_ && space(*p_)) ++p_;
  }
  std::string_view word() {
    skip();
    const char* s = p_;
    while (p_ < end_ && !space(*p_)) ++p_;
    return {s, size_t(p_ - s)};
  }
  bool fail(const std::string& what) {
    c_.error = what;
    return false;
  }
  // Reads up to `max` numbers into out; returns how many, or -1 on a malformed one.
  int numbers(float* out, int max);
  bool face();
  bool index(std::string_view tok, size_t& at, int32_t count, int32_t* out, uint8_t* rel,
             uint8_t bit);

  Chunk& c_;
  const char* p_;
  const char* end_;
};

int LineParser::numbers(float* out, int max) {
  int n = 0;
  for (std::string_view tok = word(); !tok.empty(); tok = word()) {
    if (n == max) return n;  // w, or vertex colours: not used
    const char* s = tok.data();
    if (*s == '+') ++s;
    float v = 0.f;
    const auto [end, ec] = std::from_chars(s, tok.data() + tok.size(), v);
    if (ec != std::errc() || end != tok.data() + tok.size()) {
      fail("'" + std::string(tok.substr(0, 40)) + "' is not a number" +
           (ec == std::errc::result_out_of_range ? " in float range" : ""));
      return -1;
    }
    out[n++] = v;
  }
  return n;
}

bool LineParser::index(std::string_view tok, size_t& at, int32_t count, int32_t* out, uint8_t* rel,
                       uint8_t bit) {
  int64_t i = 0;
  const auto [end, ec] = std::from_chars(tok.data() + at, tok.data() + tok.size(), i);
  if (ec != std::errc() || i == 0 || i > INT32_MAX || i < -int64_t(INT32_MAX))
    return fail("face corner '" + std::string(tok.substr(0, 40)) + "' has " +
                (ec != std::errc() ? "a malformed index"
                 : i == 0          ? "index 0 (OBJ counts from 1)"
                                   : "an index out of range"));
  at = size_t(end - tok.data());
  if (i > 0) {
    *out = int32_t(i - 1);
  } else {
    *out = int32_t(count + i);  // relative: from the vertices read so far
    *rel |= bit;
  }
  return true;
}

bool LineParser::face() {
  Data& d = c_.data;
  Face f;
  f.firstCorner = uint32_t(d.corners.size());
  f.statement = uint32_t(d.statements.size());
  const int32_t nv = int32_t(d.positions.size() / 3), nt = int32_t(d.texcoords.size() / 2),
                nn = int32_t(d.normals.size() / 3);
  for (std::string_view tok = word(); !tok.empty(); tok = word()) {
    Corner c{kAbsent, kAbsent, kAbsent};
    uint8_t rel = 0;
    size_t at = 0;
    if (!index(tok, at, nv, &c.v, &rel, 1)) return false;
    if (at < tok.size() && tok[at] == '/') {
      ++at;
      if (at < tok.size() && tok[at] != '/' && !index(tok, at, nt, &c.vt, &rel, 2)) return false;
      if (at < tok.size() && tok[at] == '/') {
        ++at;
        if (!index(tok, at, nn, &c.vn, &rel, 4)) return false;
      }
    }
    if (at != tok.size())
      return fail("face corner '" + std::string(tok.substr(0, 40)) + "' is malformed");
    d.corners.push_back(c);
    c_.relative.push_back(rel);
  }
  f.corners = uint32_t(d.corners.size() - f.firstCorner);
  d.faces.push_back(f);
  return true;
}

bool LineParser::statement(uint32_t line) {
  const std::string_view key = word();
  Data& d = c_.data;
  float v[3] = {0.f, 0.f, 0.f};
  if (key == "v" || key == "vn") {
    const int n = numbers(v, 3);
    if (n < 0) return false;
    if (n < 3) return fail("'" + std::string(key) + "' needs three numbers");
    (key == "v" ? d.positions : d.normals)
        .insert((key == "v" ? d.positions : d.normals).end(), v, v + 3);
  } else if (key == "vt") {
    const int n = numbers(v, 2);
    if (n < 0) return false;
    if (n < 1) return fail("'vt' needs a number");
    d.texcoords.insert(d.texcoords.end(), v, v + 2);
  } else if (key == "f") {
    if (!face()) return false;
    d.faces.back().line = line;
  } else if (key == "g" || key == "o" || key == "usemtl" || key == "mtllib") {
    Statement s;
    s.kind = key == "g"        ? Statement::Group
             : key == "o"      ? Statement::Object
             : key == "usemtl" ? Statement::UseMtl
                               : Statement::MtlLib;
    s.line = line;
    skip();
    const char* e = end_;
    while (e > p_ && space(e[-1])) --e;
    s.text.assign(p_, size_t(e - p_));
    if (s.kind == Statement::Group) {  // several names: one, joined by single spaces
      std::string joined;
      for (std::string_view w = word(); !w.empty(); w = word())
        joined += (joined.empty() ? "" : " ") + std::string(w);
      s.text = joined;
    } else if (s.kind == Statement::UseMtl) {
      s.text = std::string(word());
    }
    d.statements.push_back(std::move(s));
  }
  // Anything else (comments, s, l, p, curves, unknown keywords) carries no surface.
  return true;
}

void parseChunk(Chunk& c) {
  const char* p = c.text.data();
  const char* end = p + c.text.size();
  uint32_t line = 1;
  while (p < end) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', size_t(end - p)));
    const char* lineEnd = nl ? nl : end;
    LineParser parser(c, p, lineEnd);
    if (!parser.statement(line)) {
      c.errorLine = line;
      return;
    }
    p = nl ? nl + 1 : end;
    line += nl != nullptr;
  }
  c.lines = line - 1;
}

template <typename T>
void append(std::vector<T>& to, size_t at, const std::vector<T>& from) {
  if (!from.empty()) std::memcpy(to.data() + at, from.data(), from.size() * sizeof(T));
}

}  // namespace

Data parse(const std::string& source, std::string_view text) {
  if (text.size() > std::numeric_limits<uint32_t>::max())
    throw SceneError(source + ": OBJ files over 4 GB are not read");
  std::vector<Chunk> chunks;
  for (size_t at = 0; at < text.size();) {
    size_t end = std::min(text.size(), at + kChunkBytes);
    if (end < text.size()) {
      const size_t nl = text.find('\n', end);
      end = nl == std::string_view::npos ? text.size() : nl + 1;
    }
    chunks.emplace_back();
    chunks.back().text = text.substr(at, end - at);
    at = end;
  }
#pragma omp parallel for schedule(dynamic, 1)
  for (long i = 0; i < long(chunks.size()); ++i) parseChunk(chunks[size_t(i)]);

  // Join: offsets of each chunk in the whole, then copies with relative indices resolved.
  Data all;
  size_t nv = 0, nt = 0, nn = 0, nc = 0, nf = 0, ns = 0, lines = 0;
  std::vector<std::array<size_t, 7>> base(chunks.size());
  for (size_t i = 0; i < chunks.size(); ++i) {
    const Chunk& c = chunks[i];
    if (!c.error.empty())
      throw SceneError(source + ":" + std::to_string(lines + c.errorLine) + ": " + c.error);
    base[i] = {nv, nt, nn, nc, nf, ns, lines};
    nv += c.data.positions.size(), nt += c.data.texcoords.size(), nn += c.data.normals.size();
    nc += c.data.corners.size(), nf += c.data.faces.size(), ns += c.data.statements.size();
    lines += c.lines;
  }
  if (nv / 3 > INT32_MAX || nc > UINT32_MAX || nf > UINT32_MAX)
    throw SceneError(source + ": more than 2^31 vertices or 2^32 faces");
  all.positions.resize(nv), all.texcoords.resize(nt), all.normals.resize(nn);
  all.corners.resize(nc), all.faces.resize(nf), all.statements.resize(ns);
#pragma omp parallel for schedule(dynamic, 1)
  for (long i = 0; i < long(chunks.size()); ++i) {
    Chunk& c = chunks[size_t(i)];
    const auto& b = base[size_t(i)];
    append(all.positions, b[0], c.data.positions);
    append(all.texcoords, b[1], c.data.texcoords);
    append(all.normals, b[2], c.data.normals);
    const int32_t v0 = int32_t(b[0] / 3), t0 = int32_t(b[1] / 2), n0 = int32_t(b[2] / 3);
    for (size_t k = 0; k < c.data.corners.size(); ++k) {
      Corner x = c.data.corners[k];
      const uint8_t r = c.relative[k];
      if (r & 1) x.v += v0;
      if (r & 2) x.vt += t0;
      if (r & 4) x.vn += n0;
      all.corners[b[3] + k] = x;
    }
    for (size_t k = 0; k < c.data.faces.size(); ++k) {
      Face f = c.data.faces[k];
      f.firstCorner += uint32_t(b[3]), f.line += uint32_t(b[6]), f.statement += uint32_t(b[5]);
      all.faces[b[4] + k] = f;
    }
    for (size_t k = 0; k < c.data.statements.size(); ++k) {
      all.statements[b[5] + k] = std::move(c.data.statements[k]);
      all.statements[b[5] + k].line += uint32_t(b[6]);
    }
  }
  return all;
}

}  // namespace srt::detail::obj
