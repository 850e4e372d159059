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

// Where a chunk's statements go in the whole: the counts of the chunks before it.
struct Offsets {
  size_t v = 0, vt = 0, vn = 0, corners = 0, faces = 0, statements = 0, lines = 0;
};

struct Chunk {
  std::string_view text;
  Offsets count;           // pass 1: what the chunk holds
  Offsets at;              // pass 2: where it goes
  std::string error;       // the first malformed statement (pass 2)
  uint32_t errorLine = 0;  // its line in the chunk
};

bool space(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

// Words of one line.
class Words {
 public:
  Words(const char* p, const char* end) : p_(p), end_(end) {}
  std::string_view next() {
    while (p_ < end_ && space(*p_)) ++p_;
    const char* s = p_;
    while (p_ < end_ && !space(*p_)) ++p_;
    return {s, size_t(p_ - s)};
  }
  std::string_view rest() {  // the rest of the line, trimmed
    while (p_ < end_ && space(*p_)) ++p_;
    const char* e = end_;
    while (e > p_ && space(e[-1])) --e;
    return {p_, size_t(e - p_)};
  }

 private:
  const char* p_;
  const char* end_;
};

template <typename F>
void forEachLine(std::string_view text, F&& f) {
  const char* p = text.data();
  const char* end = p + text.size();
  for (uint32_t line = 1; p < end; ++line) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', size_t(end - p)));
    if (!f(line, Words(p, nl ? nl : end))) return;
    p = nl ? nl + 1 : end;
  }
}

// Pass 1: counts only, so that pass 2 writes every value once, in place.
void countChunk(Chunk& c) {
  Offsets& n = c.count;
  forEachLine(c.text, [&](uint32_t line, Words w) {
    const std::string_view key = w.next();
    if (key == "v")
      ++n.v;
    else if (key == "vt")
      ++n.vt;
    else if (key == "vn")
      ++n.vn;
    else if (key == "g" || key == "o" || key == "usemtl" || key == "mtllib")
      ++n.statements;
    else if (key == "f") {
      ++n.faces;
      while (!w.next().empty()) ++n.corners;
    }
    n.lines = line;
    return true;
  });
  // Lines ended by '\n': the last line of a chunk (all but the last chunk) ends with one.
  if (!c.text.empty() && c.text.back() != '\n') --n.lines;
}

// Pass 2: parses one chunk into the whole at its offsets.
class ChunkParser {
 public:
  ChunkParser(Chunk& c, Data& d) : c_(c), d_(d), at_(c.at) {}
  void run() {
    forEachLine(c_.text, [&](uint32_t line, Words w) {
      if (statement(line, w)) return true;
      c_.errorLine = line;
      return false;
    });
  }

 private:
  bool fail(const std::string& what) {
    c_.error = what;
    return false;
  }
  bool statement(uint32_t line, Words& w);
  bool numbers(Words& w, float* out, int min, int max, std::string_view key);
  bool face(uint32_t line, Words& w);
  bool index(std::string_view tok, size_t& at, size_t count, int32_t* out);

  Chunk& c_;
  Data& d_;
  Offsets at_;  // the next free slot of each array
};

bool ChunkParser::numbers(Words& w, float* out, int min, int max, std::string_view key) {
  int n = 0;
  for (std::string_view tok = w.next(); !tok.empty() && n < max; tok = w.next()) {
    const char* s = tok.data();
    if (*s == '+') ++s;
    float v = 0.f;
    const auto [end, ec] = std::from_chars(s, tok.data() + tok.size(), v);
    if (ec != std::errc() || end != tok.data() + tok.size())
      return fail("'" + std::string(tok.substr(0, 40)) + "' is not a number" +
                  (ec == std::errc::result_out_of_range ? " in float range" : ""));
    out[n++] = v;
  }
  if (n < min)
    return fail("'" + std::string(key) + "' needs " + (min == 3 ? "three numbers" : "a number"));
  return true;
}

bool ChunkParser::index(std::string_view tok, size_t& at, size_t count, int32_t* out) {
  int64_t i = 0;
  const auto [end, ec] = std::from_chars(tok.data() + at, tok.data() + tok.size(), i);
  if (ec != std::errc() || i == 0 || i > INT32_MAX || i < -int64_t(INT32_MAX))
    return fail("face corner '" + std::string(tok.substr(0, 40)) + "' has " +
                (ec != std::errc() ? "a malformed index"
                 : i == 0          ? "index 0 (OBJ counts from 1)"
                                   : "an index out of range"));
  at = size_t(end - tok.data());
  // Negative: counted back from the vertices read so far, in the whole file.
  *out = i > 0 ? int32_t(i - 1) : int32_t(int64_t(count) + i);
  return true;
}

bool ChunkParser::face(uint32_t line, Words& w) {
  Face& f = d_.faces[at_.faces++];
  f.firstCorner = uint32_t(at_.corners);
  f.statement = uint32_t(at_.statements);
  f.line = line;
  for (std::string_view tok = w.next(); !tok.empty(); tok = w.next()) {
    Corner c{kAbsent, kAbsent, kAbsent};
    size_t at = 0;
    if (!index(tok, at, at_.v, &c.v)) return false;
    if (at < tok.size() && tok[at] == '/') {
      ++at;
      if (at < tok.size() && tok[at] != '/' && !index(tok, at, at_.vt, &c.vt)) return false;
      if (at < tok.size() && tok[at] == '/') {
        ++at;
        if (!index(tok, at, at_.vn, &c.vn)) return false;
      }
    }
    if (at != tok.size())
      return fail("face corner '" + std::string(tok.substr(0, 40)) + "' is malformed");
    d_.corners[at_.corners++] = c;
  }
  f.corners = uint32_t(at_.corners - f.firstCorner);
  return true;
}

bool ChunkParser::statement(uint32_t line, Words& w) {
  const std::string_view key = w.next();
  float v[3] = {0.f, 0.f, 0.f};
  if (key == "v" || key == "vn") {
    if (!numbers(w, v, 3, 3, key)) return false;
    float* to = key == "v" ? &d_.positions[3 * at_.v++] : &d_.normals[3 * at_.vn++];
    to[0] = v[0], to[1] = v[1], to[2] = v[2];
  } else if (key == "vt") {
    if (!numbers(w, v, 1, 2, key)) return false;
    d_.texcoords[2 * at_.vt] = v[0], d_.texcoords[2 * at_.vt + 1] = v[1];
    ++at_.vt;
  } else if (key == "f") {
    return face(line, w);
  } else if (key == "g" || key == "o" || key == "usemtl" || key == "mtllib") {
    Statement& s = d_.statements[at_.statements++];
    s.line = line;
    if (key == "g") {  // several names make one, joined by single spaces
      s.kind = Statement::Group;
      for (std::string_view name = w.next(); !name.empty(); name = w.next())
        s.text += (s.text.empty() ? "" : " ") + std::string(name);
    } else if (key == "usemtl") {
      s.kind = Statement::UseMtl;
      s.text = std::string(w.next());
    } else {
      s.kind = key == "o" ? Statement::Object : Statement::MtlLib;
      s.text = std::string(w.rest());
    }
  }
  // Anything else (comments, s, l, p, curves, unknown keywords) carries no surface.
  return true;
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
  for (long i = 0; i < long(chunks.size()); ++i) countChunk(chunks[size_t(i)]);
  Offsets total;
  for (Chunk& c : chunks) {
    c.at = total;
    total.v += c.count.v, total.vt += c.count.vt, total.vn += c.count.vn;
    total.corners += c.count.corners, total.faces += c.count.faces;
    total.statements += c.count.statements, total.lines += c.count.lines;
  }
  if (total.v > INT32_MAX || total.corners > UINT32_MAX || total.faces > UINT32_MAX)
    throw SceneError(source + ": more than 2^31 vertices or 2^32 faces");
  // Every array sized once: each line's value is written in place by pass 2.
  Data d;
  d.positions.resize(3 * total.v), d.texcoords.resize(2 * total.vt), d.normals.resize(3 * total.vn);
  d.corners.resize(total.corners), d.faces.resize(total.faces);
  d.statements.resize(total.statements);
#pragma omp parallel for schedule(dynamic, 1)
  for (long i = 0; i < long(chunks.size()); ++i) ChunkParser(chunks[size_t(i)], d).run();
  for (const Chunk& c : chunks)  // the first error in the file
    if (!c.error.empty())
      throw SceneError(source + ":" + std::to_string(c.at.lines + c.errorLine) + ": " + c.error);
  for (const Chunk& c : chunks) {  // lines counted from the chunk's start become file lines
    for (size_t k = 0; k < c.count.faces; ++k) d.faces[c.at.faces + k].line += uint32_t(c.at.lines);
    for (size_t k = 0; k < c.count.statements; ++k)
      d.statements[c.at.statements + k].line += uint32_t(c.at.lines);
  }
  return d;
}

}  // namespace srt::detail::obj
