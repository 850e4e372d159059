// Small stream utilities: counting flags and the identity index stream.
#include "renderer/backend/parallel_for.h"
#include "renderer/wavefront/stages.h"

namespace srt {

namespace {

// 16 flags per thread in one 16-byte load, a warp sum, then one atomic per block: a flag count
// over a 4M-slot pool is about 1000 atomics instead of one per warp (130K on one address, which
// the L2 serializes).
constexpr uint32_t kCountBlock = 256, kFlagsPerThread = 16;

__global__ void countFlagsKernel(const uint8_t* __restrict__ flags, uint32_t n, bool aligned,
                                 uint32_t* counter) {
  __shared__ uint32_t warpSums[kCountBlock / 32];
  const uint64_t first = (uint64_t(blockIdx.x) * kCountBlock + threadIdx.x) * kFlagsPerThread;
  uint32_t v = 0;
  if (aligned && first + kFlagsPerThread <= n) {
    const uint4 q = __ldcs(reinterpret_cast<const uint4*>(flags + first));
    for (const uint32_t w : {q.x, q.y, q.z, q.w}) v += __popc(__vcmpne4(w, 0u) & 0x01010101u);
  } else {
    for (uint64_t i = first; i < first + kFlagsPerThread && i < n; ++i) v += flags[i] != 0;
  }
  v = __reduce_add_sync(0xffffffffu, v);
  if ((threadIdx.x & 31) == 0) warpSums[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t sum = 0;
    for (uint32_t w = 0; w < kCountBlock / 32; ++w) sum += warpSums[w];
    if (sum) atomicAdd(counter, sum);
  }
}

}  // namespace

void countFlags(const Backend& b, const uint8_t* flags, uint32_t n, uint32_t* counter) {
  if (b.isCuda()) {
    SRT_CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(uint32_t), b.stream));
    if (n == 0) return;
    const uint32_t perBlock = kCountBlock * kFlagsPerThread;
    const uint32_t blocks = uint32_t((uint64_t(n) + perBlock - 1) / perBlock);
    const bool aligned = reinterpret_cast<uintptr_t>(flags) % 16 == 0;
    countFlagsKernel<<<blocks, kCountBlock, 0, b.stream>>>(flags, n, aligned, counter);
    SRT_CUDA_CHECK_LAUNCH();
    return;
  }
  uint32_t count = 0;
#pragma omp parallel for reduction(+ : count)
  for (int64_t i = 0; i < int64_t(n); ++i) count += flags[i] != 0;
  *counter = count;
}

void fillIdentity(const Backend& b, uint32_t* out, uint32_t n) {
  parallelFor(b, n, [=] SRT_CPU_GPU(uint32_t i) { out[i] = i; });
}

}  // namespace srt
