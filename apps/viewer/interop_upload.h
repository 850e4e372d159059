// The CUDA backend's display path: a GL pixel buffer registered with CUDA once (CUDA-GL interop,
// as pbrt-v4's gpu/cudagl.h does for its display), written by CUDA each frame, then copied into
// the display texture by GL without the image passing through the host. The viewer resolves its
// device-side sum straight into the mapped buffer.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
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
  // The same with the pixels written by `fill` (CUDA work queued on `stream` into the mapped
  // buffer of `bytes`); the unmap orders that work before GL reads the buffer, with no host wait.
  unsigned write(size_t bytes, cudaStream_t stream, const std::function<void(void*)>& fill);

 private:
  std::unique_ptr<gl::CudaGlBuffer> buffer_;
};

}  // namespace srt::viewer
