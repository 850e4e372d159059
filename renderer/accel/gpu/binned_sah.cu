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

__global__ void __launch_bounds__(kChunkBlock)
    binChunksKernel(const LevelNode* nodes, uint32_t numNodes, uint32_t numChunks,
                    const Bounds3f* tight, const Ref* ref, float ratio, int maxDepth,
                    BinLayout out) {
  __shared__ int hist[kBinCounters];
  // Raw storage: Bounds3f's initialisers would be a dynamic initialisation of shared memory.
  __shared__ alignas(NodeCuts) unsigned char cutsStorage[sizeof(NodeCuts)];
  NodeCuts& cuts = *reinterpret_cast<NodeCuts*>(cutsStorage);
  const uint32_t c = blockIdx.x;
  for (uint32_t k = threadIdx.x; k < uint32_t(kBinCounters); k += blockDim.x) hist[k] = 0;
  const uint32_t n = chunkOwner(nodes, numNodes, c);
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
  stepChunkSegments(c, numChunks, node, n, hist, out, threadIdx.x, blockDim.x);
}

__global__ void chooseSplitsKernel(const LevelNode* nodes, uint32_t numNodes, const Bounds3f* tight,
                                   const int* binCounts, float ratio, int maxDepth, SahParams sah,
                                   LargeNode* out) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= numNodes) return;
  const LevelNode node = nodes[i];
  out[i] = chooseSplit(planCuts(node, tight[i], ratio, maxDepth), node.depth, node.refCount,
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

__global__ void chooseSplitsWarpKernel(const LevelNode* nodes, uint32_t numNodes,
                                       const Bounds3f* tight, const int* binCounts, float ratio,
                                       int maxDepth, SahParams sah, LargeNode* out) {
  const uint32_t i = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31u;
  if (i >= numNodes) return;  // the whole warp
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
  out[i] = n;
}

}  // namespace

void launchBinChunks(const LevelNode* nodes, uint32_t numNodes, uint32_t numChunks,
                     const Bounds3f* tight, const Ref* ref, float ratio, int maxDepth,
                     const BinLayout& out, cudaStream_t stream) {
  if (numChunks == 0) return;
  binChunksKernel<<<numChunks, kChunkBlock, 0, stream>>>(nodes, numNodes, numChunks, tight, ref,
                                                         ratio, maxDepth, out);
  SRT_CUDA_CHECK_LAUNCH();
}

void launchChooseSplits(const LevelNode* nodes, uint32_t numNodes, const Bounds3f* tight,
                        const int* binCounts, float ratio, int maxDepth, const SahParams& sah,
                        bool warpPerNode, LargeNode* out, cudaStream_t stream) {
  if (numNodes == 0) return;
  if (warpPerNode) {
    const uint64_t threads = 32ull * numNodes;
    chooseSplitsWarpKernel<<<unsigned((threads + kBlock - 1) / kBlock), kBlock, 0, stream>>>(
        nodes, numNodes, tight, binCounts, ratio, maxDepth, sah, out);
  } else {
    chooseSplitsKernel<<<(numNodes + kBlock - 1) / kBlock, kBlock, 0, stream>>>(
        nodes, numNodes, tight, binCounts, ratio, maxDepth, sah, out);
  }
  SRT_CUDA_CHECK_LAUNCH();
}

}  // namespace srt::kdgpu
