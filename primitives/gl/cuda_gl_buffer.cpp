#include "primitives/gl/cuda_gl_buffer.h"

#include "primitives/common/cuda_check.h"

namespace srt::gl {

void CudaGlBuffer::reserve(size_t bytes, unsigned registerFlags) {
  if (resource_ && buffer_.bytes() >= bytes) return;
  release();
  // Half again as much, so a stream that grows a little at a time re-registers rarely.
  const size_t rounded = ((bytes + bytes / 2 + 4095) / 4096) * 4096;
  buffer_ = BufferObject(rounded, GL_DYNAMIC_COPY);
  SRT_CUDA_CHECK(cudaGraphicsGLRegisterBuffer(&resource_, buffer_.id(), registerFlags));
}

void CudaGlBuffer::release() noexcept {
  if (resource_) cudaGraphicsUnregisterResource(resource_);
  resource_ = nullptr;
  buffer_ = BufferObject();
}

CudaGlMapping::CudaGlMapping(const std::vector<CudaGlBuffer*>& buffers, cudaStream_t stream)
    : stream_(stream) {
  for (CudaGlBuffer* b : buffers) resources_.push_back(b->resource());
  if (resources_.empty()) return;
  SRT_CUDA_CHECK(cudaGraphicsMapResources(int(resources_.size()), resources_.data(), stream_));
  mapped_ = true;
  for (cudaGraphicsResource_t r : resources_) {
    void* p = nullptr;
    size_t size = 0;
    SRT_CUDA_CHECK(cudaGraphicsResourceGetMappedPointer(&p, &size, r));
    pointers_.push_back(p);
  }
}

void CudaGlMapping::unmap() {
  if (!mapped_) return;
  mapped_ = false;
  SRT_CUDA_CHECK(cudaGraphicsUnmapResources(int(resources_.size()), resources_.data(), stream_));
}

CudaGlMapping::~CudaGlMapping() {
  if (mapped_) cudaGraphicsUnmapResources(int(resources_.size()), resources_.data(), stream_);
}

}  // namespace srt::gl
