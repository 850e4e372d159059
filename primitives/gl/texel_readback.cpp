#include "primitives/gl/texel_readback.h"

#include "primitives/gl/gl_context.h"
#include "primitives/gl/interop_wait.h"

namespace srt::gl {

void copyTexel(const Texture& t, uint32_t log2w, uint32_t index, GLuint packBuffer, void* dst) {
  const GLenum type = t.format() == GL_R8UI    ? GL_UNSIGNED_BYTE
                      : t.format() == GL_R16UI ? GL_UNSIGNED_SHORT
                                               : GL_UNSIGNED_INT;
  SRT_GL_CHECK(glBindBuffer(GL_PIXEL_PACK_BUFFER, packBuffer));
  SRT_GL_CHECK(glGetTextureSubImage(t.id(), 0, GLint(index & ((1u << log2w) - 1)),
                                    GLint(index >> log2w), 0, 1, 1, 1, GL_RED_INTEGER, type, 4,
                                    dst));
  if (packBuffer) SRT_GL_CHECK(glBindBuffer(GL_PIXEL_PACK_BUFFER, 0));
}

void packTexel(const Texture& t, uint32_t log2w, uint32_t index, GLuint buffer) {
  SRT_GL_CHECK(
      glClearNamedBufferSubData(buffer, GL_R32UI, 0, 16, GL_RED_INTEGER, GL_UNSIGNED_INT, nullptr));
  copyTexel(t, log2w, index, buffer, nullptr);
}

void TexelReadback::request(const Texture& t, uint32_t log2w, uint32_t index) {
  constexpr GLbitfield kMap = GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
  if (!buffer_.id()) {
    GLuint id = 0;
    SRT_GL_CHECK(glCreateBuffers(1, &id));
    buffer_ = BufferObject::adopt(id, 16);
    SRT_GL_CHECK(glNamedBufferStorage(id, 16, nullptr, kMap));
    mapped_ = static_cast<const volatile uint32_t*>(glMapNamedBufferRange(id, 0, 16, kMap));
    if (!mapped_) throw GlError("GL texel read-back: glMapNamedBufferRange failed");
  }
  if (fence_) glDeleteSync(fence_);
  fence_ = nullptr;
  packTexel(t, log2w, index, buffer_.id());
  fence_ = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  if (!fence_) throw GlError("GL texel read-back: glFenceSync failed");
}

uint32_t TexelReadback::take(const std::string& what) {
  if (!fence_) throw GlError(what + ": no texel was requested");
  GLsync fence = fence_;
  fence_ = nullptr;
  waitGlFence(fence, what);  // deletes it
  return *mapped_;
}

TexelReadback::~TexelReadback() {
  if (fence_) glDeleteSync(fence_);
}

}  // namespace srt::gl
