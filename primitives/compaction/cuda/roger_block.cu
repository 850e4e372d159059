// Roger, Assarsson & Holzschuch 2007, "Efficient Stream Reduction on the GPU", carried to CUDA as
// the paper's section VI suggests: the stream is cut into blocks of s = 1024 elements,
//  1. each block's survivors are counted by a reduction in shared memory,
//  2. the block counts are scanned (CUB) into block offsets,
//  3. each block scans its flags in shared memory and fills its output segment by the paper's
//     dichotomic search (Fig. 5): output slot i finds the input j with pSum[j] = i + 1, searched
//     between i and i + (dead elements of the block). Gathering keeps the writes contiguous,
//     which is what the paper's line drawing achieved without scatter. Ordered.
#include <cub/device/device_scan.cuh>

#include "primitives/compaction/cuda/cuda_compactors.h"
#include "primitives/compaction/cuda/field_set.cuh"

namespace srt::compaction {
namespace {

constexpr int kThreads = 256;
constexpr int kPerThread = 4;
constexpr uint32_t kBlock = kThreads * kPerThread;  // s of the paper

__device__ __forceinline__ uint32_t flagAt(const uint8_t* keep, uint32_t n, uint64_t e) {
  return e < n && keep[e] != 0;
}

__global__ void __launch_bounds__(kThreads)
    reduceKernel(const uint8_t* __restrict__ keep, uint32_t n, uint32_t* __restrict__ counts) {
  __shared__ uint32_t partial[kThreads];
  const uint64_t begin = uint64_t(blockIdx.x) * kBlock;
  uint32_t sum = 0;
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) sum += flagAt(keep, n, begin + k * kThreads + threadIdx.x);
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) counts[blockIdx.x] = partial[0];
}

__global__ void __launch_bounds__(kThreads)
    placeKernel(const uint8_t* __restrict__ keep, uint32_t n, const uint32_t* __restrict__ offsets,
                const gpu::FieldSet fs) {
  __shared__ uint16_t pSum[kBlock];  // inclusive count of survivors up to each element
  __shared__ uint32_t warpTotals[kThreads / 32];
  const uint64_t begin = uint64_t(blockIdx.x) * kBlock;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  // Each thread scans its 4 consecutive flags, then a warp scan and a scan of warp totals.
  uint32_t f[kPerThread], sum = 0;
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    f[k] = flagAt(keep, n, begin + threadIdx.x * kPerThread + k);
    sum += f[k];
  }
  const uint32_t inclusive = gpu::warpInclusiveSum(sum, lane);
  if (lane == 31) warpTotals[warp] = inclusive;
  __syncthreads();
  uint32_t running = inclusive - sum;
  for (int w = 0; w < warp; ++w) running += warpTotals[w];
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    running += f[k];
    pSum[threadIdx.x * kPerThread + k] = uint16_t(running);
  }
  __syncthreads();
  const uint32_t kept = pSum[kBlock - 1];
  const uint32_t dead = kBlock - kept;
  const uint64_t base = offsets[blockIdx.x];
  for (uint32_t i = threadIdx.x; i < kept; i += kThreads) {
    // Smallest j with pSum[j] > i; j_i lies in [i, i + dead] (paper, Fig. 5 bounds).
    uint32_t lo = i, hi = min(i + dead, kBlock - 1);
    while (lo < hi) {
      const uint32_t mid = (lo + hi) >> 1;
      if (pSum[mid] > i)
        hi = mid;
      else
        lo = mid + 1;
    }
    gpu::copyElement(fs, begin + lo, base + i);
  }
}

class RogerBlock final : public Compactor {
 public:
  void reserve(uint32_t maxCount) override { grow(maxCount); }

  void compact(const Request& r) override {
    gpu::requireCuda(r, "roger-block-cuda");
    if (r.count == 0) return gpu::writeZeroCount(r);
    const uint32_t blocks = uint32_t((uint64_t(r.count) + kBlock - 1) / kBlock);
    grow(r.count);
    // counts[blocks] = 0 so that the exclusive scan's last entry is the total.
    SRT_CUDA_CHECK(cudaMemsetAsync(counts_.data() + blocks, 0, sizeof(uint32_t), r.stream));
    reduceKernel<<<blocks, kThreads, 0, r.stream>>>(r.keep, r.count, counts_.data());
    SRT_CUDA_CHECK_LAUNCH();
    size_t bytes = temp_.bytes();
    SRT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp_.data(), bytes, counts_.data(),
                                                 offsets_.data(), blocks + 1, r.stream));
    placeKernel<<<blocks, kThreads, 0, r.stream>>>(r.keep, r.count, offsets_.data(),
                                                   gpu::makeFieldSet(r));
    SRT_CUDA_CHECK_LAUNCH();
    SRT_CUDA_CHECK(cudaMemcpyAsync(r.numKept, offsets_.data() + blocks, sizeof(uint32_t),
                                   cudaMemcpyDeviceToDevice, r.stream));
  }

 private:
  void grow(uint32_t count) {
    const size_t blocks = (size_t(count) + kBlock - 1) / kBlock + 1;
    if (counts_.size() >= blocks) return;
    counts_ = Buffer<uint32_t>(MemorySpace::Cuda, blocks);
    offsets_ = Buffer<uint32_t>(MemorySpace::Cuda, blocks);
    size_t bytes = 0;
    SRT_CUDA_CHECK(
        cub::DeviceScan::ExclusiveSum(nullptr, bytes, counts_.data(), offsets_.data(), blocks));
    temp_ = RawBuffer(MemorySpace::Cuda, std::max<size_t>(bytes, 16));
  }

  Buffer<uint32_t> counts_, offsets_;
  RawBuffer temp_;
};

}  // namespace

std::unique_ptr<Compactor> makeRogerBlock(OptionReader&) {
  return std::make_unique<RogerBlock>();
}

}  // namespace srt::compaction
