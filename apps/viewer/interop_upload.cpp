#include "apps/viewer/interop_upload.h"

#include "primitives/common/cuda_check.h"
#include "primitives/gl/cuda_gl_buffer.h"

namespace srt::viewer {

InteropUpload::InteropUpload() : buffer_(std::make_unique<gl::CudaGlBuffer>()) {}
InteropUpload::~InteropUpload() = default;

unsigned InteropUpload::write(const Image& image, cudaStream_t stream) {
  const size_t bytes = image.pixels.size() * sizeof(Vec3f);
  // CUDA only writes it, so the driver need not keep the old contents.
  buffer_->reserve(bytes, cudaGraphicsRegisterFlagsWriteDiscard);
  gl::CudaGlMapping mapping({buffer_.get()}, stream);
  SRT_CUDA_CHECK(cudaMemcpyAsync(mapping.pointer(0), image.pixels.data(), bytes,
                                 cudaMemcpyHostToDevice, stream));
  mapping.unmap();  // orders the copy before the GL upload that follows
  return buffer_->id();
}

}  // namespace srt::viewer
