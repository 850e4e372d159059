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

__global__ void subtreeSizesKernel(const LevelCounts* level, const uint32_t* overflow,
                                   const LargeNode* large, Sizes sizes, uint32_t* largeSize,
                                   uint32_t* largePrims) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (!*overflow && i < level->nodes)
    stepSubtreeSize(level->base + i, large, sizes, largeSize, largePrims);
}

__global__ void placeRootKernel(bool rootIsTerminal, const uint32_t* overflow,
                                const LargeNode* large, const Terminal* terms, Sizes sizes,
                                Offsets offsets, BuildCounters* counters) {
  if (*overflow) {
    counters->totalNodes = counters->totalPrims = 0;
    return;
  }
  stepPlaceRoot(rootIsTerminal, large, terms, sizes, offsets, counters);
}

__global__ void placeLargeKernel(const LevelCounts* level, const uint32_t* overflow,
                                 const LargeNode* large, Sizes sizes, Offsets offsets,
                                 KdNode* out) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (!*overflow && i < level->nodes) stepPlaceLarge(level->base + i, large, sizes, offsets, out);
}

// One block per terminal, its threads over the terminal's nodes and references.
__global__ void placeTerminalsKernel(const Terminal* terms, const LevelCounts* totals,
                                     const uint32_t* overflow, Sizes sizes,
                                     const uint32_t* termOffset, const uint32_t* termPrimOffset,
                                     const KdNode* scratchNodes, const uint32_t* scratchRefs,
                                     uint32_t scratchPerRef, KdNode* outNodes,
                                     uint32_t* outPrims) {
  const uint32_t t = blockIdx.x, handle = kTerminalBit | t;
  if (*overflow || t >= totals->termBase) return;
  const uint32_t nodes = sizes.nodes(handle), prims = sizes.prims(handle);
  const uint32_t items = nodes > prims ? nodes : prims;
  for (uint32_t k = threadIdx.x; k < items; k += blockDim.x)
    stepPlaceTerminalItem(t, k, terms, sizes, termOffset, termPrimOffset, scratchNodes, scratchRefs,
                          scratchPerRef, outNodes, outPrims);
}

}  // namespace

void launchSubtreeSizes(const LevelCounts* level, uint32_t capNodes, const uint32_t* overflow,
                        const LargeNode* large, const uint32_t* termNodes, const uint32_t* termRefs,
                        uint32_t* largeSize, uint32_t* largePrims, cudaStream_t stream) {
  if (capNodes == 0) return;
  const Sizes sizes{termNodes, termRefs, largeSize, largePrims};
  subtreeSizesKernel<<<blocks(capNodes), kBlock, 0, stream>>>(level, overflow, large, sizes,
                                                              largeSize, largePrims);
  SRT_CUDA_CHECK_LAUNCH();
}

void launchPlaceRoot(bool rootIsTerminal, const uint32_t* overflow, const LargeNode* large,
                     const Terminal* terms, const uint32_t* termNodes, const uint32_t* termRefs,
                     const uint32_t* largeSize, const uint32_t* largePrims, uint32_t* largeOffset,
                     uint32_t* largePrimOffset, uint32_t* termOffset, uint32_t* termPrimOffset,
                     BuildCounters* counters, cudaStream_t stream) {
  const Sizes sizes{termNodes, termRefs, largeSize, largePrims};
  const Offsets offsets{largeOffset, largePrimOffset, termOffset, termPrimOffset};
  placeRootKernel<<<1, 1, 0, stream>>>(rootIsTerminal, overflow, large, terms, sizes, offsets,
                                       counters);
  SRT_CUDA_CHECK_LAUNCH();
}

void launchPlaceLarge(const LevelCounts* level, uint32_t capNodes, const uint32_t* overflow,
                      const LargeNode* large, const uint32_t* termNodes, const uint32_t* termRefs,
                      const uint32_t* largeSize, const uint32_t* largePrims, uint32_t* largeOffset,
                      uint32_t* largePrimOffset, uint32_t* termOffset, uint32_t* termPrimOffset,
                      KdNode* out, cudaStream_t stream) {
  if (capNodes == 0) return;
  const Sizes sizes{termNodes, termRefs, largeSize, largePrims};
  const Offsets offsets{largeOffset, largePrimOffset, termOffset, termPrimOffset};
  placeLargeKernel<<<blocks(capNodes), kBlock, 0, stream>>>(level, overflow, large, sizes, offsets,
                                                            out);
  SRT_CUDA_CHECK_LAUNCH();
}

void launchPlaceTerminals(const Terminal* terms, const LevelCounts* totals, uint32_t capTerms,
                          const uint32_t* overflow, const uint32_t* termNodes,
                          const uint32_t* termRefs, const uint32_t* termOffset,
                          const uint32_t* termPrimOffset, const KdNode* scratchNodes,
                          const uint32_t* scratchRefs, uint32_t scratchPerRef, KdNode* outNodes,
                          uint32_t* outPrims, cudaStream_t stream) {
  if (capTerms == 0) return;
  const Sizes sizes{termNodes, termRefs, nullptr, nullptr};
  placeTerminalsKernel<<<capTerms, 64, 0, stream>>>(terms, totals, overflow, sizes, termOffset,
                                                    termPrimOffset, scratchNodes, scratchRefs,
                                                    scratchPerRef, outNodes, outPrims);
  SRT_CUDA_CHECK_LAUNCH();
}

}  // namespace srt::kdgpu
