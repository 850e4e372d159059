// Where a request's streams cross into GL and back. Host memory is uploaded into GL buffers and
// read back with glGet*. CUDA memory goes through CUDA-GL interop buffers registered once: the
// keep flags and fields are copied on the request's stream into mapped buffers that GL then reads
// in place (buffer textures), and the outputs are read back into registered pixel-pack buffers
// and copied out on the stream.
#pragma once

#include <memory>
#include <vector>

#include "primitives/compaction/compaction.h"
#include "primitives/gl/cuda_gl_buffer.h"
#include "primitives/gl/gl_objects.h"

namespace srt::compaction::gl {

class StreamBuffers {
 public:
  // Where output f of a compaction lies in GL: a texture holding it row by row, or a buffer.
  struct Output {
    const srt::gl::Texture* texture = nullptr;
    GLuint buffer = 0;
  };

  // Makes room for the request's streams and copies them in; returns the host milliseconds of
  // the copies (uploads, or the CUDA side of the interop).
  double upload(const Request& r);
  GLuint keep() const;
  GLuint field(int f) const;
  // Bytes of room in the keep buffer (a multiple of 16, so it reads as 16-byte texels).
  size_t keepRoom() const;
  // Moves the first `kept` elements of every output into the request's fields, and the count to
  // numKept; returns the host milliseconds of the copies.
  double download(const Request& r, uint32_t kept, const std::vector<Output>& outputs);

 private:
  bool cuda_ = false;
  std::vector<srt::gl::BufferObject> host_;  // keep, then one per field
  std::vector<std::unique_ptr<srt::gl::CudaGlBuffer>> in_, out_;
  uint32_t hostCount_ = 0;  // numKept's source for the asynchronous copy to CUDA memory
};

}  // namespace srt::compaction::gl
