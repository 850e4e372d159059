#include "primitives/common/memory.h"

#include <atomic>
#include <cstdlib>

namespace srt {
namespace {
std::atomic<size_t> g_bytes[2];
std::string gib(size_t bytes) { return std::to_string(double(bytes) / double(1ull << 30)) + " GiB"; }
}  // namespace

size_t bytesInUse(MemorySpace space) { return g_bytes[int(space)].load(); }

RawBuffer::RawBuffer(MemorySpace space, size_t bytes) : bytes_(bytes), space_(space) {
  if (bytes == 0) return;
  if (space == MemorySpace::Cuda) {
    const cudaError_t err = cudaMalloc(&data_, bytes);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      data_ = nullptr;
      size_t freeBytes = 0, total = 0;
      cudaMemGetInfo(&freeBytes, &total);
      throw CudaError("cannot allocate " + gib(bytes) + " of GPU memory (" + gib(freeBytes) +
                      " free of " + gib(total) + "): " + cudaGetErrorString(err));
    }
  } else {
    data_ = std::malloc(bytes);
    if (!data_) throw std::bad_alloc();
  }
  g_bytes[int(space)] += bytes;
}

void RawBuffer::release() noexcept {
  if (!data_) return;
  if (space_ == MemorySpace::Cuda)
    cudaFree(data_);  // errors here are deliberately ignored: destructors never throw
  else
    std::free(data_);
  g_bytes[int(space_)] -= bytes_;
  data_ = nullptr;
  bytes_ = 0;
}

void RawBuffer::upload(const void* src, size_t bytes, size_t offset) {
  if (bytes == 0) return;
  if (offset + bytes > bytes_) throw std::out_of_range("RawBuffer::upload past the end");
  char* dst = static_cast<char*>(data_) + offset;
  if (space_ == MemorySpace::Cuda)
    SRT_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  else
    std::memcpy(dst, src, bytes);
}

void RawBuffer::download(void* dst, size_t bytes, size_t offset) const {
  if (bytes == 0) return;
  if (offset + bytes > bytes_) throw std::out_of_range("RawBuffer::download past the end");
  const char* src = static_cast<const char*>(data_) + offset;
  if (space_ == MemorySpace::Cuda)
    SRT_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
  else
    std::memcpy(dst, src, bytes);
}

void RawBuffer::fill(uint8_t byte) {
  if (bytes_ == 0) return;
  if (space_ == MemorySpace::Cuda)
    SRT_CUDA_CHECK(cudaMemset(data_, byte, bytes_));
  else
    std::memset(data_, byte, bytes_);
}

}  // namespace srt
