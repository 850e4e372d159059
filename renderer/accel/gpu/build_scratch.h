// What the GPU kd-tree builder keeps between builds: device arrays that grow and never shrink (a
// per-frame rebuild allocates nothing once warm), the page-locked counters read back at each
// round trip, and the per-stage event timeline. Host-only (BuildScratch, build_run.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "primitives/common/cuda_resources.h"
#include "primitives/common/memory.h"
#include "renderer/accel/gpu/build_steps.h"
#include "renderer/accel/gpu/kdtree_build_gpu.h"
#include "renderer/accel/gpu/level_counts.h"

namespace srt::kdgpu {

// The tree's own arrays. A rebuild of a mesh with as many triangles as the last expects a tree
// about the last one's size: its arrays are allocated while the GPU still builds (cudaMalloc takes
// ~0.1 ms a pair on an H100), with room for a tree an eighth larger, and finalize writes them
// before it knows the size; a larger tree, or a new mesh, gets arrays after the round trip that
// tells its size. Nothing reserved outlives a build.
class TreeOutput {
 public:
  void reserve(uint32_t triangles) {
    // A build attempt that was redone (outgrown replay) keeps the arrays it reserved.
    if (reserved() || triangles != lastTriangles_ || last_.nodes == 0) return;
    const auto roomy = [](uint32_t n) { return n + n / 8 + 64; };
    room_ = {roomy(last_.nodes), roomy(last_.prims)};
    try {
      nodes_ = RawBuffer(MemorySpace::Cuda, size_t(room_.nodes) * sizeof(KdNode));
      prims_ = RawBuffer(MemorySpace::Cuda, size_t(room_.prims) * sizeof(uint32_t));
    } catch (const CudaError&) {  // no room for a guess: the exact arrays come after the round trip
      nodes_ = RawBuffer();
      prims_ = RawBuffer();
    }
  }
  bool reserved() const { return nodes_.data() != nullptr; }
  KdNode* nodes() const { return static_cast<KdNode*>(nodes_.data()); }
  uint32_t* prims() const { return static_cast<uint32_t*>(prims_.data()); }
  TreeSize capacity() const { return room_; }

  // The arrays of a tree of `size`: the reserved ones when it fits (true), else new ones.
  bool take(uint32_t triangles, TreeSize size, Buffer<KdNode>* nodes, Buffer<uint32_t>* prims) {
    lastTriangles_ = triangles;
    last_ = size;
    if (reserved() && size.nodes <= room_.nodes && size.prims <= room_.prims) {
      *nodes = Buffer<KdNode>(std::move(nodes_), size.nodes);
      *prims = Buffer<uint32_t>(std::move(prims_), size.prims);
      return true;
    }
    nodes_ = RawBuffer();
    prims_ = RawBuffer();
    *nodes = Buffer<KdNode>(MemorySpace::Cuda, size.nodes);
    *prims = Buffer<uint32_t>(MemorySpace::Cuda, size.prims);
    return false;
  }

 private:
  RawBuffer nodes_, prims_;
  TreeSize room_;
  uint32_t lastTriangles_ = 0;
  TreeSize last_;  // the last tree's size, and its mesh's triangles above
};

// Device array that grows (by half again) and keeps its first `keep` elements when it does.
template <typename T>
class DeviceArray {
 public:
  T* data() const { return buf_.data(); }
  T* reserve(size_t n, cudaStream_t stream, size_t keep = 0) {
    if (buf_.size() >= n) return data();
    SRT_CUDA_CHECK(cudaStreamSynchronize(stream));  // nothing in flight uses the old one
    Buffer<T> next(MemorySpace::Cuda, std::max<size_t>(n + n / 2, 64));
    if (keep > 0) {
      SRT_CUDA_CHECK(cudaMemcpyAsync(next.data(), buf_.data(), keep * sizeof(T),
                                     cudaMemcpyDeviceToDevice, stream));
      SRT_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    buf_ = std::move(next);
    return data();
  }

 private:
  Buffer<T> buf_;
};

// kLevels: the large levels as one graph launch (GpuKdLevels::Graph), not split by stage.
enum Stage {
  kSetup,
  kBounds,
  kBinning,
  kSplit,
  kCompaction,
  kLevels,
  kSmall,
  kFinalize,
  kIdle,
  kNumStages
};

// A timeline of events on the stream: the interval after each mark belongs to its stage. Host
// round trips are marked kIdle, so they count in the total only.
class StageTimer {
 public:
  void start(cudaStream_t stream) {
    stream_ = stream;
    marks_.clear();
  }
  // While a stream is captured into a graph nothing is recorded (events in a capture do not time).
  void pause(bool paused) { paused_ = paused; }
  void mark(Stage s) {
    if (paused_) return;
    if (marks_.size() == pool_.size()) pool_.emplace_back(cudaEventDefault);
    pool_[marks_.size()].record(stream_);
    marks_.push_back(s);
  }
  // After the stream is synchronised.
  void report(GpuKdBuildStats* stats) const {
    double ms[kNumStages] = {};
    double total = 0;
    for (size_t i = 0; i + 1 < marks_.size(); ++i) {
      const double t = CudaEvent::elapsedMs(pool_[i], pool_[i + 1]);
      ms[marks_[i]] += t;
      total += t;
    }
    stats->setupMs = ms[kSetup];
    stats->boundsMs = ms[kBounds];
    stats->binsMs = ms[kBinning];
    stats->splitMs = ms[kSplit];
    stats->compactionMs = ms[kCompaction];
    stats->smallNodeMs = ms[kSmall];
    stats->finalizeMs = ms[kFinalize];
    stats->levelsMs = ms[kLevels];
    stats->totalMs = total;
  }

 private:
  cudaStream_t stream_ = nullptr;
  std::vector<CudaEvent> pool_;
  std::vector<Stage> marks_;
  bool paused_ = false;
};

// The replayed level loop captured as a CUDA graph, and what it names: relaunched only while the
// arrays, the mesh, the stream and every level's caps are the same, and nothing else ran on the
// primitives since the capture (their scratch stays where the graph saw it).
struct LevelGraph {
  LevelGraph() = default;
  LevelGraph(const LevelGraph&) = delete;
  LevelGraph& operator=(const LevelGraph&) = delete;
  ~LevelGraph() { reset(); }
  void reset() {
    if (exec) cudaGraphExecDestroy(exec);  // no throw from a destructor
    exec = nullptr;
  }
  cudaGraphExec_t exec = nullptr;
  std::vector<uintptr_t> key;      // of the captured loop
  std::vector<uintptr_t> pending;  // of the last replay without a graph: the next alike captures
  bool unsupported = false;        // a capture failed: replay without graphs from now on
};

// The large levels' counts (entry l: level l; after the last level, the totals) and the overflow
// flag of a replayed build; read back in one piece before finalize, entry by entry with sync
// levels. A level is deeper than its parent, so there are at most kKdMaxDepth levels.
constexpr uint32_t kMaxLevelEntries = kKdMaxDepth + 2;
struct BuildState {
  uint32_t overflow;
  LevelCounts levels[kMaxLevelEntries];
};

// The device arrays of one build, named as the host reference's (host_reference.cpp).
struct BuildArrays {
  DeviceArray<BuildCounters> counters;
  DeviceArray<BuildState> state;
  DeviceArray<Ref> curRef, dRef, cRef;  // level references, doubled stream, child lists
  DeviceArray<Bounds3f> curBox, tight;  // the bounds reduction's input and output
  DeviceArray<uint32_t> curOwner, offsets;
  DeviceArray<int> partial, binCounts;  // the bin-count reduction's input and output
  DeviceArray<uint32_t> binOwner, binOffsets;
  DeviceArray<uint8_t> dKeep;
  DeviceArray<LargeNode> large;
  DeviceArray<LevelNode> levelIn, levelNext;
  DeviceArray<uint32_t> childRefs, childStart, handle;  // per child of a level
  DeviceArray<uint8_t> scanTemp;
  DeviceArray<Terminal> terms;
  DeviceArray<uint32_t> termTri;
  DeviceArray<Bounds3f> termBox;
  DeviceArray<KdNode> scratchNodes;
  DeviceArray<uint32_t> scratchRefs, termNodes, termRefs;
  DeviceArray<uint32_t> largeSize, largePrims, largeOffset, largePrimOffset, termOffset,
      termPrimOffset;
};

// What earlier levels left in the arrays a level grows (kept when they move).
struct LevelKeep {
  uint32_t nodes, large, terms, termRefs, refs;
};
// Every array a large level of `caps` uses (level_counts.h), at least (level_graph.cpp).
void reserveLevel(BuildArrays& a, const LevelCaps& caps, const LevelKeep& keep,
                  cudaStream_t stream);
// About what reserveLevel(caps) allocates, in bytes (before the arrays' growth slack).
size_t levelBytes(const LevelCaps& caps);

}  // namespace srt::kdgpu
