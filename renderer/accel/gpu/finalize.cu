// Finalize (the relayout of Zhou et al.'s level-by-level build into the depth-first KdNode order):
// subtree sizes bottom-up one large level at a time, offsets top-down, then each terminal's
// subtree copied from scratch with its child and primitive offsets moved.
#include <cassert>

#include "primitives/common/cuda_check.h"
#include "renderer/accel/gpu/device_steps.h"

namespace srt::kdgpu {
namespace {

constexpr uint32_t kBlock = 256;
inline uint32_t blocks(uint64_t n) {
  return uint32_t((n + kBlock - 1) / kBlock);
}

struct Sizes {
  const uint32_t *termNodes, *termRefs, *largeSize, *largePrims;
  __device__ uint32_t nodes(uint32_t h) const {
    return h & kTerminalBit ? termNodes[h & ~kTerminalBit] : largeSize[h];
  }
  __device__ uint32_t prims(uint32_t h) const {
    return h & kTerminalBit ? termRefs[h & ~kTerminalBit] : largePrims[h];
  }
};

struct Offsets {
  uint32_t *largeOffset, *largePrimOffset, *termOffset, *termPrimOffset;
  __device__ void place(uint32_t h, uint32_t node, uint32_t prim) const {
    if (h & kTerminalBit) {
      termOffset[h & ~kTerminalBit] = node;
      termPrimOffset[h & ~kTerminalBit] = prim;
    } else {
      largeOffset[h] = node;
      largePrimOffset[h] = prim;
    }
  }
};

__global__ void subtreeSizesKernel(const LargeNode* large, uint32_t first, uint32_t count,
                                   Sizes sizes, uint32_t* largeSize, uint32_t* largePrims) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const LargeNode& n = large[first + i];
  largeSize[first + i] = largeOwnNodes(n) + sizes.nodes(n.child[0]) + sizes.nodes(n.child[1]);
  largePrims[first + i] = sizes.prims(n.child[0]) + sizes.prims(n.child[1]);
}

__global__ void placeRootKernel(bool rootIsTerminal, const LargeNode* large, const Terminal* terms,
                                Sizes sizes, Offsets offsets, BuildCounters* counters) {
  const uint32_t root = rootIsTerminal ? kTerminalBit : 0u;
  offsets.place(root, 0, 0);
  counters->totalNodes = sizes.nodes(root);
  counters->totalPrims = sizes.prims(root);
  counters->rootCell = rootIsTerminal ? terms[0].cell : large[0].cell;
}

__global__ void placeLargeKernel(const LargeNode* large, uint32_t first, uint32_t count,
                                 Sizes sizes, Offsets offsets, KdNode* out) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const uint32_t g = first + i;
  const LargeNode& n = large[g];
  const uint32_t belowSize = sizes.nodes(n.child[0]);
  const uint32_t below =
      writeLargeNode(n, offsets.largeOffset[g], sizes.largeSize[g], belowSize, out);
  const uint32_t prim = offsets.largePrimOffset[g];
  offsets.place(n.child[0], below, prim);
  offsets.place(n.child[1], below + belowSize, prim + sizes.prims(n.child[0]));
}

__global__ void placeTerminalsKernel(const Terminal* terms, const uint32_t* termNodes,
                                     const uint32_t* termRefs, const uint32_t* termOffset,
                                     const uint32_t* termPrimOffset, const KdNode* scratchNodes,
                                     const uint32_t* scratchRefs, KdNode* outNodes,
                                     uint32_t* outPrims) {
  const uint32_t t = blockIdx.x;
  const size_t base = size_t(kScratchPerRef) * terms[t].refStart;
  const uint32_t nodeBase = termOffset[t], primBase = termPrimOffset[t];
  const uint32_t numNodes = termNodes[t], numRefs = termRefs[t];
  assert(numNodes <= kScratchPerRef * terms[t].refCount + 1);
  for (uint32_t k = threadIdx.x; k < numNodes; k += blockDim.x)
    outNodes[nodeBase + k] = relocate(scratchNodes[base + t + k], nodeBase, primBase);
  for (uint32_t k = threadIdx.x; k < numRefs; k += blockDim.x)
    outPrims[primBase + k] = scratchRefs[base + k];
}

}  // namespace

void launchSubtreeSizes(const LargeNode* large, uint32_t first, uint32_t count,
                        const uint32_t* termNodes, const uint32_t* termRefs, uint32_t* largeSize,
                        uint32_t* largePrims, cudaStream_t stream) {
  if (count == 0) return;
  const Sizes sizes{termNodes, termRefs, largeSize, largePrims};
  subtreeSizesKernel<<<blocks(count), kBlock, 0, stream>>>(large, first, count, sizes, largeSize,
                                                           largePrims);
  SRT_CUDA_CHECK_LAUNCH();
}

void launchPlaceRoot(bool rootIsTerminal, const LargeNode* large, const Terminal* terms,
                     const uint32_t* termNodes, const uint32_t* termRefs, const uint32_t* largeSize,
                     const uint32_t* largePrims, uint32_t* largeOffset, uint32_t* largePrimOffset,
                     uint32_t* termOffset, uint32_t* termPrimOffset, BuildCounters* counters,
                     cudaStream_t stream) {
  const Sizes sizes{termNodes, termRefs, largeSize, largePrims};
  const Offsets offsets{largeOffset, largePrimOffset, termOffset, termPrimOffset};
  placeRootKernel<<<1, 1, 0, stream>>>(rootIsTerminal, large, terms, sizes, offsets, counters);
  SRT_CUDA_CHECK_LAUNCH();
}

void launchPlaceLarge(const LargeNode* large, uint32_t first, uint32_t count,
                      const uint32_t* termNodes, const uint32_t* termRefs,
                      const uint32_t* largeSize, const uint32_t* largePrims, uint32_t* largeOffset,
                      uint32_t* largePrimOffset, uint32_t* termOffset, uint32_t* termPrimOffset,
                      KdNode* out, cudaStream_t stream) {
  if (count == 0) return;
  const Sizes sizes{termNodes, termRefs, largeSize, largePrims};
  const Offsets offsets{largeOffset, largePrimOffset, termOffset, termPrimOffset};
  placeLargeKernel<<<blocks(count), kBlock, 0, stream>>>(large, first, count, sizes, offsets, out);
  SRT_CUDA_CHECK_LAUNCH();
}

void launchPlaceTerminals(const Terminal* terms, uint32_t numTerms, const uint32_t* termNodes,
                          const uint32_t* termRefs, const uint32_t* termOffset,
                          const uint32_t* termPrimOffset, const KdNode* scratchNodes,
                          const uint32_t* scratchRefs, KdNode* outNodes, uint32_t* outPrims,
                          cudaStream_t stream) {
  if (numTerms == 0) return;
  placeTerminalsKernel<<<numTerms, 64, 0, stream>>>(terms, termNodes, termRefs, termOffset,
                                                    termPrimOffset, scratchNodes, scratchRefs,
                                                    outNodes, outPrims);
  SRT_CUDA_CHECK_LAUNCH();
}

}  // namespace srt::kdgpu
