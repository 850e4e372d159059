// The large-node stage's split choice: per-chunk bin histograms (one block per chunk of up to
// kChunkRefs references of one node, counted in shared memory), which the segmented reduction
// over ints sums into per-node bin counts, then one thread per node for the cuts and the binned
// SAH (large_node_split.h).
#include "primitives/common/cuda_check.h"
#include "renderer/accel/gpu/device_steps.h"

namespace srt::kdgpu {
namespace {

constexpr uint32_t kChunkBlock = 128;
constexpr uint32_t kBlock = 256;

// The bin reduction's offsets past the level's nodes, over the whole grid: the padding segments
// end where the level's chunks do, the last one at the padded chunk count.
__device__ inline void padBinOffsets(const LevelCounts& c, const LevelCaps& caps,
                                     uint32_t* offsets) {
  const uint32_t K = kBinCounters, last = K * caps.nodes;
  for (uint32_t s = K * c.nodes + blockIdx.x * blockDim.x + threadIdx.x; s <= last;
       s += gridDim.x * blockDim.x)
    offsets[s] = s < last ? K * c.chunks : K * caps.chunks;
}

__global__ void __launch_bounds__(kChunkBlock)
    binChunksKernel(LevelArgs a, const LevelNode* nodes, const Bounds3f* tight, const Ref* ref,
                    float ratio, int maxDepth, BinLayout out) {
  __shared__ int hist[kBinCounters];
  // Raw storage: Bounds3f's initialisers would be a dynamic initialisation of shared memory.
  __shared__ alignas(NodeCuts) unsigned char cutsStorage[sizeof(NodeCuts)];
  NodeCuts& cuts = *reinterpret_cast<NodeCuts*>(cutsStorage);
  const LevelCounts lc = levelCounts(a);
  const uint32_t c = blockIdx.x;
  padBinOffsets(lc, a.caps, out.offsets);
  if (c >= lc.chunks) {  // the whole block: zero counts owned by the last padding segment
    for (uint32_t k = threadIdx.x; k < uint32_t(kBinCounters); k += blockDim.x) {
      out.partial[size_t(kBinCounters) * c + k] = 0;
      out.owners[size_t(kBinCounters) * c + k] = kBinCounters * a.caps.nodes - 1;
    }
    return;
  }
  for (uint32_t k = threadIdx.x; k < uint32_t(kBinCounters); k += blockDim.x) hist[k] = 0;
  const uint32_t n = chunkOwner(nodes, lc.nodes, c);
  const LevelNode node = nodes[n];
  if (threadIdx.x == 0) cuts = planCuts(node, tight[n], ratio, maxDepth);
  __syncthreads();
  const uint32_t first = node.refStart + (c - node.chunkStart) * kChunkRefs;
  const uint32_t last = node.refStart + node.refCount;
  const uint32_t end = first + kChunkRefs < last ? first + kChunkRefs : last;
  for (uint32_t i = first + threadIdx.x; i < end; i += blockDim.x) {
    int slot[6];
    binSlots(ref[i].box, cuts.bins, slot);
    for (int s = 0; s < 6; ++s) atomicAdd(&hist[slot[s]], 1);
  }
  __syncthreads();
  stepChunkSegments(c, lc.chunks, node, n, hist, out, threadIdx.x, blockDim.x);
}

__global__ void chooseSplitsKernel(LevelArgs a, const LevelNode* nodes, const Bounds3f* tight,
                                   const int* binCounts, float ratio, int maxDepth, SahParams sah,
                                   LargeNode* large) {
  const LevelCounts lc = levelCounts(a);
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= lc.nodes) return;
  const LevelNode node = nodes[i];
  large[lc.base + i] =
      chooseSplit(planCuts(node, tight[i], ratio, maxDepth), node.depth, node.refCount,
                  binCounts + size_t(kBinCounters) * i, sah, maxDepth);
}

// The same choice with one warp per node (chooseSplit took one thread per node through 195
// dependent plane evaluations: 1.9 ms of the Conference Room's build over 29 levels). Lane l
// takes planes 2l and 2l + 1 of each axis (lane 31 also plane 64); the counts below a plane are
// warp prefix sums of the bins; the warp's arg-min over (cost, axis * 65 + plane) is the
// sequential scan's first minimum.
constexpr int kPlanesPerAxis = kBins + 1;
static_assert(kBins == 64, "two bins per lane");

__device__ inline int exclusiveWarpSum(int v, uint32_t lane) {
  int x = v;
  for (int o = 1; o < 32; o <<= 1) {
    const int y = __shfl_up_sync(~0u, x, o);
    if (int(lane) >= o) x += y;
  }
  return x - v;
}

__global__ void chooseSplitsWarpKernel(LevelArgs a, const LevelNode* nodes, const Bounds3f* tight,
                                       const int* binCounts, float ratio, int maxDepth,
                                       SahParams sah, LargeNode* large) {
  const LevelCounts lc = levelCounts(a);
  const uint32_t i = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31u;
  if (i >= lc.nodes) return;  // the whole warp
  const LevelNode node = nodes[i];
  const NodeCuts cuts = planCuts(node, tight[i], ratio, maxDepth);
  const int* bins = binCounts + size_t(kBinCounters) * i;
  float best = INFINITY;
  uint32_t bestIndex = ~0u;
  if (maySplit(cuts, node.depth, maxDepth)) {
    const Bounds3f& b = cuts.inner;
    const float invHalfArea = 2.f / b.surfaceArea();
    for (int k = 0; k < 3; ++k) {
      if (!(b.lo[k] < b.hi[k])) continue;  // uniform over the warp
      const int* lo = bins + (2 * k) * kBins;
      const int* hi = bins + (2 * k + 1) * kBins;
      const int lo0 = lo[2 * lane], lo1 = lo[2 * lane + 1];
      const int hi0 = hi[2 * lane], hi1 = hi[2 * lane + 1];
      int nl = exclusiveWarpSum(lo0 + lo1, lane);
      int ended = exclusiveWarpSum(hi0 + hi1, lane);
      const int planes = lane == 31 ? 3 : 2;
      for (int q = 0; q < planes; ++q) {  // planes 2 lane + q, in increasing order
        const int j = 2 * int(lane) + q;
        const float cost = binnedPlaneCost(cuts, k, j, nl, ended, node.refCount, invHalfArea, sah);
        if (cost < best) best = cost, bestIndex = uint32_t(k * kPlanesPerAxis + j);
        nl += q == 0 ? lo0 : lo1;
        ended += q == 0 ? hi0 : hi1;
      }
    }
  }
  for (int o = 16; o > 0; o >>= 1) {
    const float c = __shfl_xor_sync(~0u, best, o);
    const uint32_t x = __shfl_xor_sync(~0u, bestIndex, o);
    if (c < best || (c == best && x < bestIndex)) best = c, bestIndex = x;
  }
  if (lane != 0) return;
  LargeNode n = unsplitNode(cuts, node.depth);
  if (bestIndex != ~0u && best < sah.leafCost(float(node.refCount))) {
    n.axis = int(bestIndex / kPlanesPerAxis);
    n.split = binPlane(cuts.bins, n.axis, int(bestIndex % kPlanesPerAxis));
    n.leaf = 0;
  }
  large[lc.base + i] = n;
}

}  // namespace

void launchBinChunks(const LevelArgs& a, const LevelNode* nodes, const Bounds3f* tight,
                     const Ref* ref, float ratio, int maxDepth, const BinLayout& out,
                     cudaStream_t stream) {
  binChunksKernel<<<a.caps.chunks, kChunkBlock, 0, stream>>>(a, nodes, tight, ref, ratio, maxDepth,
                                                             out);
  SRT_CUDA_CHECK_LAUNCH();
}

void launchChooseSplits(const LevelArgs& a, const LevelNode* nodes, const Bounds3f* tight,
                        const int* binCounts, float ratio, int maxDepth, const SahParams& sah,
                        bool warpPerNode, LargeNode* large, cudaStream_t stream) {
  const uint32_t n = a.caps.nodes - 1;  // the padding segment has no node
  if (n == 0) return;
  if (warpPerNode) {
    const uint64_t threads = 32ull * n;
    chooseSplitsWarpKernel<<<unsigned((threads + kBlock - 1) / kBlock), kBlock, 0, stream>>>(
        a, nodes, tight, binCounts, ratio, maxDepth, sah, large);
  } else {
    chooseSplitsKernel<<<(n + kBlock - 1) / kBlock, kBlock, 0, stream>>>(
        a, nodes, tight, binCounts, ratio, maxDepth, sah, large);
  }
  SRT_CUDA_CHECK_LAUNCH();
}

}  // namespace srt::kdgpu
