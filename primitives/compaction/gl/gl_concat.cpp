#include "primitives/compaction/gl/gl_concat.h"

#include <algorithm>

#include "primitives/compaction/gl/gl_costs.h"
#include "primitives/gl/gl_context.h"

namespace srt::compaction::gl {
namespace {

using Emit = GlStreamCompactor::Emit;

std::string fragmentDefines(const ConcatInput& in, const Emit& emit) {
  return emit.fragment + (in.aligned ? "#define SRT_ALIGNED\n" : "") +
         (in.aligned == 16 ? "#define SRT_WIDE\n" : "") +
         (in.pair && !in.aligned ? "#define SRT_PAIR\n" : "") +
         (in.inlineHeads && emit.quad ? "#define SRT_INLINE_HEADS\n" : "") +
         (emit.bands ? "#define SRT_TWO_ROWS\n" : "");
}

Program& linesProgram(GlPasses& passes, const std::string& defines, Wrap wrap) {
  switch (wrap) {
    case Wrap::DrawTwice:
      return passes.program("concat.frag", defines + "#define SRT_DRAW_TWICE\n", "concat.vert");
    case Wrap::Vertex:
      return passes.program("concat.frag", defines + "#define SRT_VERTEX_LINES\n", "concat.vert");
    case Wrap::Geometry:
      break;
  }
  return passes.program("concat.frag", defines, "concat.vert", "concat.geom");
}

Program& headsProgram(GlPasses& passes, const std::string& defines) {
  return passes.program("concat.frag", defines + "#define SRT_HEADS\n", "concat.vert");
}

void setUp(Program& p, const ConcatInput& in, const Emit& emit) {
  p.bindTexture("blockScan", 0, *in.blockScan);
  p.set("blockLog2w", in.blockLog2w);
  p.set("blockLog2", in.blockLog2);
  p.bindTexture("local", 1, *in.local);
  p.set("localLog2w", in.localLog2w);
  p.set("log2w", emit.layout.log2Width);
  p.set("rows", emit.layout.rows());
  p.set("numBlocks", in.numBlocks);
  emit.bind(p);
  p.use();
}

void drawLines(GlPasses& passes, Program& p, const ConcatInput& in, const Emit& emit) {
  setUp(p, in, emit);
  passes.bindTargets(emit.targets, emit.layout.width(), emit.layout.rows());
  SRT_GL_CHECK(glBindVertexArray(passes.emptyVertexArray()));
  if (in.wrap == Wrap::Vertex) {
    if (emit.bands) SRT_GL_CHECK(glLineWidth(2));
    SRT_GL_CHECK(glDrawArrays(GL_LINES, 0, GLsizei(4 * in.numBlocks)));
    if (emit.bands) SRT_GL_CHECK(glLineWidth(1));
    return;
  }
  for (uint32_t piece = 0; piece < (in.wrap == Wrap::DrawTwice ? 2u : 1u); ++piece) {
    p.set("piece", piece);
    SRT_GL_CHECK(glDrawArrays(GL_LINES, 0, GLsizei(2 * in.numBlocks)));
  }
}

// Points on the texels where a block starts after another's elements (targets bound).
void drawHeads(Program& heads, const ConcatInput& in, const Emit& emit, bool logicOp) {
  setUp(heads, in, emit);
  if (logicOp) {
    SRT_GL_CHECK(glEnable(GL_COLOR_LOGIC_OP));
    SRT_GL_CHECK(glLogicOp(GL_OR));
  }
  SRT_GL_CHECK(glDrawArrays(GL_POINTS, 0, GLsizei(in.numBlocks)));
  if (logicOp) SRT_GL_CHECK(glDisable(GL_COLOR_LOGIC_OP));
}

PassRecord linesRecord(const ConcatInput& in, const Emit& emit, const Program& p) {
  PassRecord r;
  r.texelBytes = srt::gl::texelBytes(emit.targets[0]->format());
  r.targets = uint32_t(emit.targets.size());
  r.lines = true;
  r.read = uint64_t(in.numBlocks) * 2 * srt::gl::texelBytes(in.blockScan->format());
  // A byte of offsets a survivor (a wide texel serves four output texels).
  r.readPerKept =
      (in.aligned == 16 ? 1 : srt::gl::texelBytes(in.local->format()) / 4) + emit.readPerKept;
  r.writtenPerKept = emit.writtenPerKept;
  r.keptPerFragment = emit.quad ? 4 : 1;
  r.primitives = in.numBlocks;
  r.ops =
      costs::concat(emit.quad, in.aligned, emit.fused ? uint32_t(emit.targets.size()) : 0, in.pair);
  r.program = p.id();
  return r;
}

PassRecord headsRecord(const PassRecord& lines, const ConcatInput& in, const Program& heads) {
  PassRecord h = lines;
  h.lines = false;
  h.read = uint64_t(in.numBlocks) *
           (2 * srt::gl::texelBytes(in.blockScan->format()) + 16 * lines.targets);
  h.written = uint64_t(in.numBlocks) * 16 * lines.targets;  // at most: blocks starting in a texel
  h.readPerKept = h.writtenPerKept = h.keptPerFragment = 0;
  h.primitives = 0;  // points without a geometry stage: not priced as lines
  h.fragments =
      uint64_t(in.numBlocks) * 3 / 4;  // blocks starting inside a texel, for random counts
  h.program = heads.id();
  return h;
}

}  // namespace

bool wideLinesWork() {
  static const bool works = [] {
    GLfloat range[2] = {1, 1};
    glGetFloatv(GL_ALIASED_LINE_WIDTH_RANGE, range);
    if (range[1] < 2) return false;
    glLineWidth(2);
    const bool ok = glGetError() == GL_NO_ERROR;
    glLineWidth(1);
    return ok;
  }();
  return works;
}

void concatenate(GlPasses& passes, const ConcatInput& given, const Emit& emit) {
  ConcatInput in = given;
  if (emit.bands) in.wrap = Wrap::Vertex;
  const std::string fragment = fragmentDefines(in, emit);
  Program& p = linesProgram(passes, fragment, in.wrap);
  drawLines(passes, p, in, emit);
  const PassRecord r = linesRecord(in, emit, p);
  passes.record(r);
  if (!emit.quad || in.inlineHeads) return;
  Program& heads = headsProgram(passes, fragment);
  drawHeads(heads, in, emit, true);
  passes.record(headsRecord(r, in, heads));
}

void diagnoseConcatenation(GlPasses& passes, const ConcatInput& given, const Emit& emit,
                           uint32_t lastKept) {
  if (!emit.quad || emit.targets.empty()) return;
  ConcatInput in = given;
  if (emit.bands) in.wrap = Wrap::Vertex;
  const std::string base = fragmentDefines(in, emit);
  const std::string constant = "#define SRT_DIAG_CONST\n", fetch = "#define SRT_DIAG_FETCH\n";
  // The same targets' formats and layout, elsewhere: a first draw that is not into the output.
  Emit scratch = emit;
  for (size_t k = 0; k < scratch.targets.size(); ++k)
    scratch.targets[k] =
        &passes.texture("diag.scratch" + std::to_string(k), emit.targets[k]->format(), emit.layout);
  auto lines = [&](const char* step, const std::string& variant, Wrap wrap, bool counted,
                   const Emit& into) {
    ConcatInput w = in;
    w.wrap = wrap;
    Program& p = linesProgram(passes, base + variant, wrap);
    drawLines(passes, p, w, into);
    PassRecord r = linesRecord(w, into, p);
    if (!counted) r.ops = {};
    passes.record(r);
    passes.mark(step);
  };
  passes.mark("diag: nothing");
  lines("diag: lines, full shader, into a scratch target", "", in.wrap, true, scratch);
  lines("diag: lines, full shader (the output's first draw)", "", in.wrap, true, emit);
  lines("diag: lines, constant without flat inputs", "#define SRT_DIAG_BARE\n", in.wrap, false,
        emit);
  lines("diag: lines, constant", constant, in.wrap, false, emit);
  lines("diag: lines, fetches only", fetch, in.wrap, false, emit);
  lines("diag: lines, full shader", "", in.wrap, true, emit);
  lines("diag: vertex-shader lines, constant", constant, Wrap::Vertex, false, emit);
  lines("diag: vertex-shader lines, full shader", "", Wrap::Vertex, true, emit);
  // The same texels in bands of two rows, each piece a line two pixels wide (half as long), into
  // the scratch target: whether whole 2x2 quads make the lines cheaper (where wide lines exist).
  if (wideLinesWork() && !emit.bands) {
    const std::string twoRows = "#define SRT_TWO_ROWS\n";
    SRT_GL_CHECK(glLineWidth(2));
    lines("diag: two-row lines, constant without flat inputs", twoRows + "#define SRT_DIAG_BARE\n",
          Wrap::Vertex, false, scratch);
    lines("diag: two-row lines, full shader", twoRows, Wrap::Vertex, true, scratch);
    SRT_GL_CHECK(glLineWidth(1));
  }
  // The same pieces as rectangles one texel high (two triangles each), into the scratch target:
  // whether the cost is the line rasteriser or one-row writes.
  if (!emit.bands) {
    Program& p = passes.program("concat.frag", base + "#define SRT_DIAG_RECTS\n", "concat.vert");
    setUp(p, in, scratch);
    passes.bindTargets(scratch.targets, scratch.layout.width(), scratch.layout.rows());
    SRT_GL_CHECK(glBindVertexArray(passes.emptyVertexArray()));
    SRT_GL_CHECK(glDrawArrays(GL_TRIANGLES, 0, GLsizei(12 * in.numBlocks)));
    passes.record(linesRecord(in, scratch, p));
    passes.mark("diag: one-row rectangles, full shader");
  }
  const PassRecord linesPass = linesRecord(in, emit, linesProgram(passes, base, in.wrap));
  for (bool logicOp : {true, false}) {
    if (in.inlineHeads) break;  // the lines write them
    Program& heads = headsProgram(passes, base);
    drawHeads(heads, in, emit, logicOp);
    passes.record(headsRecord(linesPass, in, heads));
    passes.mark(logicOp ? "diag: head points" : "diag: head points, no logic op");
  }
  // The survivors' texels (the last call's count), whole rows: the lines' fragments, no lines.
  const uint64_t keptTexels = lastKept ? (uint64_t(lastKept) + 3) / 4 : emit.layout.count;
  const Layout rows{uint32_t(std::min<uint64_t>(keptTexels, emit.layout.count)),
                    emit.layout.log2Width};
  for (const std::string& variant : {constant, std::string()}) {
    Program& p = passes.program("concat.frag", base + "#define SRT_DIAG_FULLSCREEN\n" + variant);
    setUp(p, in, emit);
    passes.draw(p, emit.targets, rows, linesPass.read);
    passes.lastPass().readPerKept = linesPass.readPerKept;
    if (variant.empty()) passes.lastPass().ops = linesPass.ops;
    passes.mark(variant.empty() ? "diag: full-target pass, full shader"
                                : "diag: full-target pass, constant");
  }
}

}  // namespace srt::compaction::gl
