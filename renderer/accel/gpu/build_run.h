// The host side of one GPU kd-tree build (GpuKdTreeBuilder's scratch): BuildScratch owns the
// scratch arrays (build_scratch.h), the selected segmented reductions (boxes for node bounds, ints
// for bin counts) and compaction, and runs the stages in order on the stream. Setup, the small
// stage and finalize are in kdtree_build_gpu.cpp, the large-node stage in large_stage.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "primitives/compaction/compaction.h"
#include "primitives/reduction/reduction.h"
#include "renderer/accel/gpu/build_scratch.h"
#include "renderer/accel/gpu/device_steps.h"
#include "renderer/accel/gpu/kdtree_build_gpu.h"
#include "renderer/accel/gpu/level_graph.h"
#include "renderer/accel/gpu/level_plan.h"
#include "renderer/accel/gpu/segmented_boxes.h"

namespace srt::kdgpu {

using IntReducers = reduction::Registry<int, reduction::Sum<int>>;

class BuildScratch {
 public:
  explicit BuildScratch(const GpuKdBuildOptions& o)
      : o_(o),
        boxReducer_(o.segreduce),
        intReducer_(IntReducers::global().createSegmented(o.segreduce)),
        intLayout_(IntReducers::global().find(o.segreduce, true)->layout),
        compactor_(compaction::Registry::global().create(o.compaction)) {}

  // Setup, then the stages; a replayed build that outgrew its launches runs again with sync
  // levels (the stage times and the total count both attempts).
  DeviceKdTree build(const TriangleMeshView& mesh, cudaStream_t stream, GpuKdBuildStats& st);

 private:
  const BuildCounters& host() const { return host_[0]; }

  bool rootIsTerminal() const {
    return V_ <= uint32_t(smallNodeThresholdFor(o_)) || maxDepth_ == 0;
  }

  // The previous build had as many triangles and valid ones, and large levels.
  bool canReplay() const;

  // Empty when a replayed build outgrew its launches.
  std::optional<DeviceKdTree> runStages(bool replay);

  // `offsets` may be null: made from the owners when the variant reads offsets. outHoldsIdentity:
  // out[] holds empty boxes already (Request::outHoldsIdentity).
  void reduceBoxes(const Bounds3f* in, uint32_t count, Bounds3f* out, uint32_t segments,
                   const uint32_t* owners, const uint32_t* offsets = nullptr,
                   bool outHoldsIdentity = false);

  void compact(const uint8_t* keep, uint32_t count, const void* src, void* dst, uint32_t* numKept);

  void readBack();

  // Boxes of the finite triangles, compacted; the clip epsilon from their bounds. False when no
  // triangle is finite.
  bool setup();

  void rootTerminal();

  // Level l's counts from the host (the root level, or the root terminal's totals); async from
  // page-locked memory, which nothing writes again before the stream's next synchronisation.
  void setLevel(uint32_t l, const LevelCounts& c);
  void readLevel(uint32_t l);
  void uploadRoot();

  // The sync levels grow their arrays as the counts come in, and each growth waits for the
  // device, allocates and frees: before them, a plausible largest level (firstBuildCaps) is
  // reserved at once where that takes at most a quarter of the free device memory.
  void reservePlausibleLevel();

  // One round trip a level: its counts size the next level's launches exactly.
  void syncLargeStage();

  // No round trip: the previous build's levels plus slack, every array reserved up front.
  void replayLargeStage();

  // The level arrays swap every level and are swapped back after an odd count, so each replay
  // (and a graph of it) reads the root from the same array.
  void replayLevels(const ReplayCaps& r);

  // The loop as a graph: relaunched when its key repeats, captured at the second alike replay
  // (the first may still grow the primitives' scratch, which a capture cannot do).
  void graphLevels(const ReplayCaps& r);

  // Node bounds, then bin counts (chunk histograms summed by the int segmented reduction), then
  // each node's cuts and binned-SAH split. The reductions run over the caps (padding included).
  void planLevel(const LevelArgs& a);

  // Large level l: plan, route and compact the child lists, classify the children, move the
  // terminals' references out and the large children's to level l + 1 (whose counts the
  // kernels write on the device).
  void largeLevel(uint32_t l, const LevelCaps& caps);

  // The terminals after the last large level (its counts' totals), up to the caps.
  void smallStage();

  // Subtree sizes bottom-up and the root, one round trip for the tree's size (and the levels'
  // counts), every node written depth-first. A rebuild writes into arrays reserved from the last
  // tree's size before that round trip, and only a tree too large for them is written again after
  // it. Empty when the build overflowed.
  std::optional<DeviceKdTree> finalize();

  FinalizeArrays finalizeArrays();

  // The large nodes and the terminals' subtrees into arrays of `room`; nothing when the tree
  // (its size in counters_) is larger.
  void place(const FinalizeArrays& fa, uint32_t placeBlocks, KdNode* nodes, uint32_t* prims,
             TreeSize room);

  // The levels this build ran (up to the first without nodes, whose bases are the totals).
  void updatePlan();

  SahParams sah() const { return {o_.traversalCost, o_.intersectCost, o_.emptyBonus}; }
  SmallVariant smallVariant() const {
    return {o_.smallReuseBoxes,       o_.streamingClip,           o_.smallClampBoxes,
            smallCarveoutPercent(o_), uint32_t(o_.scratchPerRef), o_.smallSharedClip};
  }

  const GpuKdBuildOptions o_;
  BoxReducer boxReducer_;
  std::unique_ptr<reduction::Reducer<int, reduction::Sum<int>>> intReducer_;
  reduction::Layout intLayout_;
  std::unique_ptr<compaction::Compactor> compactor_;
  PinnedBuffer<BuildCounters> host_;  // made on the first build: no device needed before
  PinnedBuffer<BuildState> hostState_;
  StageTimer timer_;
  BuildArrays a_;
  // The current build.
  TriangleMeshView mesh_;
  cudaStream_t stream_ = nullptr;
  BuildCounters* counters_ = nullptr;
  BuildState* state_ = nullptr;
  uint32_t V_ = 0;
  bool validAssumed_ = false;  // V_ is the last build's, checked at finalize
  int maxDepth_ = 0;
  std::vector<LevelCaps> levels_;  // what each large level was launched for
  // Capacities of the large-node and terminal arrays the small stage and finalize cover.
  uint32_t capLarge_ = 0, capTerms_ = 0, capTermRefs_ = 0;
  LevelPlan plan_;  // the last build's levels, kept for a replay
  TreeOutput output_;
  bool outputReserved_ = false;  // this build's tree took the reserved arrays
  LevelGraph graph_;
  OwnedStream captureStream_;  // made on the first capture
  bool graphed_ = false;       // this build launched the level graph
};

}  // namespace srt::kdgpu
