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

// The deepest level first; the grid's barrier makes a level's sizes visible to the next. Then
// one thread places the root and reads the tree's totals (a terminal root: no level at all).
__global__ void __launch_bounds__(kLevelWalkBlock)
    subtreeSizesKernel(const LevelCounts* levels, uint32_t numLevels, const uint32_t* overflow,
                       FinalizeArrays a, BuildCounters* counters) {
  cg::grid_group grid = cg::this_grid();
  if (*overflow) {
    if (grid.thread_rank() == 0) counters->totalNodes = counters->totalPrims = 0;
    return;
  }
  const Sizes sizes = a.sizes();
  for (uint32_t l = numLevels; l-- > 0;) {
    const LevelCounts level = levels[l];
    for (uint32_t i = uint32_t(grid.thread_rank()); i < level.nodes; i += uint32_t(grid.size()))
      stepSubtreeSize(level.base + i, a.large, sizes, a.largeSize, a.largePrims);
    grid.sync();
  }
  if (grid.thread_rank() == 0)
    stepPlaceRoot(numLevels == 0, a.large, a.terms, sizes, a.offsets(), counters);
}

// The root's level first: a level's nodes place their children for the next.
__global__ void __launch_bounds__(kLevelWalkBlock)
    placeLargeKernel(const LevelCounts* levels, uint32_t numLevels, const uint32_t* overflow,
                     const BuildCounters* counters, TreeSize room, FinalizeArrays a, KdNode* out) {
  if (*overflow || !treeFits(*counters, room)) return;  // every block alike: no barrier waits
  cg::grid_group grid = cg::this_grid();
  const Sizes sizes = a.sizes();
  const Offsets offsets = a.offsets();
  for (uint32_t l = 0; l < numLevels; ++l) {
    const LevelCounts level = levels[l];
    for (uint32_t i = uint32_t(grid.thread_rank()); i < level.nodes; i += uint32_t(grid.size()))
      stepPlaceLarge(level.base + i, a.large, sizes, offsets, out);
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
void launchLevelWalk(Kernel kernel, uint32_t blocks, cudaStream_t stream, Args... args) {
  void* params[] = {&args...};
  SRT_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), blocks,
                                             kLevelWalkBlock, params, 0, stream));
}

// One block per terminal, its threads over the terminal's nodes and references.
__global__ void placeTerminalsKernel(const LevelCounts* totals, const uint32_t* overflow,
                                     const BuildCounters* counters, TreeSize room, FinalizeArrays a,
                                     const KdNode* scratchNodes, const uint32_t* scratchRefs,
                                     uint32_t scratchPerRef, KdNode* outNodes, uint32_t* outPrims) {
  const uint32_t t = blockIdx.x, handle = kTerminalBit | t;
  if (*overflow || t >= totals->termBase || !treeFits(*counters, room)) return;
  const Sizes sizes = a.sizes();
  const uint32_t nodes = sizes.nodes(handle), prims = sizes.prims(handle);
  const uint32_t items = nodes > prims ? nodes : prims;
  for (uint32_t k = threadIdx.x; k < items; k += blockDim.x)
    stepPlaceTerminalItem(t, k, a.terms, sizes, a.termOffset, a.termPrimOffset, scratchNodes,
                          scratchRefs, scratchPerRef, outNodes, outPrims);
}

}  // namespace

void launchSubtreeSizes(const LevelCounts* levels, uint32_t numLevels, uint32_t maxNodes,
                        const uint32_t* overflow, const FinalizeArrays& a, BuildCounters* counters,
                        cudaStream_t stream) {
  const uint32_t blocks = numLevels == 0 ? 1u : levelWalkBlocks(subtreeSizesKernel, maxNodes);
  launchLevelWalk(subtreeSizesKernel, blocks, stream, levels, numLevels, overflow, a, counters);
  SRT_CUDA_CHECK_LAUNCH();
}

uint32_t placeLargeBlocks(uint32_t maxNodes) {
  return levelWalkBlocks(placeLargeKernel, maxNodes);
}

void launchPlaceLarge(const LevelCounts* levels, uint32_t numLevels, uint32_t blocks,
                      const uint32_t* overflow, const BuildCounters* counters, TreeSize room,
                      const FinalizeArrays& a, KdNode* out, cudaStream_t stream) {
  if (numLevels == 0) return;
  launchLevelWalk(placeLargeKernel, blocks, stream, levels, numLevels, overflow, counters, room, a,
                  out);
  SRT_CUDA_CHECK_LAUNCH();
}

void launchPlaceTerminals(const LevelCounts* totals, uint32_t capTerms, const uint32_t* overflow,
                          const BuildCounters* counters, TreeSize room, const FinalizeArrays& a,
                          const KdNode* scratchNodes, const uint32_t* scratchRefs,
                          uint32_t scratchPerRef, KdNode* outNodes, uint32_t* outPrims,
                          cudaStream_t stream) {
  if (capTerms == 0) return;
  placeTerminalsKernel<<<capTerms, 64, 0, stream>>>(totals, overflow, counters, room, a,
                                                    scratchNodes, scratchRefs, scratchPerRef,
                                                    outNodes, outPrims);
  SRT_CUDA_CHECK_LAUNCH();
}

}  // namespace srt::kdgpu
