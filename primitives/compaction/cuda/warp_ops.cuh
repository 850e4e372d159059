// Warp-level building blocks shared by the CUDA compactors (CUB's WarpScan layer, reduced to what
// they use): ranks within a ballot and a 32-lane inclusive sum. All lanes of the warp take part.
#pragma once

#include <cstdint>

namespace srt::compaction::gpu {

// Lanes below this one, for ranks within a ballot.
__device__ __forceinline__ uint32_t lanesBelow() {
  uint32_t m;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
  return m;
}

// Inclusive prefix sum over the 32 lanes (Hillis-Steele with shuffles, log2(32) steps).
__device__ __forceinline__ uint32_t warpInclusiveSum(uint32_t v, int lane) {
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const uint32_t t = __shfl_up_sync(~0u, v, off);
    if (lane >= off) v += t;
  }
  return v;
}

}  // namespace srt::compaction::gpu
