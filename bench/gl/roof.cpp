#include "bench/gl/roof.h"

#include <algorithm>
#include <stdexcept>

#include "primitives/gl/gl_context.h"
#include "primitives/gl/gl_objects.h"

namespace srt::bench {
namespace {

using srt::gl::Program;
using srt::gl::Texture;

struct Format {
  const char* name;
  GLenum internal;
  uint32_t channels, bytes;
};
const Format kFormats[] = {{"R8UI", GL_R8UI, 1, 1},         {"R16UI", GL_R16UI, 1, 2},
                           {"R32UI", GL_R32UI, 1, 4},       {"RGBA8UI", GL_RGBA8UI, 4, 4},
                           {"RG32UI", GL_RG32UI, 2, 8},     {"RGBA16UI", GL_RGBA16UI, 4, 8},
                           {"RGBA32UI", GL_RGBA32UI, 4, 16}};

const char* typeOf(const Format& f) {
  return f.channels == 4 ? "uvec4" : f.channels == 2 ? "uvec2" : "uint";
}
const char* swizzleOf(const Format& f) {
  return f.channels == 4 ? "" : f.channels == 2 ? ".xy" : ".x";
}

// Fragment shader of a copy line: `mode` read (fetch, never write: every fragment discards on
// data that never matches), write (no fetch) or rw, into `targets` render targets.
std::string copyShader(const Format& f, const std::string& mode, uint32_t targets) {
  std::string s = "#version 450 core\n";
  for (uint32_t k = 0; k < targets; ++k) {
    const std::string i = std::to_string(k);
    s += "layout(location = " + i + ") out " + typeOf(f) + " o" + i + ";\n";
    if (mode != "write") s += "uniform usampler2D src" + i + ";\n";
  }
  s += "void main() {\n  ivec2 p = ivec2(gl_FragCoord.xy);\n";
  for (uint32_t k = 0; k < targets; ++k) {
    const std::string i = std::to_string(k);
    if (mode == "write")
      s += "  o" + i + " = " + typeOf(f) + "(uint(p.y * 65536 + p.x + " + i + "));\n";
    else if (mode == "read")
      s += "  uvec4 v" + i + " = texelFetch(src" + i + ", p, 0);\n  if (v" + i +
           ".x != 0xdeadbeefu) discard;\n  o" + i + " = v" + i + swizzleOf(f) + ";\n";
    else
      s += "  o" + i + " = texelFetch(src" + i + ", p, 0)" + swizzleOf(f) + " + 1u;\n";
  }
  return s + "}\n";
}

const char* kFullscreenVert = R"(#version 450 core
void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
})";

// Lines of `len` texels along rows (len divides the width): the concatenation's rasterisation.
const char* kLinesVert = R"(#version 450 core
uniform uint log2w, rows, len;
void main() {
  uint start = uint(gl_VertexID >> 1) * len + uint(gl_VertexID & 1) * len;
  uint row = uint(gl_VertexID >> 1) * len >> log2w;
  float x = float(start - (row << log2w)) + 0.25;
  gl_Position = vec4(2.0 * x / float(1u << log2w) - 1.0,
                     2.0 * (float(row) + 0.5) / float(rows) - 1.0, 0.0, 1.0);
})";

// The final pass's data path: an index from a texture, then the value it names from a buffer.
const char* kGatherFrag = R"(#version 450 core
layout(location = 0) out uint o0;
uniform usampler2D src0;
uniform usamplerBuffer values;
void main() {
  uint i = texelFetch(src0, ivec2(gl_FragCoord.xy), 0).x;
  o0 = texelFetch(values, int(i)).x;
})";

const char* kComputeCopy = R"(#version 450 core
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer A { uvec4 a[]; };
layout(std430, binding = 1) writeonly buffer B { uvec4 b[]; };
uniform uint n;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < n) b[i] = a[i] + 1u;
})";

class Timer {
 public:
  Timer() { SRT_GL_CHECK(glGenQueries(1, &q_)); }
  ~Timer() { glDeleteQueries(1, &q_); }
  template <typename F>
  double median(int repeats, F&& f) {
    std::vector<double> v;
    for (int i = -1; i < repeats; ++i) {
      SRT_GL_CHECK(glBeginQuery(GL_TIME_ELAPSED, q_));
      f();
      SRT_GL_CHECK(glEndQuery(GL_TIME_ELAPSED));
      GLuint64 ns = 0;
      SRT_GL_CHECK(glGetQueryObjectui64v(q_, GL_QUERY_RESULT, &ns));
      if (i >= 0) v.push_back(double(ns) * 1e-6);
    }
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  }

 private:
  GLuint q_ = 0;
};

struct Targets {
  std::vector<Texture> src, dst;
  GLuint fbo = 0;
  uint32_t width = 0, rows = 0;
  Targets(const Format& f, uint64_t texels, uint32_t count) {
    const uint32_t log2w = srt::gl::chooseLog2Width(texels, 128);
    width = 1u << log2w;
    rows = uint32_t(std::max<uint64_t>(1, texels >> log2w));
    SRT_GL_CHECK(glCreateFramebuffers(1, &fbo));
    std::vector<GLenum> buffers;
    for (uint32_t k = 0; k < count; ++k) {
      src.emplace_back(f.internal, width, rows);
      dst.emplace_back(f.internal, width, rows);
      const GLuint zero[4] = {0, 0, 0, 0};
      SRT_GL_CHECK(glClearTexImage(src.back().id(), 0,
                                   f.channels == 1   ? GL_RED_INTEGER
                                   : f.channels == 2 ? GL_RG_INTEGER
                                                     : GL_RGBA_INTEGER,
                                   GL_UNSIGNED_INT, zero));
      SRT_GL_CHECK(glNamedFramebufferTexture(fbo, GL_COLOR_ATTACHMENT0 + k, dst.back().id(), 0));
      buffers.push_back(GL_COLOR_ATTACHMENT0 + k);
    }
    SRT_GL_CHECK(glNamedFramebufferDrawBuffers(fbo, GLsizei(count), buffers.data()));
    SRT_GL_CHECK(glBindFramebuffer(GL_DRAW_FRAMEBUFFER, fbo));
    SRT_GL_CHECK(glViewport(0, 0, GLsizei(width), GLsizei(rows)));
  }
  ~Targets() { glDeleteFramebuffers(1, &fbo); }
  void bind(Program& p) {
    for (size_t k = 0; k < src.size(); ++k)
      p.bindTexture(("src" + std::to_string(k)).c_str(), int(k), src[k]);
  }
};

// Makes `p` current over the empty vertex array and starts a line of `mode` in format f.
RoofLine startLine(Program& p, GLuint vao, const std::string& mode, const Format& f,
                   uint64_t fragments) {
  p.use();
  SRT_GL_CHECK(glBindVertexArray(vao));
  RoofLine l;
  l.mode = mode;
  l.format = f.name;
  l.texelBytes = f.bytes;
  l.fragments = fragments;
  return l;
}

RoofLine copyLine(const Format& f, const std::string& mode, uint32_t targets, uint64_t bytes,
                  int repeats, GLuint vao, Timer& timer) {
  const uint64_t texels = std::max<uint64_t>(1, bytes / f.bytes);
  Targets t(f, texels, targets);
  Program p("roof " + mode, {{GL_VERTEX_SHADER, kFullscreenVert},
                             {GL_FRAGMENT_SHADER, copyShader(f, mode, targets)}});
  t.bind(p);
  RoofLine l = startLine(p, vao, mode, f, uint64_t(t.width) * t.rows);
  l.targets = targets;
  const uint64_t moved = l.fragments * f.bytes * targets;
  l.bytesRead = mode == "write" ? 0 : moved;
  l.bytesWritten = mode == "read" ? 0 : moved;
  l.name = mode + " " + (targets > 1 ? std::to_string(targets) + "x " : "") + f.name;
  l.ms = timer.median(repeats, [&] { SRT_GL_CHECK(glDrawArrays(GL_TRIANGLES, 0, 3)); });
  return l;
}

// The concatenation's geometry stage: each line passed through (up to four vertices out, as the
// wrap at row ends allows).
const char* kLinesGeom = R"(#version 450 core
layout(lines) in;
layout(line_strip, max_vertices = 4) out;
void main() {
  for (int e = 0; e < 2; ++e) {
    gl_Position = gl_in[e].gl_Position;
    EmitVertex();
  }
  EndPrimitive();
})";

// Lines of `len` texels; `geometry`: through kLinesGeom ("gslines", whose two lengths give the
// cost of a line beside its fragments' bytes).
RoofLine linesLine(uint64_t bytes, uint32_t len, bool geometry, int repeats, GLuint vao,
                   Timer& timer, const Format& f = kFormats[2]) {
  Targets t(f, std::max<uint64_t>(len, bytes / f.bytes), 1);
  std::vector<Program::Stage> stages{{GL_VERTEX_SHADER, kLinesVert},
                                     {GL_FRAGMENT_SHADER, copyShader(f, "rw", 1)}};
  if (geometry) stages.push_back({GL_GEOMETRY_SHADER, kLinesGeom});
  Program p("roof lines", stages);
  t.bind(p);
  p.set("log2w", uint32_t(__builtin_ctz(t.width)));
  p.set("rows", t.rows);
  p.set("len", len);
  // Only R32UI lines through the geometry stage price a line (gslines); others are for reading.
  const bool priced = geometry && f.bytes == 4;
  RoofLine l = startLine(p, vao, priced ? "gslines" : "lines", f, uint64_t(t.width) * t.rows);
  l.steps = len;
  l.bytesRead = l.bytesWritten = l.fragments * f.bytes;
  l.name = "lines rw " + std::string(f.name) + " (" + std::to_string(len) + " texels each" +
           (geometry ? ", geometry shader)" : ")");
  const GLsizei vertices = GLsizei(l.fragments / len * 2);
  l.ms = timer.median(repeats, [&] { SRT_GL_CHECK(glDrawArrays(GL_LINES, 0, vertices)); });
  return l;
}

RoofLine gatherLine(uint64_t bytes, int repeats, GLuint vao, Timer& timer) {
  const Format& f = kFormats[2];  // R32UI
  Targets t(f, std::max<uint64_t>(1, bytes / 4), 1);
  const uint64_t n = uint64_t(t.width) * t.rows;
  // Indices: the identity, so the values are read in order (the concatenation's common case).
  std::vector<uint32_t> index(n);
  for (uint64_t i = 0; i < n; ++i) index[i] = uint32_t(i);
  SRT_GL_CHECK(glTextureSubImage2D(t.src[0].id(), 0, 0, 0, GLsizei(t.width), GLsizei(t.rows),
                                   GL_RED_INTEGER, GL_UNSIGNED_INT, index.data()));
  srt::gl::BufferObject values(size_t(n) * 4);
  srt::gl::BufferTexture view;
  view.view(GL_R32UI, values.id(), size_t(n) * 4);
  Program p("roof gather",
            {{GL_VERTEX_SHADER, kFullscreenVert}, {GL_FRAGMENT_SHADER, kGatherFrag}});
  t.bind(p);
  p.bindTexture("values", 1, view.id());
  RoofLine l = startLine(p, vao, "gather", f, n);
  l.bytesRead = 2 * n * 4;
  l.bytesWritten = n * 4;
  l.name = "gather R32UI (index, then its value)";
  l.ms = timer.median(repeats, [&] { SRT_GL_CHECK(glDrawArrays(GL_TRIANGLES, 0, 3)); });
  return l;
}

// K operations of one kind per fragment, each fragment writing one R32UI texel: dependent
// integer steps (a shift, an xor, a multiply: three ALU operations), dependent popcount steps (an
// xor, a popcount, an add: the bit op and two ALU) or fetches (and an add) of a 64x64 RGBA8UI
// texture that stays in cache (the offsets and bits the passes fetch are small and local).
std::string opsShader(const std::string& mode, uint32_t steps) {
  std::string s = "#version 450 core\n#pragma optionNV(unroll all)\nlayout(location = 0) out uint o0;\n";
  if (mode == "fetch") s += "uniform usampler2D src0;\n";
  s += "void main() {\n  uint x = uint(gl_FragCoord.x) * 65537u + uint(gl_FragCoord.y);\n";
  s += "  int py = int(gl_FragCoord.y) & 63;\n";
  s += "  for (uint k = 0u; k < " + std::to_string(steps) + "u; ++k) {\n";
  if (mode == "alu") s += "    x = (x ^ (x >> 15u)) * (0x2c1b3c6du + 2u * k);\n";
  if (mode == "bitops") s += "    x += uint(bitCount(x ^ (0x9e3779b9u * (k + 1u))));\n";
  if (mode == "fetch") s += "    x += texelFetch(src0, ivec2(int(k) & 63, py), 0).x;\n";
  return s + "  }\n  o0 = x;\n}\n";
}

RoofLine opsLine(const std::string& mode, uint32_t steps, uint64_t fragments, int repeats,
                 GLuint vao, Timer& timer) {
  const Format& f = kFormats[2];  // R32UI
  Targets t(f, std::max<uint64_t>(1, fragments), 1);
  Texture small(GL_RGBA8UI, 64, 64);
  const GLuint fill[4] = {1, 2, 3, 4};
  SRT_GL_CHECK(glClearTexImage(small.id(), 0, GL_RGBA_INTEGER, GL_UNSIGNED_INT, fill));
  Program p("roof " + mode, {{GL_VERTEX_SHADER, kFullscreenVert},
                             {GL_FRAGMENT_SHADER, opsShader(mode, steps)}});
  if (mode == "fetch") p.bindTexture("src0", 0, small);
  RoofLine l = startLine(p, vao, mode, f, uint64_t(t.width) * t.rows);
  l.steps = steps;
  l.bytesWritten = l.fragments * 4;
  l.name = mode + " x" + std::to_string(steps) + " a fragment";
  l.ms = timer.median(repeats, [&] { SRT_GL_CHECK(glDrawArrays(GL_TRIANGLES, 0, 3)); });
  return l;
}

RoofLine computeLine(uint64_t bytes, int repeats, Timer& timer) {
  const uint32_t n = uint32_t(std::max<uint64_t>(1, bytes / 16));
  srt::gl::BufferObject a(size_t(n) * 16), b(size_t(n) * 16);
  Program p("roof compute", {{GL_COMPUTE_SHADER, kComputeCopy}});
  p.set("n", n);
  p.use();
  SRT_GL_CHECK(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, a.id()));
  SRT_GL_CHECK(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, b.id()));
  RoofLine l;
  l.mode = "compute";
  l.format = "uvec4 SSBO";
  l.texelBytes = 16;
  l.fragments = n;
  l.bytesRead = l.bytesWritten = uint64_t(n) * 16;
  l.name = "compute copy (reference)";
  l.ms = timer.median(repeats, [&] { SRT_GL_CHECK(glDispatchCompute((n + 255) / 256, 1, 1)); });
  SRT_GL_CHECK(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, 0));
  SRT_GL_CHECK(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, 0));
  return l;
}

}  // namespace

std::vector<RoofLine> measureRoof(uint64_t bytes, int repeats) {
  srt::gl::ensureCurrentContext();
  for (GLenum cap : {GL_BLEND, GL_DEPTH_TEST, GL_SCISSOR_TEST, GL_CULL_FACE, GL_RASTERIZER_DISCARD})
    SRT_GL_CHECK(glDisable(cap));
  GLuint vao = 0;
  SRT_GL_CHECK(glCreateVertexArrays(1, &vao));
  Timer timer;
  std::vector<RoofLine> lines;
  RoofLine empty = copyLine(kFormats[2], "rw", 1, 4, repeats, vao, timer);
  empty.mode = "empty";
  empty.name = "empty pass (1 texel)";
  lines.push_back(empty);
  for (const Format& f : kFormats)
    for (const char* mode : {"read", "write", "rw"})
      lines.push_back(copyLine(f, mode, 1, bytes, repeats, vao, timer));
  for (uint32_t targets : {4u, 8u})
    for (const char* mode : {"write", "rw"})
      lines.push_back(copyLine(kFormats[2], mode, targets, bytes, repeats, vao, timer));
  for (const char* mode : {"write", "rw"})
    lines.push_back(copyLine(kFormats[6], mode, 4, bytes, repeats, vao, timer));
  lines.push_back(linesLine(bytes, 128, false, repeats, vao, timer));
  for (uint32_t len : {16u, 128u}) lines.push_back(linesLine(bytes, len, true, repeats, vao, timer));
  // The concatenation's target format (16-byte texels, four survivors each) in lines as long.
  lines.push_back(linesLine(bytes, 16, true, repeats, vao, timer, kFormats[6]));
  lines.push_back(gatherLine(bytes, repeats, vao, timer));
  lines.push_back(computeLine(bytes, repeats, timer));
  // A quarter of the copy lines' fragments: the longest line runs 64 operations on each.
  for (const char* mode : {"alu", "bitops", "fetch"})
    for (uint32_t steps : {16u, 64u})
      lines.push_back(opsLine(mode, steps, std::max<uint64_t>(1, bytes / 16), repeats, vao, timer));
  glDeleteVertexArrays(1, &vao);
  return lines;
}

const RoofLine& RoofModel::lineFor(const compaction::gl::PassRecord& p) const {
  const RoofLine* best = nullptr;
  for (const RoofLine& l : lines_) {
    if (l.mode != "rw" || l.texelBytes != p.texelBytes) continue;
    if (l.targets == p.targets) return l;
    if (l.targets == 1 && !best) best = &l;
  }
  if (best) return *best;
  for (const RoofLine& l : lines_)
    if (l.mode == "rw" && l.format == "R32UI" && l.targets == 1) return l;
  throw std::logic_error("roof: no read+write R32UI line");
}

double RoofModel::emptyPassMs() const {
  for (const RoofLine& l : lines_)
    if (l.mode == "empty") return l.ms;
  return 0;
}

double RoofModel::passMs(const compaction::gl::PassRecord& p) const {
  const double gbs = lineFor(p).gbPerS();
  return emptyPassMs() + (gbs > 0 ? double(p.read + p.written) / (gbs * 1e6) : 0);
}

double RoofModel::opMs(const std::string& mode) const {
  const RoofLine *lo = nullptr, *hi = nullptr;
  for (const RoofLine& l : lines_) {
    if (l.mode != mode) continue;
    if (!lo || l.steps < lo->steps) lo = &l;
    if (!hi || l.steps > hi->steps) hi = &l;
  }
  if (!lo || lo == hi) return 0;
  // Lines: the same fragments in more, shorter lines; the time they add over the lines added.
  if (mode == "gslines")
    return std::max(0.0, lo->ms - hi->ms) /
           (double(lo->fragments) / lo->steps - double(hi->fragments) / hi->steps);
  // The alu line's step is three operations; the bitops line's is counted as its bit op.
  const double ops = double(hi->steps - lo->steps) * hi->fragments * (mode == "alu" ? 3 : 1);
  return std::max(0.0, hi->ms - lo->ms) / ops;
}

namespace {
struct Work {
  double alu, bitOps, fetches, lines;
};
Work workOf(const RoofModel& roof, const compaction::gl::PassRecord& p) {
  const double n = double(p.fragments);
  return {n * p.ops.alu * roof.opMs("alu"), n * p.ops.bitOps * roof.opMs("bitops"),
          n * p.ops.fetches * roof.opMs("fetch"), double(p.primitives) * roof.opMs("gslines")};
}
}  // namespace

double RoofModel::opsMs(const compaction::gl::PassRecord& p) const {
  const Work w = workOf(*this, p);
  const double most = std::max({w.alu, w.bitOps, w.fetches, w.lines});
  return most > 0 ? emptyPassMs() + most : 0;
}

double RoofModel::workMs(const compaction::gl::PassRecord& p) const {
  return std::max(passMs(p), opsMs(p));
}

std::string RoofModel::binding(const compaction::gl::PassRecord& p) const {
  if (opsMs(p) <= passMs(p)) return "bytes";
  const Work w = workOf(*this, p);
  const double most = std::max({w.alu, w.bitOps, w.fetches, w.lines});
  return most == w.alu ? "alu" : most == w.bitOps ? "bitops" : most == w.fetches ? "fetch" : "lines";
}

namespace {
// The algorithm's own passes: not the copies, not diag=concat's decomposition.
bool ownPass(const compaction::gl::PassRecord& p) {
  return p.step != "upload" && p.step != "readback" && p.step.rfind("diag: ", 0) != 0;
}
}  // namespace

double roofMs(const RoofModel& roof, const std::vector<compaction::gl::PassRecord>& passes) {
  double ms = 0;
  for (const auto& p : passes)
    if (ownPass(p)) ms += roof.passMs(p);
  return ms;
}

double workRoofMs(const RoofModel& roof, const std::vector<compaction::gl::PassRecord>& passes) {
  double ms = 0;
  for (const auto& p : passes)
    if (ownPass(p)) ms += roof.workMs(p);
  return ms;
}

}  // namespace srt::bench
