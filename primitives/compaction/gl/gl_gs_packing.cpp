// Geometry-shader packing, Roger 2007's other baseline: every element is drawn as a point, the
// geometry shader emits the kept ones, and transform feedback writes their indices densely (and
// in input order). The one variant that writes a buffer, as the paper's baseline did.
#include "primitives/compaction/gl/gl_stream_compactor.h"
#include "primitives/gl/gl_context.h"

namespace srt::compaction::gl {
namespace {

class GsPackingCompactor final : public GlStreamCompactor {
 public:
  GsPackingCompactor() { SRT_GL_CHECK(glGenQueries(1, &written_)); }
  ~GsPackingCompactor() override { glDeleteQueries(1, &written_); }

 private:
  Indices computeIndices(Texture& keep, const Layout& kl) override {
    const uint32_t n = kl.count;
    if (feedback_.bytes() < size_t(n) * 4) feedback_ = srt::gl::BufferObject(size_t(n) * 4);
    Program& p = passes_.program("", "", "gs_pack.vert", "gs_pack.geom", {"srcIndex"});
    p.bindTexture("keep", 0, keep);
    p.set("keepLog2w", kl.log2Width);
    p.use();
    SRT_GL_CHECK(glBindVertexArray(passes_.emptyVertexArray()));
    // Nothing is rasterised, but drawing still needs a complete framebuffer (a headless context
    // has no default one).
    SRT_GL_CHECK(glBindFramebuffer(GL_DRAW_FRAMEBUFFER, keep.framebuffer()));
    SRT_GL_CHECK(glEnable(GL_RASTERIZER_DISCARD));
    SRT_GL_CHECK(glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, feedback_.id()));
    SRT_GL_CHECK(glBeginQuery(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN, written_));
    SRT_GL_CHECK(glBeginTransformFeedback(GL_POINTS));
    const GLenum drawError = (glDrawArrays(GL_POINTS, 0, GLsizei(n)), glGetError());
    // End the feedback before reporting, so a failure leaves the context usable.
    glEndTransformFeedback();
    glEndQuery(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN);
    glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, 0);
    glDisable(GL_RASTERIZER_DISCARD);
    if (drawError != GL_NO_ERROR)
      srt::gl::throwGlError(drawError, "glDrawArrays(GL_POINTS) with transform feedback", __FILE__,
                            __LINE__);
    SRT_GL_CHECK((void)0);
    timer_.mark("geometry shader");
    GLuint kept = 0;
    SRT_GL_CHECK(glGetQueryObjectuiv(written_, GL_QUERY_RESULT, &kept));
    // The gather pass reads indices from a texture: copy the feedback buffer into one on the GPU.
    const Layout lo{kept, log2Width_};
    Texture& out = passes_.pool().get("indices", GL_R32UI, lo.width(), std::max(lo.rows(), 1u));
    SRT_GL_CHECK(glBindBuffer(GL_PIXEL_UNPACK_BUFFER, feedback_.id()));
    srt::gl::uploadTexels(out, lo, GL_RED_INTEGER, GL_UNSIGNED_INT, 4, nullptr);
    SRT_GL_CHECK(glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0));
    timer_.mark("to texture");
    return {&out, lo};
  }

  srt::gl::BufferObject feedback_;
  GLuint written_ = 0;
};

}  // namespace

std::unique_ptr<GlCompactor> makeGsPackingCompactor() {
  return std::make_unique<GsPackingCompactor>();
}

}  // namespace srt::compaction::gl
