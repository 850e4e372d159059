// Warp-aggregated atomics (Adinetz, "CUDA Pro Tip: Optimized Filtering with Warp-Aggregated
// Atomics", reference [1] of Bakunas-Milanowski 2017): one thread per element, one atomicAdd per
// warp on the output count (ballot, popc, shuffle broadcast of the warp's base). Unordered: warps
// reserve their slots in whatever order they reach the atomic.
#include "primitives/compaction/cuda/atomic_count.cuh"
#include "primitives/compaction/cuda/cuda_compactors.h"

namespace srt::compaction {
namespace {

__global__ void warpAggregatedKernel(const uint8_t* __restrict__ keep, uint32_t n,
                                     const gpu::FieldSet fs, uint32_t* __restrict__ counter) {
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool live = i < n && keep[i] != 0;
  const uint32_t mask = __ballot_sync(~0u, live);
  if (mask == 0) return;  // the whole warp leaves together
  const int leader = __ffs(mask) - 1;
  const int lane = threadIdx.x & 31;
  uint32_t base = 0;
  if (lane == leader) base = atomicAdd(counter, __popc(mask));
  base = __shfl_sync(~0u, base, leader);
  if (live) gpu::copyElement(fs, i, base + __popc(mask & gpu::lanesBelow()));
}

}  // namespace

std::unique_ptr<Compactor> makeWarpAggregated(OptionReader& o) {
  // The block size is checked by its registration.
  return gpu::makeAtomicCount(
      "warp-aggregated", o.getInt("block", 256), [](const Request& r, int block) {
        const uint32_t blocks = uint32_t((uint64_t(r.count) + block - 1) / block);
        warpAggregatedKernel<<<blocks, block, 0, r.stream>>>(r.keep, r.count, gpu::makeFieldSet(r),
                                                             r.numKept);
      });
}

}  // namespace srt::compaction
