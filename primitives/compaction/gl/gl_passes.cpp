#include "primitives/compaction/gl/gl_passes.h"

#include "primitives/compaction/gl/gl_shaders.h"
#include "primitives/gl/gl_context.h"

namespace srt::compaction::gl {

namespace {
std::string stageSource(const std::string& file, const std::string& defines, const char* stage) {
  return "#version 450 core\n" + defines + "#define " + stage + "\n" +
         std::string(embeddedShader("common.glsl")) + "#line 1\n" +
         std::string(embeddedShader(file));
}
}  // namespace

GlPasses::GlPasses() {
  SRT_GL_CHECK(glCreateVertexArrays(1, &vao_));
}

GlPasses::~GlPasses() {
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

void GlPasses::draw(Program& p, Texture& target, const Layout& out) {
  if (out.count == 0) return;
  SRT_GL_CHECK(glBindFramebuffer(GL_DRAW_FRAMEBUFFER, target.framebuffer()));
  SRT_GL_CHECK(glViewport(0, 0, GLsizei(out.width()), GLsizei(out.rows())));
  p.use();
  SRT_GL_CHECK(glBindVertexArray(vao_));
  SRT_GL_CHECK(glDrawArrays(GL_TRIANGLES, 0, 3));
}

Texture& GlPasses::stream(const std::string& key, const Layout& l) {
  return pool_.get(key, GL_R32UI, l.width(), l.rows());
}

std::vector<Texture*> GlPasses::reduceLevels(Texture& in, const Layout& l, int levels, bool runs,
                                             const std::string& tag) {
  std::vector<Texture*> out{&in};
  Program& p = program("reduce.frag");
  for (int d = 1; d <= levels; ++d) {
    const Layout child = levelLayout(l, d - 1), level = levelLayout(l, d);
    Texture& t = stream(tag + ".level" + std::to_string(d), level);
    p.bindTexture("children", 0, *out.back());
    p.set("childLog2w", child.log2Width);
    p.set("outLog2w", level.log2Width);
    p.set("runs", uint32_t(runs));
    p.set("fullRun", 1u << (d - 1));
    draw(p, t, level);
    out.push_back(&t);
  }
  return out;
}

Texture& GlPasses::scanInclusive(Texture& in, const Layout& l, uint32_t segment, ScanKind kind,
                                 uint32_t parallelism, const std::string& tag) {
  const int logSeg = int(log2u(segment));
  // Reduce levels before the Hillis-Steele part: none (Hillis-Steele), all (Blelloch), or until a
  // level fits the GPU's parallelism (Sengupta 2006, 2.4).
  int top = 0;
  if (kind == ScanKind::Blelloch) top = logSeg;
  if (kind == ScanKind::Sengupta)
    while (top < logSeg && (l.count >> top) > parallelism) ++top;
  std::vector<Texture*> totals = reduceLevels(in, l, top, false, tag);

  const Layout lt = levelLayout(l, top);
  Texture* cur = totals[top];
  Program& hs = program("hs_step.frag");
  int flip = 0;
  for (uint32_t offset = 1; offset < (segment >> top); offset <<= 1) {
    Texture& t = stream(tag + ".hs" + std::to_string(flip ^= 1), lt);
    hs.bindTexture("values", 0, *cur);
    hs.set("log2w", lt.log2Width);
    hs.set("offset", offset);
    hs.set("segMask", (segment >> top) - 1u);
    draw(hs, t, lt);
    cur = &t;
  }
  if (top == 0) return *cur;

  Program& down = program("downsweep.frag");
  bool parentInclusive = true;
  for (int d = top - 1; d >= 0; --d) {
    const Layout ld = levelLayout(l, d), lp = levelLayout(l, d + 1);
    Texture& t = stream(tag + ".down" + std::to_string(d), ld);
    down.bindTexture("parent", 0, *cur);
    down.bindTexture("parentTotals", 1, *totals[d + 1]);
    down.bindTexture("totals", 2, *totals[d]);
    down.set("parentLog2w", lp.log2Width);
    down.set("log2w", ld.log2Width);
    down.set("parentInclusive", uint32_t(parentInclusive));
    down.set("outInclusive", uint32_t(d == 0));
    draw(down, t, ld);
    cur = &t;
    parentInclusive = false;
  }
  return *cur;
}

}  // namespace srt::compaction::gl
