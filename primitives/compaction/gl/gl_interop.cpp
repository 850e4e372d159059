#include "primitives/compaction/gl/gl_interop.h"

#include <chrono>

#include "primitives/gl/gl_context.h"

namespace srt::compaction::gl {
namespace {
using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}
// Room for `bytes` rounded up to whole 16-byte texels.
size_t room(size_t bytes) {
  return (std::max<size_t>(bytes, 16) + 15) / 16 * 16;
}
}  // namespace

GLuint StreamBuffers::keep() const {
  return cuda_ ? in_[0]->id() : host_[0].id();
}
GLuint StreamBuffers::field(int f) const {
  return cuda_ ? in_[size_t(f) + 1]->id() : host_[size_t(f) + 1].id();
}
size_t StreamBuffers::keepRoom() const {
  return cuda_ ? in_[0]->bytes() : host_[0].bytes();
}

double StreamBuffers::upload(const Request& r) {
  const auto t0 = Clock::now();
  cuda_ = r.memory == MemorySpace::Cuda;
  std::vector<size_t> bytes{room(r.count)};
  for (int f = 0; f < r.numFields; ++f) bytes.push_back(room(size_t(r.count) * r.fields[f].bytes));
  if (!cuda_) {
    host_.resize(std::max(host_.size(), bytes.size()));
    for (size_t i = 0; i < bytes.size(); ++i)
      if (host_[i].bytes() < bytes[i]) host_[i] = srt::gl::BufferObject(room(bytes[i] * 3 / 2));
    SRT_GL_CHECK(glNamedBufferSubData(host_[0].id(), 0, GLsizeiptr(r.count), r.keep));
    for (int f = 0; f < r.numFields; ++f)
      SRT_GL_CHECK(glNamedBufferSubData(host_[size_t(f) + 1].id(), 0,
                                        GLsizeiptr(size_t(r.count) * r.fields[f].bytes),
                                        r.fields[f].src));
    return msSince(t0);
  }
  std::vector<srt::gl::CudaGlBuffer*> mapped;
  while (in_.size() < bytes.size()) in_.push_back(std::make_unique<srt::gl::CudaGlBuffer>());
  for (size_t i = 0; i < bytes.size(); ++i) {
    in_[i]->reserve(bytes[i], cudaGraphicsRegisterFlagsWriteDiscard);
    mapped.push_back(in_[i].get());
  }
  srt::gl::CudaGlMapping map(mapped, r.stream);
  SRT_CUDA_CHECK(
      cudaMemcpyAsync(map.pointer(0), r.keep, r.count, cudaMemcpyDeviceToDevice, r.stream));
  for (int f = 0; f < r.numFields; ++f)
    SRT_CUDA_CHECK(cudaMemcpyAsync(map.pointer(size_t(f) + 1), r.fields[f].src,
                                   size_t(r.count) * r.fields[f].bytes, cudaMemcpyDeviceToDevice,
                                   r.stream));
  map.unmap();
  SRT_CUDA_CHECK(cudaStreamSynchronize(r.stream));
  return msSince(t0);
}

double StreamBuffers::download(const Request& r, uint32_t kept,
                               const std::vector<Output>& outputs) {
  const auto t0 = Clock::now();
  hostCount_ = kept;
  if (!cuda_) {
    SRT_GL_CHECK(glBindBuffer(GL_PIXEL_PACK_BUFFER, 0));
    for (int f = 0; f < r.numFields && kept > 0; ++f) {
      const uint64_t bytes = uint64_t(kept) * r.fields[f].bytes;
      if (outputs[f].texture)
        srt::gl::downloadStream(*outputs[f].texture, bytes, r.fields[f].dst, false);
      else
        SRT_GL_CHECK(
            glGetNamedBufferSubData(outputs[f].buffer, 0, GLsizeiptr(bytes), r.fields[f].dst));
    }
    *r.numKept = kept;
    return msSince(t0);
  }
  std::vector<srt::gl::CudaGlBuffer*> mapped;
  while (out_.size() < size_t(r.numFields))
    out_.push_back(std::make_unique<srt::gl::CudaGlBuffer>());
  for (int f = 0; f < r.numFields && kept > 0; ++f) {
    const uint64_t bytes = uint64_t(kept) * r.fields[f].bytes;
    out_[f]->reserve(room(bytes), cudaGraphicsRegisterFlagsReadOnly);
    if (outputs[f].texture) {
      SRT_GL_CHECK(glBindBuffer(GL_PIXEL_PACK_BUFFER, out_[f]->id()));
      srt::gl::downloadStream(*outputs[f].texture, bytes, nullptr, true);
    } else {
      SRT_GL_CHECK(
          glCopyNamedBufferSubData(outputs[f].buffer, out_[f]->id(), 0, 0, GLsizeiptr(bytes)));
    }
    mapped.push_back(out_[f].get());
  }
  SRT_GL_CHECK(glBindBuffer(GL_PIXEL_PACK_BUFFER, 0));
  {
    // Mapping waits for the GL read-backs into the buffers before the copies on the stream.
    srt::gl::CudaGlMapping map(mapped, r.stream);
    for (size_t f = 0; f < mapped.size(); ++f)
      SRT_CUDA_CHECK(cudaMemcpyAsync(r.fields[f].dst, map.pointer(f),
                                     size_t(kept) * r.fields[f].bytes, cudaMemcpyDeviceToDevice,
                                     r.stream));
    map.unmap();
  }
  SRT_CUDA_CHECK(cudaMemcpyAsync(r.numKept, &hostCount_, 4, cudaMemcpyHostToDevice, r.stream));
  SRT_CUDA_CHECK(cudaStreamSynchronize(r.stream));
  return msSince(t0);
}

}  // namespace srt::compaction::gl
