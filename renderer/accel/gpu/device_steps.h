// Launchers of the GPU kd-tree build's kernels (large_nodes.cu, binned_sah.cu, small_nodes.cu,
// finalize.cu), called in order by the builder (BuildScratch, build_run.h). All asynchronous on
// `stream`; sizes passed by value are host-known upper bounds, counts that only the device knows
// are read through pointers into BuildCounters.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "renderer/accel/gpu/finalize_steps.h"
#include "renderer/accel/gpu/level_counts.h"
#include "renderer/accel/gpu/small_node_build.h"

namespace srt::kdgpu {

// ---- setup and large-node stage (large_nodes.cu)
void launchTriangleBoxes(const TriangleMeshView& mesh, Ref* ref, uint8_t* keep,
                         cudaStream_t stream);
// Boxes widened by the epsilon of counters->rawBounds.
void launchWidenBoxes(const BuildCounters* counters, Ref* ref, uint32_t count, cudaStream_t stream);
// Boxes and owners as arrays of their own (the segmented reduction's input).
void launchUnpack(const Ref* ref, uint32_t count, Bounds3f* box, uint32_t* owner,
                  cudaStream_t stream);
// ---- One large level: each kernel reads the level's counts from a.counts and pads its output up
// to a.caps (level_counts.h); the grids cover the caps.
// The level's sums: node bounds (a.caps.nodes), bin counts (kBinCounters a node) and the
// route's references per child (2 a.caps.nodes).
struct LevelSums {
  Bounds3f* tight;
  int* binCounts;
  uint32_t* childRefs;
};
// Boxes and owners of the level's references and the bounds reduction's offsets
// (a.caps.nodes + 1 entries); `sums` set to their identities (empty boxes, zeros).
void launchUnpackLevel(const LevelArgs& a, const Ref* ref, Bounds3f* box, uint32_t* owner,
                       const LevelNode* nodes, uint32_t* offsets, const LevelSums& sums,
                       cudaStream_t stream);
// The root as the only terminal (few triangles): its cell from tight[0], its references.
void launchRootTerminal(const Bounds3f* tight, const Ref* ref, uint32_t count, Terminal* terms,
                        uint32_t* termTri, Bounds3f* termBox, cudaStream_t stream);
// Writes the doubled stream: [0, refs) below copies, [refs, 2 refs) above copies, and adds
// each child's references to childRefs (zeroed by launchUnpackLevel); the level's nodes are
// large + counts.base.
void launchRouteReferences(const LevelArgs& a, const TriangleMeshView& mesh,
                           const BuildCounters* counters, const Ref* cur, const LargeNode* large,
                           bool streamingClip, bool sharedClip, Ref* d, uint8_t* dKeep,
                           uint32_t* childRefs, cudaStream_t stream);
// One scan over the level's children (cub's, 2 caps.nodes of them): each is classified as it
// is read (large, terminal, or an absent above child of a leaf) and assigned its next-level node
// or terminal, and its list's start in the compacted stream, as its sum is written; the last
// writes the next level's counts (a.next). `temp` holds childScanTempBytes(2 caps.nodes).
void classifyAndAssignChildren(const LevelArgs& a, const BuildCounters* counters, LargeNode* large,
                               const uint32_t* childRefs, uint32_t threshold, int maxDepth,
                               LevelNode* next, Terminal* terms, uint32_t* handle, uint32_t* start,
                               void* temp, size_t tempBytes, cudaStream_t stream);
size_t childScanTempBytes(uint32_t children);
// References of terminal children go to the terminal arrays, the large children's to the next
// level's (`next`: its nodes, from classifyAndAssignChildren).
void launchRouteToChildren(const LevelArgs& a, const Ref* ref, const uint32_t* numRefs,
                           const uint32_t* start, const uint32_t* handle, const Terminal* terms,
                           const LevelNode* next, uint32_t* termTri, Bounds3f* termBox,
                           Ref* nextRef, cudaStream_t stream);

// ---- binned SAH of the large nodes (binned_sah.cu)
// One histogram per chunk of a node's references over its bins (after the empty-space cuts),
// with the segment description the int segmented reduction reads; chunks past the level's are
// zero counts in the padding segment.
void launchBinChunks(const LevelArgs& a, const LevelNode* nodes, const Bounds3f* tight,
                     const Ref* ref, float ratio, int maxDepth, const BinLayout& out,
                     cudaStream_t stream);
// Each node's cuts and its binned-SAH split (or leaf) from its bin counts, into
// large + counts.base: one thread per node, or one warp per node (the same choice).
void launchChooseSplits(const LevelArgs& a, const LevelNode* nodes, const Bounds3f* tight,
                        const int* binCounts, float ratio, int maxDepth, const SahParams& sah,
                        bool warpPerNode, LargeNode* large, cudaStream_t stream);

// ---- small-node stage (small_nodes.cu)
struct SmallVariant {
  bool reuseBoxes, streamingClip;  // GpuKdBuildOptions::smallReuseBoxes, streamingClip
  bool clampBoxes;                 // GpuKdBuildOptions::smallClampBoxes
  int carveout;                    // smallCarveoutPercent(GpuKdBuildOptions)
  uint32_t scratchPerRef;          // GpuKdBuildOptions::scratchPerRef
  bool sharedClip;                 // GpuKdBuildOptions::smallSharedClip
};
// One warp per terminal of totals->termBase (the launch covers `capTerms`, one block at least);
// nothing when the build overflowed, or when large nodes are left after the last level or the
// terminals pass the scratch's capacities (then it sets *overflow).
void launchSmallNodes(const Terminal* terms, const LevelCounts* totals, uint32_t capTerms,
                      uint32_t capTermRefs, uint32_t* overflow, const uint32_t* termTri,
                      const Bounds3f* termBox, int maxDepth, const TriangleMeshView& mesh,
                      const BuildCounters* counters, const SahParams& sah,
                      const SmallVariant& variant, KdNode* scratchNodes, uint32_t* scratchRefs,
                      uint32_t* termNodes, uint32_t* termRefs, cudaStream_t stream);

// ---- finalize (finalize.cu): each kernel does nothing once *overflow is set.
// What the large-level walks read and write: the large nodes and terminals, their subtree sizes
// and their places in the depth-first arrays.
struct FinalizeArrays {
  const LargeNode* large;
  const Terminal* terms;
  const uint32_t *termNodes, *termRefs;
  uint32_t *largeSize, *largePrims, *largeOffset, *largePrimOffset, *termOffset, *termPrimOffset;
  SRT_CPU_GPU Sizes sizes() const { return {termNodes, termRefs, largeSize, largePrims}; }
  SRT_CPU_GPU Offsets offsets() const {
    return {largeOffset, largePrimOffset, termOffset, termPrimOffset};
  }
};
// Subtree sizes bottom-up over the large levels levels[0, numLevels) (each level's base and
// nodes, at most maxNodes), then the root's place and the tree's totals and bounds into counters
// (zero totals after an overflow): one cooperative launch walks the levels.
void launchSubtreeSizes(const LevelCounts* levels, uint32_t numLevels, uint32_t maxNodes,
                        const uint32_t* overflow, const FinalizeArrays& a, BuildCounters* counters,
                        cudaStream_t stream);
// The grid of launchPlaceLarge for levels of at most maxNodes nodes. Asked before finalize's
// round trip, so the occupancy query (and the kernel's first load) is off the host's wait.
uint32_t placeLargeBlocks(uint32_t maxNodes);
// Offsets top-down over the same levels, the large nodes written into out. The placement
// kernels write nothing when the tree (counters' totals) is larger than `room`.
void launchPlaceLarge(const LevelCounts* levels, uint32_t numLevels, uint32_t blocks,
                      const uint32_t* overflow, const BuildCounters* counters, TreeSize room,
                      const FinalizeArrays& a, KdNode* out, cudaStream_t stream);
// Terminals of totals->termBase (the launch covers capTerms).
void launchPlaceTerminals(const LevelCounts* totals, uint32_t capTerms, const uint32_t* overflow,
                          const BuildCounters* counters, TreeSize room, const FinalizeArrays& a,
                          const KdNode* scratchNodes, const uint32_t* scratchRefs,
                          uint32_t scratchPerRef, KdNode* outNodes, uint32_t* outPrims,
                          cudaStream_t stream);

}  // namespace srt::kdgpu
