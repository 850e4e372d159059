// Bakunas-Milanowski et al. 2017, "Efficient Algorithms for Stream Compaction on GPUs", both
// variants. One warp owns a 1024-element group: 32 ballots of 32-element subgroups, lane i keeping
// subgroup i's mask and count.
//  - bm-multilevel (3.1, ordered): phase 1 stores the masks and each group's count, phase 2 scans
//    the group counts (CUB, as the paper uses Thrust), phase 3 rescans the masks and scatters.
//  - bm-hybrid (3.2, unordered): one kernel; a shuffle scan gives subgroup offsets and one
//    atomicAdd per group gives the group's offset, so groups land in arrival order.
// The paper reads keep flags as in Fig. 4 (one byte per lane per ballot); phase 1 here writes the
// 32 masks of a group with one coalesced store instead of 32 single-lane stores.
#include <cub/device/device_scan.cuh>

#include "primitives/compaction/cuda/atomic_count.cuh"
#include "primitives/compaction/cuda/cuda_compactors.h"

namespace srt::compaction {
namespace {

constexpr uint32_t kGroup = 1024;

// Lane i returns subgroup i's ballot mask.
__device__ __forceinline__ uint32_t groupVotes(const uint8_t* __restrict__ keep, uint32_t n,
                                               uint64_t group, int lane) {
  uint32_t votes = 0;
#pragma unroll 8
  for (int i = 0; i < 32; ++i) {
    const uint64_t e = group + i * 32 + lane;
    const uint32_t m = __ballot_sync(~0u, e < n && keep[e] != 0);
    if (lane == i) votes = m;
  }
  return votes;
}

// Lane i's subgroup survivors go to base + (survivors of subgroups < i) + rank in the ballot.
__device__ __forceinline__ void scatterGroup(const gpu::FieldSet& fs, uint64_t group, int lane,
                                             uint32_t votes, uint32_t inclusive, uint64_t base) {
  const uint32_t exclusive = inclusive - __popc(votes);
  for (int i = 0; i < 32; ++i) {
    const uint32_t m = __shfl_sync(~0u, votes, i);
    const uint32_t sub = __shfl_sync(~0u, exclusive, i);
    if (m >> lane & 1)
      gpu::copyElement(fs, group + i * 32 + lane, base + sub + __popc(m & gpu::lanesBelow()));
  }
}

__global__ void phase1Kernel(const uint8_t* __restrict__ keep, uint32_t n,
                             uint32_t* __restrict__ pred, uint32_t* __restrict__ counter,
                             uint32_t groups) {
  const uint64_t warp = (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  if (warp >= groups) return;
  const int lane = threadIdx.x & 31;
  const uint32_t votes = groupVotes(keep, n, warp * kGroup, lane);
  pred[warp * 32 + lane] = votes;
  uint32_t cnt = __popc(votes);
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) cnt += __shfl_down_sync(~0u, cnt, off);
  if (lane == 0) counter[warp] = cnt;
}

__global__ void phase3Kernel(const uint32_t* __restrict__ pred,
                             const uint32_t* __restrict__ scanned, uint32_t groups,
                             const gpu::FieldSet fs) {
  const uint64_t warp = (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  if (warp >= groups) return;
  const int lane = threadIdx.x & 31;
  const uint32_t votes = pred[warp * 32 + lane];
  const uint32_t inclusive = gpu::warpInclusiveSum(__popc(votes), lane);
  const uint32_t base = warp > 0 ? scanned[warp - 1] : 0;
  scatterGroup(fs, warp * kGroup, lane, votes, inclusive, base);
}

__global__ void hybridKernel(const uint8_t* __restrict__ keep, uint32_t n, uint32_t groups,
                             const gpu::FieldSet fs, uint32_t* __restrict__ counter) {
  const uint64_t warp = (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  if (warp >= groups) return;
  const int lane = threadIdx.x & 31;
  const uint32_t votes = groupVotes(keep, n, warp * kGroup, lane);
  const uint32_t inclusive = gpu::warpInclusiveSum(__popc(votes), lane);
  uint32_t base = 0;
  if (lane == 31 && inclusive > 0) base = atomicAdd(counter, inclusive);
  base = __shfl_sync(~0u, base, 31);
  scatterGroup(fs, warp * kGroup, lane, votes, inclusive, base);
}

uint32_t blocksFor(uint32_t groups, int block) {
  return uint32_t((uint64_t(groups) * 32 + block - 1) / block);
}

class BmMultilevel final : public Compactor {
 public:
  explicit BmMultilevel(int block) : block_(block) {}
  void reserve(uint32_t maxCount) override { grow(maxCount); }

  void compact(const Request& r) override {
    gpu::requireCuda(r, "bm-multilevel");
    if (r.count == 0) return gpu::writeZeroCount(r);
    const uint32_t groups = uint32_t((uint64_t(r.count) + kGroup - 1) / kGroup);
    grow(r.count);
    phase1Kernel<<<blocksFor(groups, block_), block_, 0, r.stream>>>(r.keep, r.count, pred_.data(),
                                                                     counter_.data(), groups);
    SRT_CUDA_CHECK_LAUNCH();
    size_t bytes = temp_.bytes();
    SRT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp_.data(), bytes, counter_.data(),
                                                 scanned_.data(), groups, r.stream));
    phase3Kernel<<<blocksFor(groups, block_), block_, 0, r.stream>>>(pred_.data(), scanned_.data(),
                                                                     groups, gpu::makeFieldSet(r));
    SRT_CUDA_CHECK_LAUNCH();
    SRT_CUDA_CHECK(cudaMemcpyAsync(r.numKept, scanned_.data() + groups - 1, sizeof(uint32_t),
                                   cudaMemcpyDeviceToDevice, r.stream));
  }

 private:
  void grow(uint32_t count) {
    const size_t groups = (size_t(count) + kGroup - 1) / kGroup;
    if (counter_.size() >= groups && groups > 0) return;
    const size_t g = std::max<size_t>(groups, 1);
    pred_ = Buffer<uint32_t>(MemorySpace::Cuda, g * 32);
    counter_ = Buffer<uint32_t>(MemorySpace::Cuda, g);
    scanned_ = Buffer<uint32_t>(MemorySpace::Cuda, g);
    size_t bytes = 0;
    SRT_CUDA_CHECK(
        cub::DeviceScan::InclusiveSum(nullptr, bytes, counter_.data(), scanned_.data(), g));
    temp_ = RawBuffer(MemorySpace::Cuda, std::max<size_t>(bytes, 16));
  }

  int block_;
  Buffer<uint32_t> pred_, counter_, scanned_;
  RawBuffer temp_;
};

}  // namespace

std::unique_ptr<Compactor> makeBmMultilevel(OptionReader& o) {
  return std::make_unique<BmMultilevel>(o.getInt("block", 128));  // the paper's best on its GPUs
}
std::unique_ptr<Compactor> makeBmHybrid(OptionReader& o) {
  return gpu::makeAtomicCount("bm-hybrid", o.getInt("block", 128), [](const Request& r, int block) {
    const uint32_t groups = uint32_t((uint64_t(r.count) + kGroup - 1) / kGroup);
    hybridKernel<<<blocksFor(groups, block), block, 0, r.stream>>>(r.keep, r.count, groups,
                                                                   gpu::makeFieldSet(r), r.numKept);
  });
}

}  // namespace srt::compaction
