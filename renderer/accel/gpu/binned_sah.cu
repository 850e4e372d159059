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
                        LargeNode* out, cudaStream_t stream) {
  if (numNodes == 0) return;
  chooseSplitsKernel<<<(numNodes + kBlock - 1) / kBlock, kBlock, 0, stream>>>(
      nodes, numNodes, tight, binCounts, ratio, maxDepth, sah, out);
  SRT_CUDA_CHECK_LAUNCH();
}

}  // namespace srt::kdgpu
