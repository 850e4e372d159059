// Owned CUDA resources beside memory.h's buffers: host memory the device copies into
// asynchronously, and events. Move-only, checked where they are made, and never throwing from a
// destructor (tiny-cuda-nn's GPUMemory). Host memory is page-locked only for a CUDA device, so
// the same code drives the CPU backend.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>

#include "primitives/common/cuda_check.h"
#include "primitives/common/memory.h"

namespace srt {

// `count` elements of T in host memory: page-locked (cudaMallocHost) when the device it mirrors
// is CUDA, so cudaMemcpyAsync into it does not wait; plain heap memory otherwise. Elements are
// value-initialised.
template <typename T>
class PinnedBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "the device copies the bytes");

 public:
  PinnedBuffer() = default;
  PinnedBuffer(MemorySpace device, size_t count)
      : count_(count), pinned_(device == MemorySpace::Cuda) {
    if (count == 0) return;
    void* p = nullptr;
    if (pinned_) {
      SRT_CUDA_CHECK(cudaMallocHost(&p, count * sizeof(T)));
    } else if (!(p = std::malloc(count * sizeof(T)))) {
      throw std::bad_alloc();
    }
    data_ = static_cast<T*>(p);
    for (size_t i = 0; i < count; ++i) new (data_ + i) T();
  }
  ~PinnedBuffer() { release(); }
  PinnedBuffer(PinnedBuffer&& o) noexcept { *this = std::move(o); }
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    if (this != &o) {
      release();
      std::swap(data_, o.data_);
      std::swap(count_, o.count_);
      std::swap(pinned_, o.pinned_);
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  T* data() const { return data_; }
  size_t size() const { return count_; }
  T& operator[](size_t i) const { return data_[i]; }

 private:
  void release() noexcept {
    if (!data_) return;
    if (pinned_)
      cudaFreeHost(data_);  // errors ignored: destructors never throw
    else
      std::free(data_);
    data_ = nullptr;
    count_ = 0;
  }
  T* data_ = nullptr;
  size_t count_ = 0;
  bool pinned_ = false;
};

// One CUDA event, or none (default-constructed: the CPU backend has nothing to record).
class CudaEvent {
 public:
  CudaEvent() = default;
  // cudaEventDefault times; cudaEventDisableTiming only orders (cheaper to record and wait on).
  explicit CudaEvent(unsigned flags) { SRT_CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags)); }
  ~CudaEvent() {
    if (event_) cudaEventDestroy(event_);  // errors ignored: destructors never throw
  }
  CudaEvent(CudaEvent&& o) noexcept : event_(std::exchange(o.event_, nullptr)) {}
  CudaEvent& operator=(CudaEvent&& o) noexcept {
    std::swap(event_, o.event_);
    return *this;
  }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;

  explicit operator bool() const { return event_ != nullptr; }
  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream) { SRT_CUDA_CHECK(cudaEventRecord(event_, stream)); }
  void synchronize() const { SRT_CUDA_CHECK(cudaEventSynchronize(event_)); }
  // True once the work before the record is done; never blocks.
  bool done() const {
    const cudaError_t q = cudaEventQuery(event_);
    if (q == cudaErrorNotReady) {
      (void)cudaGetLastError();  // not an error: do not leave it for the next launch check
      return false;
    }
    SRT_CUDA_CHECK(q);
    return true;
  }
  // Milliseconds from `a` to `b`, both recorded with timing and complete.
  static float elapsedMs(const CudaEvent& a, const CudaEvent& b) {
    float ms = 0.f;
    SRT_CUDA_CHECK(cudaEventElapsedTime(&ms, a.event_, b.event_));
    return ms;
  }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace srt
