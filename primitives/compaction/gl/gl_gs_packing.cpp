// Geometry-shader packing, Roger 2007's other baseline: every element is drawn as a point, the
// geometry shader emits the kept ones, and transform feedback writes them densely (and in input
// order). As in the paper the elements themselves are emitted (fields of 4, 8 or 16 bytes, up to
// four, one buffer each); other requests emit indices and the fields follow by gather passes.
#include "primitives/compaction/gl/gl_stream_compactor.h"
#include "primitives/gl/gl_context.h"

namespace srt::compaction::gl {
namespace {

class GsPackingCompactor final : public GlStreamCompactor {
 public:
  explicit GsPackingCompactor(const InteropOptions& o) : GlStreamCompactor(o) {
    SRT_GL_CHECK(glGenQueries(1, &written_));
  }
  ~GsPackingCompactor() override { glDeleteQueries(1, &written_); }

 private:
  uint32_t maxFusedFields() const override { return 4; }
  bool writesBuffers() const override { return true; }
  GLuint outputBuffer(int f) const override { return feedback_[size_t(f)].id(); }
  GLuint indexBuffer() const override { return feedback_[0].id(); }

  void run(uint32_t n, const Emit& emit) override {
    const size_t outputs = emit.fused ? fields().size() : 1;
    std::vector<const char*> varyings{"out0", "out1", "out2", "out3"};
    varyings.resize(outputs);
    if (feedback_.size() < outputs) feedback_.resize(outputs);
    for (size_t k = 0; k < outputs; ++k) {
      const size_t bytes = size_t(n) * (emit.fused ? fields()[k].bytes : 4);
      if (feedback_[k].bytes() < bytes) feedback_[k] = srt::gl::BufferObject(bytes + bytes / 2);
    }
    const std::string code = emit.fragment.empty()
                                 ? "#ifdef SRT_GEOMETRY\nflat out uint out0;\n"
                                   "void emitSource(uint src) { out0 = src; }\n#endif\n"
                                 : emit.fragment;
    Program& p = passes_.program("", code, "gs_pack.vert", "gs_pack.geom", varyings);
    p.bindTexture("keepBytes", kUnitKeep, keepBytes_.id());
    emit.bind(p);
    p.use();
    SRT_GL_CHECK(glBindVertexArray(passes_.emptyVertexArray()));
    // Nothing is rasterised, but drawing still needs a complete framebuffer (a headless context
    // has no default one).
    Texture& dummy = passes_.texture("gs.framebuffer", GL_R8UI, {1, 0});
    SRT_GL_CHECK(glBindFramebuffer(GL_DRAW_FRAMEBUFFER, dummy.framebuffer()));
    SRT_GL_CHECK(glEnable(GL_RASTERIZER_DISCARD));
    for (size_t k = 0; k < outputs; ++k)
      SRT_GL_CHECK(glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, GLuint(k), feedback_[k].id()));
    SRT_GL_CHECK(glBeginQuery(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN, written_));
    SRT_GL_CHECK(glBeginTransformFeedback(GL_POINTS));
    const GLenum drawError = (glDrawArrays(GL_POINTS, 0, GLsizei(n)), glGetError());
    // End the feedback before reporting, so a failure leaves the context usable.
    glEndTransformFeedback();
    glEndQuery(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN);
    for (size_t k = 0; k < outputs; ++k)
      glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, GLuint(k), 0);
    glDisable(GL_RASTERIZER_DISCARD);
    if (drawError != GL_NO_ERROR)
      srt::gl::throwGlError(drawError, "glDrawArrays(GL_POINTS) with transform feedback", __FILE__,
                            __LINE__);
    SRT_GL_CHECK((void)0);
    PassRecord r;
    r.texelBytes = 4;
    r.targets = uint32_t(outputs);
    r.read = n;
    r.readPerKept = emit.readPerKept;
    r.writtenPerKept = emit.fused ? emit.writtenPerKept : 4;
    passes_.record(r);
    passes_.mark("geometry shader");
  }

  uint32_t keptCount() override {
    GLuint kept = 0;
    SRT_GL_CHECK(glGetQueryObjectuiv(written_, GL_QUERY_RESULT, &kept));
    return kept;
  }

  std::vector<srt::gl::BufferObject> feedback_;
  GLuint written_ = 0;
};

}  // namespace

std::unique_ptr<GlCompactor> makeGsPackingCompactor(const InteropOptions& interop) {
  return std::make_unique<GsPackingCompactor>(interop);
}

}  // namespace srt::compaction::gl
