// The CUDA backend's display path: a GL pixel buffer registered with CUDA once (CUDA-GL interop,
// as pbrt-v4's gpu/cudagl.h does for its display), written by CUDA each frame, then copied into
// the display texture by GL without the image passing through a GL host upload.
//
// First version: the accumulated mean lives on the host (Renderer::render returns a host image),
// so CUDA copies it host -> mapped buffer; accumulating on the device would remove that copy.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "base/image_io.h"

namespace srt::gl {
class CudaGlBuffer;
}

namespace srt::viewer {

class InteropUpload {
 public:
  InteropUpload();
  ~InteropUpload();
  InteropUpload(const InteropUpload&) = delete;
  InteropUpload& operator=(const InteropUpload&) = delete;

  // Registers the buffer (on first use or when the image grows) and copies `image` into it on
  // `stream`; returns the GL buffer to upload the texture from. Throws CudaError when the GL
  // context cannot be shared with CUDA (a software GL such as Mesa under Xvfb).
  unsigned write(const Image& image, cudaStream_t stream);

 private:
  std::unique_ptr<gl::CudaGlBuffer> buffer_;
};

}  // namespace srt::viewer
