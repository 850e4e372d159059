// Warp-aggregated atomics (Adinetz, "CUDA Pro Tip: Optimized Filtering with Warp-Aggregated
// Atomics", reference [1] of Bakunas-Milanowski 2017): one thread per element, one atomicAdd per
// warp on the output count (ballot, popc, shuffle broadcast of the warp's base). Unordered: warps
// reserve their slots in whatever order they reach the atomic.
#include "primitives/compaction/cuda/cuda_compactors.h"
#include "primitives/compaction/cuda/field_set.cuh"

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

class WarpAggregated final : public Compactor {
 public:
  explicit WarpAggregated(int block) : block_(block) {}
  void compact(const Request& r) override {
    gpu::requireCuda(r, "warp-aggregated");
    gpu::writeZeroCount(r);  // the counter every warp adds to
    if (r.count == 0) return;
    const uint32_t blocks = uint32_t((uint64_t(r.count) + block_ - 1) / block_);
    warpAggregatedKernel<<<blocks, block_, 0, r.stream>>>(r.keep, r.count, gpu::makeFieldSet(r),
                                                          r.numKept);
    SRT_CUDA_CHECK_LAUNCH();
  }

 private:
  int block_;
};

}  // namespace

std::unique_ptr<Compactor> makeWarpAggregated(OptionReader& o) {
  return std::make_unique<WarpAggregated>(o.getInt("block", 256));  // checked by its registration
}

}  // namespace srt::compaction
