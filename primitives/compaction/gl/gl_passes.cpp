#include "primitives/compaction/gl/gl_passes.h"

#include <algorithm>

#include "primitives/compaction/gl/gl_costs.h"
#include "primitives/compaction/gl/gl_shaders.h"
#include "primitives/gl/gl_context.h"

namespace srt::compaction::gl {

namespace {
std::string stageSource(const std::string& file, const std::string& defines, const char* stage) {
  return "#version 450 core\n#define " + std::string(stage) + "\n" + defines + "#line 1 1\n" +
         std::string(embeddedShader("common.glsl")) + "#line 1 2\n" +
         std::string(embeddedShader("sources.glsl")) + "#line 1 3\n" +
         std::string(embeddedShader("blocks.glsl")) + "#line 1 4\n" +
         std::string(embeddedShader(file));
}

bool plainTexture(const Source& s) {
  return s.kind == Source::TextureValues && s.stride == 1 && s.offset == 0 && s.complement == 0 &&
         s.runMask == 0;
}
}  // namespace

Source Source::fromTexture(const Texture& t, uint32_t log2w, uint32_t count, uint64_t maxValue) {
  Source s;
  s.kind = TextureValues;
  s.texture = &t;
  s.log2w = log2w;
  s.count = count;
  s.maxValue = maxValue;
  return s;
}

std::string Source::defines() const {
  return "#define SRC_KIND " + std::to_string(int(kind)) + "\n";
}

void Source::bind(Program& p) const {
  p.set("srcCount", count);
  switch (kind) {
    case TextureValues:
      p.bindTexture("srcTex", kUnitSource, *texture);
      p.set("srcLog2w", log2w);
      p.set("srcStride", stride);
      p.set("srcOffset", offset);
      p.set("srcComplement", complement);
      p.set("srcRunMask", runMask);
      return;
    case EmptyBytes:
      p.bindTexture("keepBytes", kUnitKeep, keepBytes);
      p.set("keepCount", keepCount);
      return;
    case BlockKept:
      p.set("srcBlockLog2", blockLog2);
      [[fallthrough]];
    case EmptyBits:
    case GroupKept:
      p.bindTexture("bits", kUnitBits, *bits);
      p.set("bitsLog2w", bitsLog2w);
      return;
  }
}

uint64_t Source::bytesFor(uint64_t elements) const {
  switch (kind) {
    case TextureValues:
      return elements * srt::gl::texelBytes(texture->format());
    case EmptyBytes:
      return elements;
    case EmptyBits:
      return (elements + 7) / 8;
    case GroupKept:
      return elements * 16;
    case BlockKept:
      return (elements << blockLog2) / 8;
  }
  return 0;
}

GlPasses::GlPasses() {
  SRT_GL_CHECK(glCreateVertexArrays(1, &vao_));
}

GlPasses::~GlPasses() {
  for (const auto& [n, fbo] : framebuffers_) glDeleteFramebuffers(1, &fbo);
  if (vao_) glDeleteVertexArrays(1, &vao_);
}

Program& GlPasses::program(const std::string& frag, const std::string& defines,
                           const std::string& vert, const std::string& geom,
                           const std::vector<const char*>& feedback) {
  const std::string key = vert + "|" + geom + "|" + frag + "|" + defines;
  auto it = programs_.find(key);
  if (it != programs_.end()) return it->second;
  std::vector<Program::Stage> stages{{GL_VERTEX_SHADER, stageSource(vert, defines, "SRT_VERTEX")}};
  if (!geom.empty())
    stages.push_back({GL_GEOMETRY_SHADER, stageSource(geom, defines, "SRT_GEOMETRY")});
  if (!frag.empty())
    stages.push_back({GL_FRAGMENT_SHADER, stageSource(frag, defines, "SRT_FRAGMENT")});
  const std::string name = frag.empty() ? vert + "+" + geom : frag;
  return programs_.emplace(key, Program(name, stages, feedback)).first->second;
}

void GlPasses::bindTargets(const std::vector<Texture*>& targets, uint32_t width, uint32_t rows) {
  GLuint fbo = 0;
  if (targets.size() == 1) {
    fbo = targets[0]->framebuffer();
  } else {
    GLuint& cached = framebuffers_[targets.size()];
    if (!cached) SRT_GL_CHECK(glCreateFramebuffers(1, &cached));
    fbo = cached;
    std::vector<GLenum> buffers;
    for (size_t i = 0; i < targets.size(); ++i) {
      SRT_GL_CHECK(
          glNamedFramebufferTexture(fbo, GLenum(GL_COLOR_ATTACHMENT0 + i), targets[i]->id(), 0));
      buffers.push_back(GLenum(GL_COLOR_ATTACHMENT0 + i));
    }
    SRT_GL_CHECK(glNamedFramebufferDrawBuffers(fbo, GLsizei(buffers.size()), buffers.data()));
    if (glCheckNamedFramebufferStatus(fbo, GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
      throw srt::gl::GlError("a framebuffer of " + std::to_string(targets.size()) +
                             " render targets is incomplete");
  }
  SRT_GL_CHECK(glBindFramebuffer(GL_DRAW_FRAMEBUFFER, fbo));
  SRT_GL_CHECK(glViewport(0, 0, GLsizei(width), GLsizei(rows)));
}

void GlPasses::draw(Program& p, const std::vector<Texture*>& targets, const Layout& out,
                    uint64_t read) {
  if (out.count == 0) return;
  bindTargets(targets, out.width(), out.rows());
  p.use();
  SRT_GL_CHECK(glBindVertexArray(vao_));
  SRT_GL_CHECK(glDrawArrays(GL_TRIANGLES, 0, 3));
  PassRecord r;
  r.texelBytes = srt::gl::texelBytes(targets[0]->format());
  r.targets = uint32_t(targets.size());
  r.read = read;
  r.fragments = uint64_t(out.width()) * out.rows();  // the triangle covers the viewport
  r.program = p.id();
  for (const Texture* t : targets)
    r.written += uint64_t(out.count) * srt::gl::texelBytes(t->format());
  pending_.push_back(r);
}

Texture& GlPasses::texture(const std::string& key, GLenum format, const Layout& l) {
  return pool_.get(key + "@" + std::to_string(format), format, l.width(), std::max(l.rows(), 1u));
}

void GlPasses::start() {
  timer_.start();
  pending_.clear();
  records_.clear();
}

void GlPasses::mark(const char* step) {
  timer_.mark(step);
  for (PassRecord& r : pending_) {
    r.step = step;
    records_.push_back(std::move(r));
  }
  pending_.clear();
}

void GlPasses::settle(uint32_t kept) {
  for (PassRecord& r : records_) {
    r.read += uint64_t(r.readPerKept) * kept;
    r.written += uint64_t(r.writtenPerKept) * kept;
    if (r.keptPerFragment) r.fragments += (uint64_t(kept) + r.keptPerFragment - 1) / r.keptPerFragment;
    r.readPerKept = r.writtenPerKept = r.keptPerFragment = 0;
  }
}

std::vector<Source> GlPasses::reduceLevels(const Source& in, int levels, bool runs, uint32_t log2w,
                                           const std::string& tag) {
  std::vector<Source> out{in};
  for (int d = 1; d <= levels; ++d) {
    const Source child = out.back();
    const Layout level{(child.count + 1) / 2, log2w};
    const uint64_t maxValue = runs ? (1ull << d) : child.maxValue * 2;
    Texture& t = texture(tag + ".level" + std::to_string(d), srt::gl::uintFormat(maxValue), level);
    Program& p = program("reduce.frag", child.defines());
    child.bind(p);
    p.set("outLog2w", log2w);
    p.set("runs", uint32_t(runs));
    p.set("fullRun", 1u << (d - 1));
    draw(p, t, level, child.bytesFor(2ull * level.count));
    out.push_back(Source::fromTexture(t, log2w, level.count, maxValue));
  }
  return out;
}

Texture& GlPasses::scanInclusive(const Source& in, uint32_t segment, ScanKind kind,
                                 uint32_t parallelism, uint32_t radix, uint32_t log2w,
                                 const std::string& tag) {
  const int logSeg = int(log2u(segment));
  const uint64_t maxTotal = in.maxValue * std::min(segment, std::max(in.count, 1u));
  // Reduce levels before the Hillis-Steele part: none (Hillis-Steele), all (Blelloch), or until a
  // level fits the GPU's parallelism (Sengupta 2006, 2.4).
  int top = 0;
  if (kind == ScanKind::Blelloch) top = logSeg;
  if (kind == ScanKind::Sengupta)
    while (top < logSeg && ((in.count - 1) >> top) + 1 > parallelism) ++top;
  const std::vector<Source> totals = reduceLevels(in, top, false, log2w, tag);

  Source cur = totals[top];
  const uint32_t segTop = std::max(segment >> top, 1u);
  const Layout lt{cur.count, log2w};
  int flip = 0;
  // At least one pass: a source computed where it is read becomes a texture here.
  for (uint32_t offset = 1; offset < segTop || !plainTexture(cur); offset *= radix) {
    const uint64_t maxValue = std::min(cur.maxValue * radix, maxTotal);
    Texture& t =
        texture(tag + ".hs" + std::to_string(flip ^= 1), srt::gl::uintFormat(maxValue), lt);
    Program& hs = program("hs_step.frag", cur.defines());
    cur.bind(hs);
    hs.set("log2w", log2w);
    hs.set("offset", offset < segTop ? offset : segTop);  // past the segment: a copy
    hs.set("segMask", segTop - 1u);
    hs.set("radix", radix);
    draw(hs, t, lt, cur.bytesFor(uint64_t(offset < segTop ? radix : 1) * lt.count));
    lastPass().ops = costs::hillisSteeleStep(cur.kind, offset < segTop ? radix : 1);
    cur = Source::fromTexture(t, log2w, lt.count, offset < segTop ? maxValue : cur.maxValue);
  }
  if (top == 0) return const_cast<Texture&>(*cur.texture);

  bool parentInclusive = true;
  for (int d = top - 1; d >= 0; --d) {
    const Layout ld{totals[d].count, log2w};
    Texture& t = texture(tag + ".down" + std::to_string(d), srt::gl::uintFormat(maxTotal), ld);
    Program& down = program("downsweep.frag", totals[d].defines());
    totals[d].bind(down);
    down.bindTexture("parent", 0, *cur.texture);
    down.bindTexture("parentTotals", 1, *totals[d + 1].texture);
    down.set("parentLog2w", log2w);
    down.set("log2w", log2w);
    down.set("parentInclusive", uint32_t(parentInclusive));
    down.set("outInclusive", uint32_t(d == 0));
    const uint64_t parents = (uint64_t(ld.count) + 1) / 2;
    draw(down, t, ld,
         cur.bytesFor(parents) + totals[d + 1].bytesFor(parents) + totals[d].bytesFor(ld.count));
    cur = Source::fromTexture(t, log2w, ld.count, maxTotal);
    parentInclusive = false;
  }
  return const_cast<Texture&>(*cur.texture);
}

}  // namespace srt::compaction::gl
