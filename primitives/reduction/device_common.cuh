// Device pieces every reduction kernel shares: warp shuffles of any trivially copyable value,
// the two ways a segmented kernel hands a finished piece to the output, and fills.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "primitives/common/cuda_check.h"
#include "primitives/common/memory.h"
#include "primitives/reduction/reduction.h"

namespace srt::reduction::detail {

constexpr uint32_t kFullMask = 0xffffffffu;

// Word-by-word shuffles, so Aabb (24 B) and Mat2u (16 B) travel like floats.
template <bool Down, typename T>
__device__ __forceinline__ T shflWords(const T& v, int delta) {
  static_assert(sizeof(T) % 4 == 0, "shuffled values must be a multiple of 4 bytes");
  T r;
  const int* s = reinterpret_cast<const int*>(&v);
  int* d = reinterpret_cast<int*>(&r);
#pragma unroll
  for (int k = 0; k < int(sizeof(T) / 4); ++k) {
    if constexpr (Down)
      d[k] = __shfl_down_sync(kFullMask, s[k], delta);
    else
      d[k] = __shfl_up_sync(kFullMask, s[k], delta);
  }
  return r;
}
template <typename T>
__device__ __forceinline__ T shflDown(const T& v, int delta) {
  return shflWords<true>(v, delta);
}
template <typename T>
__device__ __forceinline__ T shflUp(const T& v, int delta) {
  return shflWords<false>(v, delta);
}

// Where a segmented kernel sends a piece whose segment continues elsewhere (the paper's g_output
// updates). Left-storing trees keep a block's first segment and flush later pieces in order, so
// they append; right-storing (matrix) kernels keep the last segment and flush from right to left,
// so they prepend. out[] starts at the identity, and at most one thread writes a given segment at
// a time (see the paper's §IV and paper_kernels.cuh).
enum class Dir { Left, Right };

template <Dir D, typename T, typename Op>
__device__ __forceinline__ void flushPiece(T* out, uint32_t owner, const T& v, Op op) {
  if constexpr (D == Dir::Left)
    out[owner] = op(out[owner], v);
  else
    out[owner] = op(v, out[owner]);
}

template <typename T>
__global__ void fillKernel(T* out, uint32_t n, T value) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

template <typename T>
void fill(T* out, uint32_t n, const T& value, cudaStream_t stream) {
  if (n == 0) return;
  fillKernel<<<(n + 255) / 256, 256, 0, stream>>>(out, n, value);
  SRT_CUDA_CHECK_LAUNCH();
}

// Kernels whose shared memory may pass 48 KB (Aabb tiles) opt in once per kernel.
template <typename Kernel>
void allowSharedMemory(Kernel kernel, size_t bytes) {
  if (bytes > 48 * 1024)
    SRT_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
}

int multiprocessorCount();  // of the current device (reduction_common.cu)

// A growable device scratch array (grow-only, so a reduce() in a loop allocates nothing).
template <typename T>
void grow(Buffer<T>& b, size_t n) {
  if (b.size() < n) b = Buffer<T>(MemorySpace::Cuda, std::max<size_t>(n, 1));
}

}  // namespace srt::reduction::detail
