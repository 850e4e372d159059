// parallelFor(backend, n, body): runs body(i) for i in [0, n) as a CUDA kernel or on CPU threads
// (pbrt-v4's ParallelFor). Include only from .cu files: the body must be a host-device lambda,
// `[=] SRT_CPU_GPU (uint32_t i) { ... }`, so one stage body serves both backends.
#pragma once

#include "primitives/common/cuda_check.h"
#include "primitives/common/host_device.h"
#include "renderer/backend/backend.h"

#if !defined(__CUDACC__)
#error "parallel_for.h launches CUDA kernels: include it from .cu files only"
#endif

namespace srt {

template <typename F>
__global__ void parallelForKernel(uint32_t n, F body) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) body(i);
}

template <typename F>
void parallelFor(const Backend& backend, uint32_t n, F body) {
  if (n == 0) return;
  if (backend.isCuda()) {
    constexpr uint32_t kBlock = 256;
    parallelForKernel<<<(n + kBlock - 1) / kBlock, kBlock, 0, backend.stream>>>(n, body);
    SRT_CUDA_CHECK_LAUNCH();
  } else {
    // Dynamic chunks: ray work per item varies a lot (misses vs deep traversals).
#pragma omp parallel for schedule(dynamic, 1024)
    for (int64_t i = 0; i < int64_t(n); ++i) body(uint32_t(i));
  }
}

// parallelFor with the kernel compiled for at least kMinBlocksPerSm blocks of kBlock threads an
// SM (its registers capped to fit): for a stage that waits on memory more than it computes.
template <uint32_t kBlock, int kMinBlocksPerSm, typename F>
__global__ void __launch_bounds__(kBlock, kMinBlocksPerSm) parallelForKernelAt(uint32_t n, F body) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) body(i);
}

template <uint32_t kBlock, int kMinBlocksPerSm, typename F>
void parallelForAtOccupancy(const Backend& backend, uint32_t n, F body) {
  if (n == 0) return;
  if (backend.isCuda()) {
    parallelForKernelAt<kBlock, kMinBlocksPerSm>
        <<<(n + kBlock - 1) / kBlock, kBlock, 0, backend.stream>>>(n, body);
    SRT_CUDA_CHECK_LAUNCH();
  } else {
    parallelFor(backend, n, body);
  }
}

// Adds to a float that other items may add to at the same time (the Whitted film).
SRT_CPU_GPU inline void atomicAddFloat(float* p, float v) {
#if SRT_IS_GPU_CODE
  atomicAdd(p, v);
#else
#pragma omp atomic
  *p += v;
#endif
}

}  // namespace srt
