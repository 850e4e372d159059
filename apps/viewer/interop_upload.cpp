#include "apps/viewer/interop_upload.h"

#include "primitives/common/cuda_check.h"
#include "primitives/gl/cuda_gl_buffer.h"

namespace srt::viewer {

InteropUpload::InteropUpload() : buffer_(std::make_unique<gl::CudaGlBuffer>()) {}
InteropUpload::~InteropUpload() = default;

unsigned InteropUpload::write(const Image& image, cudaStream_t stream) {
  const size_t bytes = image.pixels.size() * sizeof(Vec3f);
  return write(bytes, stream, [&](void* pixels) {
    SRT_CUDA_CHECK(
        cudaMemcpyAsync(pixels, image.pixels.data(), bytes, cudaMemcpyHostToDevice, stream));
  });
}

unsigned InteropUpload::write(size_t bytes, cudaStream_t stream,
                              const std::function<void(void*)>& fill) {
  // CUDA only writes it, so the driver need not keep the old contents.
  buffer_->reserve(bytes, cudaGraphicsRegisterFlagsWriteDiscard);
  gl::CudaGlMapping mapping({buffer_.get()}, stream);
  fill(mapping.pointer(0));
  mapping.unmap();  // orders the CUDA work before the GL upload that follows
  return buffer_->id();
}

}  // namespace srt::viewer
