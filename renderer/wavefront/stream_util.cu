// Small stream utilities: counting flags and the identity index stream.
#include "renderer/backend/parallel_for.h"
#include "renderer/wavefront/stages.h"

namespace srt {

void countFlags(const Backend& b, const uint8_t* flags, uint32_t n, uint32_t* counter) {
  if (b.isCuda())
    SRT_CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(uint32_t), b.stream));
  else
    *counter = 0;
  parallelFor(b, n, [=] SRT_CPU_GPU(uint32_t i) {
    const uint32_t v = flags[i] != 0;
#if SRT_IS_GPU_CODE
    // One atomic per warp rather than per thread.
    const uint32_t mask = __activemask();
    const uint32_t sum = __reduce_add_sync(mask, v);
    if ((threadIdx.x & 31) == uint32_t(__ffs(mask) - 1) && sum) atomicAdd(counter, sum);
#else
    if (v) {
#pragma omp atomic
      *counter += 1;
    }
#endif
  });
}

void fillIdentity(const Backend& b, uint32_t* out, uint32_t n) {
  parallelFor(b, n, [=] SRT_CPU_GPU(uint32_t i) { out[i] = i; });
}

}  // namespace srt
