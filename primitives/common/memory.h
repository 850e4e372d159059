// Owned, move-only buffers in host or CUDA device memory (tiny-cuda-nn's GPUMemory, pbrt's
// allocators). The memory space is chosen at run time so one renderer drives both backends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "primitives/common/cuda_check.h"

namespace srt {

enum class MemorySpace { Host, Cuda };

inline const char* toString(MemorySpace m) { return m == MemorySpace::Host ? "host" : "cuda"; }

// Bytes currently held by RawBuffers, per space (for --verbose and leak checks in tests).
size_t bytesInUse(MemorySpace space);

// Untyped owned allocation. Throws CudaError / std::bad_alloc with the size in the message when the
// request does not fit; never throws from the destructor.
class RawBuffer {
 public:
  RawBuffer() = default;
  RawBuffer(MemorySpace space, size_t bytes);
  ~RawBuffer() { release(); }
  RawBuffer(RawBuffer&& o) noexcept { *this = std::move(o); }
  RawBuffer& operator=(RawBuffer&& o) noexcept {
    if (this != &o) {
      release();
      std::swap(data_, o.data_);
      std::swap(bytes_, o.bytes_);
      std::swap(space_, o.space_);
    }
    return *this;
  }
  RawBuffer(const RawBuffer&) = delete;
  RawBuffer& operator=(const RawBuffer&) = delete;

  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  MemorySpace space() const { return space_; }

  // Copies between this buffer and host memory, whatever space this buffer is in.
  void upload(const void* src, size_t bytes, size_t offset = 0);
  void download(void* dst, size_t bytes, size_t offset = 0) const;
  void fill(uint8_t byte);

 private:
  void release() noexcept;
  void* data_ = nullptr;
  size_t bytes_ = 0;
  MemorySpace space_ = MemorySpace::Host;
};

template <typename T>
class Buffer {
 public:
  Buffer() = default;
  Buffer(MemorySpace space, size_t count) : raw_(space, count * sizeof(T)), count_(count) {}
  Buffer(MemorySpace space, const std::vector<T>& values) : Buffer(space, values.size()) {
    upload(values);
  }
  // Adopts `raw` as the storage of `count` elements (it may hold more: an allocation made before
  // the count was known). Throws std::length_error when it holds fewer.
  Buffer(RawBuffer&& raw, size_t count) : count_(count) {
    if (count > raw.bytes() / sizeof(T))
      throw std::length_error("Buffer: " + std::to_string(count) + " elements do not fit in " +
                              std::to_string(raw.bytes()) + " bytes");
    raw_ = std::move(raw);
  }

  T* data() const { return static_cast<T*>(raw_.data()); }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }
  bool empty() const { return count_ == 0; }
  MemorySpace space() const { return raw_.space(); }

  void upload(const std::vector<T>& v) { raw_.upload(v.data(), v.size() * sizeof(T)); }
  void upload(const T* v, size_t n, size_t first = 0) { raw_.upload(v, n * sizeof(T), first * sizeof(T)); }
  std::vector<T> download() const { return download(count_); }
  std::vector<T> download(size_t n) const {
    std::vector<T> v(n);
    raw_.download(v.data(), n * sizeof(T));
    return v;
  }
  // Into host memory the caller owns (n elements).
  void download(T* dst, size_t n) const { raw_.download(dst, n * sizeof(T)); }
  void fillBytes(uint8_t byte) { raw_.fill(byte); }

 private:
  RawBuffer raw_;
  size_t count_ = 0;
};

}  // namespace srt
