// CUDA-GL interop for the GL compactors on CUDA memory: GL buffers registered with CUDA once and
// re-registered only when a request needs more room, mapped while CUDA uses them (pbrt-v4's
// gpu/cudagl.h does the same for its display PBO).
#pragma once

#include <epoxy/gl.h>
// After epoxy: cuda_gl_interop.h includes GL/gl.h, which epoxy's guards then skip.
#include <cuda_gl_interop.h>
#include <cuda_runtime_api.h>

#include <vector>

#include "primitives/gl/gl_objects.h"

namespace srt::gl {

class CudaGlBuffer {
 public:
  CudaGlBuffer() = default;
  ~CudaGlBuffer() { release(); }
  CudaGlBuffer(const CudaGlBuffer&) = delete;
  CudaGlBuffer& operator=(const CudaGlBuffer&) = delete;

  // Room for `bytes`; grows by re-creating and re-registering (rounded up, so growth is rare).
  void reserve(size_t bytes, unsigned registerFlags = cudaGraphicsRegisterFlagsNone);
  GLuint id() const { return buffer_.id(); }
  size_t bytes() const { return buffer_.bytes(); }
  cudaGraphicsResource_t resource() const { return resource_; }

 private:
  void release() noexcept;
  BufferObject buffer_;
  cudaGraphicsResource_t resource_ = nullptr;
};

// Maps buffers for CUDA on `stream` for the lifetime of the object. Unmapping orders the CUDA
// work issued before it ahead of the GL commands issued after it (and mapping the reverse).
class CudaGlMapping {
 public:
  // `images` (registered textures, CudaGlImage::registered) are mapped in the same call: one map
  // and one unmap for everything a hand-off needs, as each costs the host a driver round trip.
  CudaGlMapping(const std::vector<CudaGlBuffer*>& buffers, cudaStream_t stream,
                const std::vector<cudaGraphicsResource_t>& images = {});
  ~CudaGlMapping();  // unmaps if unmap() was not called; never throws
  CudaGlMapping(const CudaGlMapping&) = delete;
  CudaGlMapping& operator=(const CudaGlMapping&) = delete;
  void* pointer(size_t i) const { return pointers_[i]; }
  // A mapping held across calls is unmapped on the stream whose work must precede GL's.
  void setStream(cudaStream_t stream) { stream_ = stream; }
  void unmap();

 private:
  std::vector<cudaGraphicsResource_t> resources_;
  std::vector<void*> pointers_;
  cudaStream_t stream_;
  bool mapped_ = false;
};

// A GL texture registered with CUDA (read-only), read by a CUDA kernel through a texture object
// while mapped: how the gather reads GL's output without GL copying it into a buffer first.
// Registered again only when the texture changes (another name, size or format).
class CudaGlImage {
 public:
  CudaGlImage() = default;
  ~CudaGlImage() { release(); }
  CudaGlImage(const CudaGlImage&) = delete;
  CudaGlImage& operator=(const CudaGlImage&) = delete;

  // Maps `texture` on `stream` (registering it first when needed) and returns a texture object
  // over it (point sampling, unnormalized coordinates, integer texels as they are). Unmapping
  // orders the CUDA work issued before it ahead of GL's later commands (GL writes it next call).
  cudaTextureObject_t map(const Texture& texture, cudaStream_t stream);
  void unmap();  // never throws when nothing is mapped
  // The same in two steps, for a texture mapped with buffers by one CudaGlMapping: the resource
  // to map (registered first when needed; not mapped here), then, once it is mapped, the texture
  // object over it (kept while the mapped array stays the same).
  cudaGraphicsResource_t registered(const Texture& texture);
  cudaTextureObject_t objectOfMapped();

 private:
  void release() noexcept;
  cudaGraphicsResource_t resource_ = nullptr;
  cudaTextureObject_t object_ = 0;  // kept until the next map: a queued kernel may still read it
  cudaArray_t array_ = nullptr;     // what object_ reads
  cudaStream_t stream_ = nullptr;
  GLuint id_ = 0;
  uint32_t width_ = 0, rows_ = 0;
  GLenum format_ = 0;
  bool mapped_ = false;
};

}  // namespace srt::gl
