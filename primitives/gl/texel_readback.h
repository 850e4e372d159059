// One texel of a GL texture brought to the host without a GL round trip of its own: the copy is
// queued behind the work that computes it, into a persistently mapped buffer, and read once a
// fence after it has signalled. A compaction's count costs the host nothing beyond the wait for
// its passes (a glGetTextureSubImage into host memory after that wait is a second round trip).
#pragma once

#include <epoxy/gl.h>

#include <cstdint>
#include <string>

#include "primitives/gl/gl_objects.h"

namespace srt::gl {

// Texel `index` of `t` (rows of 2^log2w texels; an unsigned integer format of 8, 16 or 32 bits)
// into `dst`: host memory when packBuffer is 0 (GL waits for the texel), else an offset into that
// pixel-pack buffer (queued).
void copyTexel(const Texture& t, uint32_t log2w, uint32_t index, GLuint packBuffer, void* dst);
// Queues the texel into the first 4 bytes of `buffer`, zeroed first so a narrow texel reads as a
// 32-bit value.
void packTexel(const Texture& t, uint32_t log2w, uint32_t index, GLuint buffer);

class TexelReadback {
 public:
  TexelReadback() = default;
  ~TexelReadback();
  TexelReadback(const TexelReadback&) = delete;
  TexelReadback& operator=(const TexelReadback&) = delete;

  // Queues packTexel into a persistently mapped buffer and a fence after it. Replaces a request
  // not taken.
  void request(const Texture& t, uint32_t log2w, uint32_t index);
  bool pending() const { return fence_ != nullptr; }
  // The requested texel, once the fence has signalled (at once after a wait for later GL work);
  // throws GlError naming `what` if it does not within the interop deadline.
  uint32_t take(const std::string& what);

 private:
  BufferObject buffer_;  // deleting it unmaps it
  const volatile uint32_t* mapped_ = nullptr;
  GLsync fence_ = nullptr;
};

}  // namespace srt::gl
