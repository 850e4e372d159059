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

CudaGlMapping::CudaGlMapping(const std::vector<CudaGlBuffer*>& buffers, cudaStream_t stream,
                             const std::vector<cudaGraphicsResource_t>& images)
    : stream_(stream) {
  for (CudaGlBuffer* b : buffers) resources_.push_back(b->resource());
  resources_.insert(resources_.end(), images.begin(), images.end());
  if (resources_.empty()) return;
  SRT_CUDA_CHECK(cudaGraphicsMapResources(int(resources_.size()), resources_.data(), stream_));
  mapped_ = true;
  for (size_t i = 0; i < buffers.size(); ++i) {
    void* p = nullptr;
    size_t size = 0;
    SRT_CUDA_CHECK(cudaGraphicsResourceGetMappedPointer(&p, &size, resources_[i]));
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

cudaGraphicsResource_t CudaGlImage::registered(const Texture& t) {
  unmap();
  if (!resource_ || t.id() != id_ || t.width() != width_ || t.rows() != rows_ ||
      t.format() != format_) {
    release();
    SRT_CUDA_CHECK(cudaGraphicsGLRegisterImage(&resource_, t.id(), GL_TEXTURE_2D,
                                               cudaGraphicsRegisterFlagsReadOnly));
    id_ = t.id();
    width_ = t.width();
    rows_ = t.rows();
    format_ = t.format();
  }
  return resource_;
}

cudaTextureObject_t CudaGlImage::objectOfMapped() {
  cudaArray_t array = nullptr;
  SRT_CUDA_CHECK(cudaGraphicsSubResourceGetMappedArray(&array, resource_, 0, 0));
  if (object_ && array == array_) return object_;
  // The last call's object: its kernel is done (the caller waited for it before this call).
  if (object_) SRT_CUDA_CHECK(cudaDestroyTextureObject(object_));
  object_ = 0;
  array_ = array;
  cudaResourceDesc res{};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  cudaTextureDesc tex{};
  tex.addressMode[0] = tex.addressMode[1] = cudaAddressModeClamp;
  tex.filterMode = cudaFilterModePoint;
  tex.readMode = cudaReadModeElementType;
  tex.normalizedCoords = 0;
  SRT_CUDA_CHECK(cudaCreateTextureObject(&object_, &res, &tex, nullptr));
  return object_;
}

cudaTextureObject_t CudaGlImage::map(const Texture& t, cudaStream_t stream) {
  cudaGraphicsResource_t resource = registered(t);
  stream_ = stream;
  SRT_CUDA_CHECK(cudaGraphicsMapResources(1, &resource, stream_));
  mapped_ = true;
  return objectOfMapped();
}

void CudaGlImage::unmap() {
  if (!mapped_) return;
  mapped_ = false;
  SRT_CUDA_CHECK(cudaGraphicsUnmapResources(1, &resource_, stream_));
}

void CudaGlImage::release() noexcept {
  if (mapped_) cudaGraphicsUnmapResources(1, &resource_, stream_);
  mapped_ = false;
  if (object_) cudaDestroyTextureObject(object_);
  object_ = 0;
  array_ = nullptr;
  if (resource_) cudaGraphicsUnregisterResource(resource_);
  resource_ = nullptr;
  id_ = 0;
}

}  // namespace srt::gl
