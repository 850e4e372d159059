// GPU kd-tree build after Zhou, Hou, Wang, Guo, "Real-time KD-tree construction on graphics
// hardware" (SIGGRAPH Asia 2008), producing the depth-first KdNode format of kdtree.h so the same
// traversal runs on it.
//
// Stages (each timed with CUDA events):
//  1. large nodes, level by level: node bounds by the selected segmented AABB reduction,
//     empty-space cutting, then binned SAH (64 bins per axis over the node's references; per-node
//     bin counts are chunk histograms summed by the same segmented reduction over ints) with the
//     CPU builder's leaf rule; straddling triangles clipped to the child cells, each child's
//     references counted as they are routed, child reference lists formed by the selected
//     (ordered) compaction and placed by one scan over the children;
//  2. small nodes (<= smallNodeThreshold <= 64 references): one warp per small root builds its
//     subtree depth-first, triangle sets as 64-bit masks, exact SAH over every candidate plane
//     (as Wu, Zhao and Liu 2011), each node re-clipping its triangles to its cell;
//  3. finalize: subtree sizes bottom-up, offsets top-down (one cooperative launch each walks
//     the large levels), everything written depth-first.
// SAH constants, the leaf rule and the depth limit are the CPU builder's (KdBuildOptions).
// Host round trips: one after setup (valid triangle count; a rebuild of a mesh as large as the
// last assumes the last count and checks it at finalize), one in finalize (the tree's size: a
// first build allocates the output after it; a rebuild of as many triangles has written its
// tree before it, into arrays reserved from the last tree's size), and with sync levels one per
// large level (the next level's node, reference and chunk counts, which size its launches).
// Replayed levels size their launches from the previous build's counts plus slack instead
// (level_counts.h): the kernels read the real counts on the device, and a build that outgrows
// the launches is redone with sync levels.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "primitives/compaction/compaction.h"
#include "renderer/accel/device_kdtree.h"
#include "renderer/accel/kdtree_build_sah.h"

namespace srt {

// How the large-node levels are launched (each builds the same tree).
enum class GpuKdLevels {
  Sync,    // sized by the counts read back after each level: one round trip a level
  Replay,  // sized by the previous build's counts plus slack: no round trip until finalize
  Graph,   // as Replay, the level loop captured once as a CUDA graph and relaunched while
           // the same arrays and sizes repeat (a second alike replay captures it)
};

struct GpuKdBuildOptions {
  // A segmented reduction registered for boxes and for ints (node bounds, bin counts): one of
  // gpuKdSegmentedReductionNames() (segmented_boxes.h). The tree reduction tb2 (as Zhou et al.'s,
  // one of Martin et al. 2012's) by default: the fastest whole build on every bench scene, on the
  // H100 and the H200 (Conference Room 8.83 against mergepath's 9.08 ms on an H100;
  // bench/accel/RESULTS.md).
  std::string segreduce = "tb2";
  // A registered ordered CUDA compaction primitive. Ours by default: one pass with decoupled
  // look-back takes the child lists' compactions 1.30 -> 0.77 ms of a Conference Room build
  // against cub's select (bench/accel/RESULTS.md).
  std::string compaction = "lookback";
  int maxDepth = 0;  // 0: 8 + 1.3 log2(N) as the CPU builder, capped at kKdMaxDepth
  // Nodes with at most this many references (1..kSmallMax) go to the exact-SAH stage;
  // kThresholdByBoxes: smallNodeThresholdFor's choice by the small stage's boxes. Clipped boxes
  // (the full quality) take 28: that stage's per-node clips and counts grow with the square of
  // a node's references and the large levels' binned SAH does not (H200 against 64: Conference
  // Room 8.97 -> 8.63 ms, Sponza 8.15 -> 5.17, teapot 4.05 -> 2.54, 871K 26.2 -> 25.0; the
  // trees within 3% of the CPU tree's trace time). Clamped boxes (the fast quality, rebuilt
  // every frame) keep 64: more levels cost that cheaper stage more than they save (the animated
  // Conference Room 75-78 -> 66-67 frames/s at 28). bench/accel/RESULTS.md
  static constexpr int kThresholdByBoxes = 0;
  int smallNodeThreshold = kThresholdByBoxes;
  float emptySpaceRatio = 0.25f;  // cut off empty space wider than this fraction of the node
  // SAH constants, as KdBuildOptions (K_T, K_I, empty bonus).
  float traversalCost = kSahTraversalCost;
  float intersectCost = kSahIntersectCost;
  float emptyBonus = kSahEmptyBonus;
  // Speed variants, each building the same tree (the CPU tests check it on the host reference,
  // the GPU test on the device); streamrt-bench-kdtree compares their times. The environment
  // overrides them for any program that builds on the GPU (withEnvironment).
  // A below child in the small-node stage re-clips only the triangles crossing its new face.
  bool smallReuseBoxes = true;  // SRT_KD_SMALL_REUSE=0|1
  // The small stage's boxes below a terminal: its triangles clipped to every node's cell (clip,
  // the full-quality tree), or the terminal's clipped boxes cut to each cell and only the leaves
  // clipped (clamp: the fast-quality tree, for per-frame rebuilds; bench/accel/RESULTS.md).
  bool smallClampBoxes = false;  // SRT_KD_SMALL_BOXES=clip|clamp
  // Both stages clip in registers (clip_streaming.h) instead of polygon arrays in local memory.
  bool streamingClip = false;  // SRT_KD_CLIP=poly|stream|shared
  // The small stage clips with its polygons in shared memory (small_clip_shared.h), not in local
  // memory through L1: with the whole carve-out, 16 blocks an SM instead of 9 and no L1 misses;
  // the Conference Room's small stage 8.1 -> 5.3 ms, 871K's 42.7 -> 22.2 ms on an H200.
  bool smallSharedClip = true;  // SRT_KD_CLIP=shared (default), poly (local arrays) or stream
  // The large levels' route clips straddling references with the polygon in shared memory too
  // (128-thread blocks, 28 KB): the Conference Room's split stage 2.66 -> 1.84 ms on an H200.
  bool largeSharedClip = true;  // SRT_KD_LARGE_CLIP=shared (default) or poly
  // The large nodes' binned-SAH choice with one warp per node instead of one thread.
  bool splitPerWarp = true;  // SRT_KD_SPLIT=warp|thread
  // Shared-memory carve-out (percent) asked for the small-node kernel; -1: the driver's choice;
  // kCarveoutByClip: what suits the clip (smallCarveoutPercent). The shared clip wants all of it
  // (50%: 6.5 ms, 25%: 12.1 ms). The local-memory clips want L1 for their polygons instead: 25%
  // took their small stage from 9.5 to 6.9 ms (75%: 8.1 ms).
  static constexpr int kCarveoutByClip = -2;
  int smallCarveout = kCarveoutByClip;  // SRT_KD_SMALL_CARVEOUT=-2..100
  // Replay and Graph size the levels by the previous build of as many triangles (its counts
  // plus replaySlack percent); the first build, and one that outgrows them, runs sync levels.
  GpuKdLevels levels = GpuKdLevels::Graph;  // SRT_KD_LEVELS=sync|replay|graph
  int replaySlack = 10;                     // SRT_KD_REPLAY_SLACK=0..100
  // Scratch of the small-node stage, per reference of a terminal (build_common.h): a subtree
  // that would outgrow it stops splitting. Memory: 4 + 12 bytes x this x terminal references.
  int scratchPerRef = 32;  // SRT_KD_SCRATCH_PER_REF=4..64
};

const char* toString(GpuKdLevels levels);  // "sync", "replay", "graph"

// The carve-out the small-node kernel asks for: smallCarveout, or by the clip (100 with the
// shared clip, 25 with the local-memory ones) for kCarveoutByClip.
int smallCarveoutPercent(const GpuKdBuildOptions& options);

// The small-node threshold in force: smallNodeThreshold, or by the boxes (28 clipped, 64 clamped)
// for kThresholdByBoxes.
int smallNodeThresholdFor(const GpuKdBuildOptions& options);

// The options with SRT_KD_SMALL_REUSE, SRT_KD_CLIP, SRT_KD_SPLIT, SRT_KD_SMALL_CARVEOUT,
// SRT_KD_LEVELS and SRT_KD_REPLAY_SLACK applied (unset or empty: unchanged); throws
// std::invalid_argument for a value it does not know.
GpuKdBuildOptions withEnvironment(GpuKdBuildOptions options);

struct GpuKdBuildStats {
  double boundsMs = 0, splitMs = 0, compactionMs = 0, smallNodeMs = 0, finalizeMs = 0;
  double binsMs = 0;   // chunk histograms and their segmented reduction (large-node SAH bins)
  double setupMs = 0;  // per-triangle boxes and the removal of non-finite triangles
  double totalMs = 0;  // first event to last, host round trips included
  size_t nodes = 0, leaves = 0, largeNodeLevels = 0, largeNodes = 0;
  size_t terminals = 0;    // nodes handed to the small-node stage
  size_t primIndices = 0;  // entries of the primitive index array (one-triangle leaves have none)
  bool replayed = false;   // the large levels ran from the previous build's counts
  bool retried = false;    // ... and outgrew them: built again with sync levels (both in totalMs)
  bool graphed = false;    // ... as one CUDA graph launch, timed as levelsMs (not by stage)
  bool outputReserved = false;  // the tree went into arrays allocated while the GPU built it
  double levelsMs = 0;          // the graph launch of the large levels
};

// Throws std::invalid_argument naming the bad option (ranges, unknown or unordered primitives;
// the compaction through compaction::Registry::check). Needs no device.
void validate(const GpuKdBuildOptions& options);
// What the builder asks of its compaction primitive: ordered, on CUDA memory (the child lists
// must stay sorted by node). `what` names the option in messages.
compaction::Needs kdBuildCompactionNeeds(const std::string& what);
// The depth limit the builders use for `triangles` valid triangles.
int gpuKdMaxDepth(const GpuKdBuildOptions& options, size_t triangles);

namespace kdgpu {
class BuildScratch;
}

class GpuKdTreeBuilder {
 public:
  // Creates the reducer and the compactor by name; throws std::invalid_argument for unknown names.
  // Applies withEnvironment() to the options.
  explicit GpuKdTreeBuilder(const GpuKdBuildOptions& options = {});
  ~GpuKdTreeBuilder();
  GpuKdTreeBuilder(GpuKdTreeBuilder&&) noexcept;
  GpuKdTreeBuilder& operator=(GpuKdTreeBuilder&&) noexcept;

  // Builds from a mesh in device memory, in order on `stream`; returns when the tree is built.
  // Scratch is kept between calls: a rebuild with no more triangles allocates only the output.
  DeviceKdTree build(const TriangleMeshView& deviceMesh, cudaStream_t stream = nullptr,
                     GpuKdBuildStats* stats = nullptr);
  // Same, with the tree copied to the host (for computeStats and comparisons with the CPU build).
  KdTree buildToHost(const TriangleMeshView& deviceMesh, cudaStream_t stream = nullptr,
                     GpuKdBuildStats* stats = nullptr);

  const GpuKdBuildOptions& options() const { return options_; }

 private:
  GpuKdBuildOptions options_;
  std::unique_ptr<kdgpu::BuildScratch> scratch_;
};

// The same algorithm run sequentially on the host over a host mesh (the CPU test's reference:
// the same per-element code as the kernels, with ordered compaction and the reductions done in
// plain loops). Option names are not used.
KdTree buildKdTreeGpuAlgorithmOnHost(const TriangleMeshView& hostMesh,
                                     const GpuKdBuildOptions& options = {});

}  // namespace srt
