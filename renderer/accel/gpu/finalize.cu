// Finalize (the relayout of Zhou et al.'s level-by-level build into the depth-first KdNode order):
// subtree sizes bottom-up one large level at a time, offsets top-down, then each terminal's
// subtree copied from scratch with its child and primitive offsets moved. The large levels hold
// few nodes (thousands), so one cooperative grid walks them all, a grid-wide barrier between
// levels: a launch per level cost more than its work, and one block alone was slower still.
#include <cooperative_groups.h>

#include <algorithm>
#include <cassert>

#include "primitives/common/cuda_check.h"
#include "renderer/accel/gpu/device_steps.h"

namespace srt::kdgpu {
namespace {

namespace cg = cooperative_groups;
constexpr uint32_t kLevelWalkBlock = 256;

// The deepest level first; the grid's barrier makes a level's sizes visible to the next.
__global__ void __launch_bounds__(kLevelWalkBlock)
    subtreeSizesKernel(const LevelCounts* levels, uint32_t numLevels, const uint32_t* overflow,
                       const LargeNode* large, Sizes sizes, uint32_t* largeSize,
                       uint32_t* largePrims) {
  if (*overflow) return;
  cg::grid_group grid = cg::this_grid();
  for (uint32_t l = numLevels; l-- > 0;) {
    const LevelCounts level = levels[l];
    for (uint32_t i = uint32_t(grid.thread_rank()); i < level.nodes; i += uint32_t(grid.size()))
      stepSubtreeSize(level.base + i, large, sizes, largeSize, largePrims);
    grid.sync();
  }
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

// The root's level first: a level's nodes place their children for the next.
__global__ void __launch_bounds__(kLevelWalkBlock)
    placeLargeKernel(const LevelCounts* levels, uint32_t numLevels, const uint32_t* overflow,
                     const LargeNode* large, Sizes sizes, Offsets offsets, KdNode* out) {
  if (*overflow) return;
  cg::grid_group grid = cg::this_grid();
  for (uint32_t l = 0; l < numLevels; ++l) {
    const LevelCounts level = levels[l];
    for (uint32_t i = uint32_t(grid.thread_rank()); i < level.nodes; i += uint32_t(grid.size()))
      stepPlaceLarge(level.base + i, large, sizes, offsets, out);
    grid.sync();
  }
}

// Blocks of a level walk: enough for the largest level's nodes (maxNodes, a host-known bound),
// at most what the device holds at once, as a cooperative launch needs.
template <typename Kernel>
uint32_t levelWalkBlocks(Kernel kernel, uint32_t maxNodes) {
  int device = 0, sms = 0, perSm = 0;
  SRT_CUDA_CHECK(cudaGetDevice(&device));
  SRT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  SRT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, kLevelWalkBlock, 0));
  const uint32_t resident = uint32_t(std::max(1, sms * perSm));
  return std::clamp((maxNodes + kLevelWalkBlock - 1) / kLevelWalkBlock, 1u, resident);
}

template <typename Kernel, typename... Args>
void launchLevelWalk(Kernel kernel, uint32_t maxNodes, cudaStream_t stream, Args... args) {
  void* params[] = {&args...};
  SRT_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel),
                                             levelWalkBlocks(kernel, maxNodes), kLevelWalkBlock,
                                             params, 0, stream));
}

// One block per terminal, its threads over the terminal's nodes and references.
__global__ void placeTerminalsKernel(const Terminal* terms, const LevelCounts* totals,
                                     const uint32_t* overflow, Sizes sizes,
                                     const uint32_t* termOffset, const uint32_t* termPrimOffset,
                                     const KdNode* scratchNodes, const uint32_t* scratchRefs,
                                     uint32_t scratchPerRef, KdNode* outNodes, uint32_t* outPrims) {
  const uint32_t t = blockIdx.x, handle = kTerminalBit | t;
  if (*overflow || t >= totals->termBase) return;
  const uint32_t nodes = sizes.nodes(handle), prims = sizes.prims(handle);
  const uint32_t items = nodes > prims ? nodes : prims;
  for (uint32_t k = threadIdx.x; k < items; k += blockDim.x)
    stepPlaceTerminalItem(t, k, terms, sizes, termOffset, termPrimOffset, scratchNodes, scratchRefs,
                          scratchPerRef, outNodes, outPrims);
}

}  // namespace

void launchSubtreeSizes(const LevelCounts* levels, uint32_t numLevels, uint32_t maxNodes,
                        const uint32_t* overflow, const LargeNode* large, const uint32_t* termNodes,
                        const uint32_t* termRefs, uint32_t* largeSize, uint32_t* largePrims,
                        cudaStream_t stream) {
  if (numLevels == 0) return;
  const Sizes sizes{termNodes, termRefs, largeSize, largePrims};
  launchLevelWalk(subtreeSizesKernel, maxNodes, stream, levels, numLevels, overflow, large, sizes,
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

void launchPlaceLarge(const LevelCounts* levels, uint32_t numLevels, uint32_t maxNodes,
                      const uint32_t* overflow, const LargeNode* large, const uint32_t* termNodes,
                      const uint32_t* termRefs, const uint32_t* largeSize,
                      const uint32_t* largePrims, uint32_t* largeOffset, uint32_t* largePrimOffset,
                      uint32_t* termOffset, uint32_t* termPrimOffset, KdNode* out,
                      cudaStream_t stream) {
  if (numLevels == 0) return;
  const Sizes sizes{termNodes, termRefs, largeSize, largePrims};
  const Offsets offsets{largeOffset, largePrimOffset, termOffset, termPrimOffset};
  launchLevelWalk(placeLargeKernel, maxNodes, stream, levels, numLevels, overflow, large, sizes,
                  offsets, out);
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
