// GpuKdTreeBuilder: the host side of the GPU kd-tree build. It owns the scratch (grown, never
// shrunk, so a per-frame rebuild allocates nothing once warm), the selected segmented reduction
// and compaction primitive, and the per-stage CUDA events; the kernels are in large_nodes.cu,
// small_nodes.cu and finalize.cu, the per-element steps in build_common.h.
#include "renderer/accel/gpu/kdtree_build_gpu.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "primitives/compaction/compaction.h"
#include "primitives/reduction/reduction.h"
#include "renderer/accel/gpu/device_steps.h"

namespace srt {

void validateNumbers(const GpuKdBuildOptions& o);  // host_reference.cpp

namespace kdgpu {
namespace {

using Reducer = reduction::Reducer<Aabb, reduction::AabbUnion>;
using ReducerRegistry = reduction::Registry<Aabb, reduction::AabbUnion>;

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

// Page-locked home of the counters the host reads back at each round trip.
// Page-locked home of the counters the host reads back at each round trip (allocated on first
// use, so a builder can be made and its options checked without a device).
class PinnedCounters {
 public:
  PinnedCounters() = default;
  ~PinnedCounters() {
    if (p_) cudaFreeHost(p_);
  }
  PinnedCounters(const PinnedCounters&) = delete;
  PinnedCounters& operator=(const PinnedCounters&) = delete;
  BuildCounters* get() {
    if (!p_) {
      void* p = nullptr;
      SRT_CUDA_CHECK(cudaMallocHost(&p, sizeof(BuildCounters)));
      p_ = static_cast<BuildCounters*>(p);
    }
    return p_;
  }

 private:
  BuildCounters* p_ = nullptr;
};

enum Stage { kSetup, kBounds, kSplit, kCompaction, kSmall, kFinalize, kIdle, kNumStages };

// A timeline of events on the stream: the interval after each mark belongs to its stage. Host
// round trips are marked kIdle, so they count in the total only.
class StageTimer {
 public:
  ~StageTimer() {
    for (cudaEvent_t e : pool_) cudaEventDestroy(e);
  }
  void start(cudaStream_t stream) {
    stream_ = stream;
    marks_.clear();
  }
  void mark(Stage s) {
    if (marks_.size() == pool_.size()) {
      cudaEvent_t e;
      SRT_CUDA_CHECK(cudaEventCreate(&e));
      pool_.push_back(e);
    }
    SRT_CUDA_CHECK(cudaEventRecord(pool_[marks_.size()], stream_));
    marks_.push_back(s);
  }
  // After the stream is synchronised.
  void report(GpuKdBuildStats* stats) const {
    double ms[kNumStages] = {};
    double total = 0;
    for (size_t i = 0; i + 1 < marks_.size(); ++i) {
      float t = 0;
      SRT_CUDA_CHECK(cudaEventElapsedTime(&t, pool_[i], pool_[i + 1]));
      ms[marks_[i]] += t;
      total += t;
    }
    stats->setupMs = ms[kSetup];
    stats->boundsMs = ms[kBounds];
    stats->splitMs = ms[kSplit];
    stats->compactionMs = ms[kCompaction];
    stats->smallNodeMs = ms[kSmall];
    stats->finalizeMs = ms[kFinalize];
    stats->totalMs = total;
  }

 private:
  cudaStream_t stream_ = nullptr;
  std::vector<cudaEvent_t> pool_;
  std::vector<Stage> marks_;
};

}  // namespace

class BuildScratch {
 public:
  std::unique_ptr<Reducer> reducer;
  reduction::Layout layout = reduction::Layout::Owners;
  std::unique_ptr<compaction::Compactor> compactor;
  PinnedCounters host;
  StageTimer timer;
  DeviceArray<BuildCounters> counters;
  DeviceArray<Ref> curRef, dRef, cRef;  // level references, doubled stream, child lists
  DeviceArray<Aabb> curBox, tight;      // the reduction's input and output
  DeviceArray<uint32_t> curOwner, offsets;
  DeviceArray<uint8_t> dKeep, keepB;
  DeviceArray<LargeNode> large;
  DeviceArray<LevelNode> levelIn, levelNext;
  DeviceArray<uint32_t> childStart, handle;
  DeviceArray<ChildInfo> info;
  DeviceArray<ChildScan> scanIn, scanOut;
  DeviceArray<uint8_t> scanTemp;
  DeviceArray<Terminal> terms;
  DeviceArray<uint32_t> termTri;
  DeviceArray<Aabb> termBox;
  DeviceArray<KdNode> scratchNodes;
  DeviceArray<uint32_t> scratchRefs, termNodes, termRefs;
  DeviceArray<uint32_t> largeSize, largePrims, largeOffset, largePrimOffset, termOffset,
      termPrimOffset;

  void reduce(const Aabb* in, uint32_t count, Aabb* out, uint32_t segments, const uint32_t* owners,
              cudaStream_t stream) {
    reduction::Request<Aabb> r;
    r.in = in;
    r.count = count;
    r.out = out;
    r.numSegments = segments;
    r.stream = stream;
    if (layout == reduction::Layout::Offsets) {
      r.offsets = offsets.reserve(segments + 1, stream);
      reduction::offsetsFromOwners(owners, count, offsets.data(), segments, stream);
    } else {
      r.owners = owners;
    }
    reducer->reduce(r);
  }

  void compact(const uint8_t* keep, uint32_t count, const compaction::Field* fields, int numFields,
               uint32_t* numKept, cudaStream_t stream) {
    compaction::Request r;
    r.keep = keep;
    r.fields = fields;
    r.numFields = numFields;
    r.count = count;
    r.numKept = numKept;
    r.memory = MemorySpace::Cuda;
    r.stream = stream;
    compactor->compact(r);
  }

  void readBack(cudaStream_t stream) {
    timer.mark(kIdle);
    SRT_CUDA_CHECK(cudaMemcpyAsync(host.get(), counters.data(), sizeof(BuildCounters),
                                   cudaMemcpyDeviceToHost, stream));
    SRT_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
};

}  // namespace kdgpu

using namespace kdgpu;

void validate(const GpuKdBuildOptions& o) {
  validateNumbers(o);
  const reduction::Info* r = ReducerRegistry::global().find(o.segreduce, true);
  if (!r) ReducerRegistry::global().createSegmented(o.segreduce);  // throws, listing the names
  const compaction::Registry& reg = compaction::Registry::global();
  const compaction::Info* c = reg.find(compaction::Registry::nameOf(o.compaction));
  if (!c) reg.create(o.compaction);  // throws, listing the names
  if (c->device != compaction::Device::Cuda || !c->accepts_(MemorySpace::Cuda))
    throw std::invalid_argument("GpuKdBuildOptions: compaction '" + o.compaction +
                                "' does not run on CUDA memory");
  if (!c->ordered || !c->compacts)
    throw std::invalid_argument("GpuKdBuildOptions: compaction '" + o.compaction +
                                "' is not an ordered compaction (the child lists must stay sorted "
                                "by node)");
}

GpuKdTreeBuilder::GpuKdTreeBuilder(const GpuKdBuildOptions& options) : options_(options) {
  validate(options_);
  scratch_ = std::make_unique<BuildScratch>();
  scratch_->reducer = ReducerRegistry::global().createSegmented(options_.segreduce);
  scratch_->layout = ReducerRegistry::global().find(options_.segreduce, true)->layout;
  scratch_->compactor = compaction::Registry::global().create(options_.compaction);
}

GpuKdTreeBuilder::~GpuKdTreeBuilder() = default;
GpuKdTreeBuilder::GpuKdTreeBuilder(GpuKdTreeBuilder&&) noexcept = default;
GpuKdTreeBuilder& GpuKdTreeBuilder::operator=(GpuKdTreeBuilder&&) noexcept = default;

namespace {

// One empty leaf (no triangle, or none finite), as the CPU builder makes.
DeviceKdTree emptyTree(GpuKdBuildStats* stats) {
  stats->nodes = stats->leaves = 1;
  KdTree t;
  t.nodes.resize(1);
  t.nodes[0].initLeaf(0, 0);
  return DeviceKdTree(t, MemorySpace::Cuda);
}

compaction::Field field(const void* src, void* dst, uint32_t bytes) {
  compaction::Field f;
  f.src = src;
  f.dst = dst;
  f.bytes = bytes;
  return f;
}

}  // namespace

DeviceKdTree GpuKdTreeBuilder::build(const TriangleMeshView& mesh, cudaStream_t stream,
                                     GpuKdBuildStats* stats) {
  if (mesh.triangleCount > 0 && (!mesh.positions || !mesh.indices))
    throw std::invalid_argument("GpuKdTreeBuilder::build: mesh with " +
                                std::to_string(mesh.triangleCount) +
                                " triangles but no positions or indices");
  if (mesh.triangleCount > (kTerminalBit >> 3))
    throw std::invalid_argument("GpuKdTreeBuilder::build: " + std::to_string(mesh.triangleCount) +
                                " triangles (at most 2^28)");
  BuildScratch& s = *scratch_;
  const GpuKdBuildOptions& o = options_;
  GpuKdBuildStats local;
  GpuKdBuildStats& st = stats ? *stats : local;
  st = GpuKdBuildStats();
  if (mesh.triangleCount == 0) return emptyTree(&st);
  BuildCounters* counters = s.counters.reserve(1, stream);
  const BuildCounters& host = *s.host.get();
  s.timer.start(stream);

  // Setup: boxes of the finite triangles.
  s.timer.mark(kSetup);
  const uint32_t N = mesh.triangleCount;
  launchTriangleBoxes(mesh, s.dRef.reserve(N, stream), s.dKeep.reserve(N, stream), stream);
  {
    const compaction::Field f = field(s.dRef.data(), s.curRef.reserve(N, stream), sizeof(Ref));
    s.compact(s.dKeep.data(), N, &f, 1, &counters->numValid, stream);
  }
  s.readBack(stream);
  const uint32_t V = host.numValid;
  if (V == 0) return emptyTree(&st);
  const int maxDepth = gpuKdMaxDepth(o, V);
  const SahParams sah{o.traversalCost, o.intersectCost, o.emptyBonus};
  s.timer.mark(kBounds);
  launchUnpack(s.curRef.data(), V, s.curBox.reserve(V, stream), s.curOwner.reserve(V, stream),
               stream);
  s.reduce(s.curBox.data(), V, &counters->rawBounds, 1, s.curOwner.data(), stream);
  s.timer.mark(kSetup);
  launchWidenBoxes(counters, s.curRef.data(), V, stream);

  // Large-node stage.
  std::vector<std::pair<uint32_t, uint32_t>> levels;  // first large node, count
  uint32_t base = 0, numTerms = 0, numTermRefs = 0;
  if (V <= uint32_t(o.smallNodeThreshold) || maxDepth == 0) {
    s.timer.mark(kBounds);
    launchUnpack(s.curRef.data(), V, s.curBox.data(), s.curOwner.data(), stream);
    s.reduce(s.curBox.data(), V, s.tight.reserve(1, stream), 1, s.curOwner.data(), stream);
    s.timer.mark(kSplit);
    launchRootTerminal(s.tight.data(), s.curRef.data(), V, s.terms.reserve(1, stream),
                       s.termTri.reserve(V, stream), s.termBox.reserve(V, stream), stream);
    numTerms = 1;
    numTermRefs = V;
  } else {
    const LevelNode root{emptyAabb(), 0};
    SRT_CUDA_CHECK(cudaMemcpyAsync(s.levelIn.reserve(1, stream), &root, sizeof(root),
                                   cudaMemcpyHostToDevice, stream));
    uint32_t count = V, A = 1;
    while (A > 0) {
      const uint32_t C = 2 * A;      // children
      const uint32_t D = 2 * count;  // the doubled reference stream
      const uint32_t nextBase = base + A;
      // Both level arrays get the same capacity, so which one is "next" (they swap every level)
      // never decides whether a rebuild allocates.
      s.levelIn.reserve(C, stream, A);
      s.levelNext.reserve(C, stream);
      s.timer.mark(kBounds);
      launchUnpack(s.curRef.data(), count, s.curBox.reserve(count, stream),
                   s.curOwner.reserve(count, stream), stream);
      s.reduce(s.curBox.data(), count, s.tight.reserve(A, stream), A, s.curOwner.data(), stream);
      s.timer.mark(kSplit);
      LargeNode* level = s.large.reserve(nextBase, stream, base) + base;
      launchPlanNodes(s.levelIn.data(), s.tight.data(), A, o.emptySpaceRatio, maxDepth, level,
                      stream);
      launchRouteReferences(mesh, counters, s.curRef.data(), count, level, A,
                            s.dRef.reserve(D, stream), s.dKeep.reserve(D, stream), stream);
      s.timer.mark(kCompaction);
      {
        const compaction::Field f = field(s.dRef.data(), s.cRef.reserve(D, stream), sizeof(Ref));
        s.compact(s.dKeep.data(), D, &f, 1, &counters->kept, stream);
      }
      s.timer.mark(kSplit);
      launchChildStarts(s.cRef.data(), &counters->kept, D, C, s.childStart.reserve(C + 1, stream),
                        stream);
      const int childDepthLimit = count > kMaxReferenceGrowth * V ? 0 : maxDepth;
      launchClassifyChildren(level, A, s.childStart.data(), uint32_t(o.smallNodeThreshold),
                             childDepthLimit, s.info.reserve(C, stream),
                             s.scanIn.reserve(C, stream), stream);
      const size_t scanBytes = scanChildrenTempBytes(C);
      void* scanTemp = s.scanTemp.reserve(scanBytes, stream);
      size_t tempBytes = scanBytes;
      scanChildren(s.scanIn.data(), s.scanOut.reserve(C, stream), C, &scanTemp, &tempBytes,
                   counters, stream);
      Terminal* terms = s.terms.reserve(size_t(numTerms) + C, stream, numTerms);
      uint32_t* termTri = s.termTri.reserve(size_t(numTermRefs) + D, stream, numTermRefs);
      Aabb* termBox = s.termBox.reserve(size_t(numTermRefs) + D, stream, numTermRefs);
      launchAssignChildren(level, A, s.info.data(), s.scanOut.data(), nextBase, numTerms,
                           numTermRefs, s.levelNext.data(), terms, s.handle.reserve(C, stream),
                           stream);
      launchRouteToChildren(s.cRef.data(), &counters->kept, D, s.childStart.data(), s.handle.data(),
                            nextBase, terms, termTri, termBox, s.keepB.reserve(D, stream), stream);
      s.timer.mark(kCompaction);
      {
        const compaction::Field f = field(s.cRef.data(), s.curRef.reserve(D, stream), sizeof(Ref));
        s.compact(s.keepB.data(), D, &f, 1, &counters->nextRefs, stream);
      }
      s.readBack(stream);
      levels.push_back({base, A});
      base = nextBase;
      numTerms += host.newTerms;
      numTermRefs += host.newTermRefs;
      count = host.nextRefs;
      A = host.nextLarge;
      if (size_t(numTermRefs) * kScratchPerRef + numTerms > kKdMaxField)
        throw std::length_error("GpuKdTreeBuilder: scratch would pass 2^30 entries");
      std::swap(s.levelIn, s.levelNext);
    }
  }

  // Small-node stage.
  s.timer.mark(kSmall);
  const size_t scratchRefs = size_t(kScratchPerRef) * numTermRefs;
  launchSmallNodes(s.terms.data(), numTerms, s.termTri.data(), s.termBox.data(), maxDepth, mesh,
                   counters, sah, s.scratchNodes.reserve(scratchRefs + numTerms, stream),
                   s.scratchRefs.reserve(scratchRefs + 1, stream),
                   s.termNodes.reserve(numTerms, stream), s.termRefs.reserve(numTerms, stream),
                   stream);

  // Finalize.
  s.timer.mark(kFinalize);
  const size_t numLarge = std::max<size_t>(base, 1);
  uint32_t* largeSize = s.largeSize.reserve(numLarge, stream);
  uint32_t* largePrims = s.largePrims.reserve(numLarge, stream);
  uint32_t* largeOffset = s.largeOffset.reserve(numLarge, stream);
  uint32_t* largePrimOffset = s.largePrimOffset.reserve(numLarge, stream);
  uint32_t* termOffset = s.termOffset.reserve(numTerms, stream);
  uint32_t* termPrimOffset = s.termPrimOffset.reserve(numTerms, stream);
  for (size_t l = levels.size(); l-- > 0;)
    launchSubtreeSizes(s.large.data(), levels[l].first, levels[l].second, s.termNodes.data(),
                       s.termRefs.data(), largeSize, largePrims, stream);
  launchPlaceRoot(levels.empty(), s.large.data(), s.terms.data(), s.termNodes.data(),
                  s.termRefs.data(), largeSize, largePrims, largeOffset, largePrimOffset,
                  termOffset, termPrimOffset, counters, stream);
  s.readBack(stream);
  const uint32_t totalNodes = host.totalNodes, totalPrims = host.totalPrims;
  const Bounds3f bounds = toBounds(host.rootCell);
  Buffer<KdNode> nodes(MemorySpace::Cuda, totalNodes);
  Buffer<uint32_t> prims(MemorySpace::Cuda, totalPrims);
  s.timer.mark(kFinalize);
  for (const auto& level : levels)
    launchPlaceLarge(s.large.data(), level.first, level.second, s.termNodes.data(),
                     s.termRefs.data(), largeSize, largePrims, largeOffset, largePrimOffset,
                     termOffset, termPrimOffset, nodes.data(), stream);
  launchPlaceTerminals(s.terms.data(), numTerms, s.termNodes.data(), s.termRefs.data(), termOffset,
                       termPrimOffset, s.scratchNodes.data(), s.scratchRefs.data(), nodes.data(),
                       prims.data(), stream);
  s.timer.mark(kIdle);
  SRT_CUDA_CHECK(cudaStreamSynchronize(stream));
  s.timer.report(&st);
  st.nodes = totalNodes;
  st.leaves = (size_t(totalNodes) + 1) / 2;
  st.largeNodeLevels = levels.size();
  st.largeNodes = base;
  st.terminals = numTerms;
  st.primIndices = totalPrims;
  return DeviceKdTree(std::move(nodes), std::move(prims), bounds);
}

KdTree GpuKdTreeBuilder::buildToHost(const TriangleMeshView& mesh, cudaStream_t stream,
                                     GpuKdBuildStats* stats) {
  const DeviceKdTree d = build(mesh, stream, stats);
  const KdTreeView v = d.view(mesh);
  KdTree t;
  t.nodes.resize(d.nodeCount());
  t.primIndices.resize((d.bytes() - d.nodeCount() * sizeof(KdNode)) / sizeof(uint32_t));
  if (!t.nodes.empty())
    SRT_CUDA_CHECK(cudaMemcpy(t.nodes.data(), v.nodes, t.nodes.size() * sizeof(KdNode),
                              cudaMemcpyDeviceToHost));
  if (!t.primIndices.empty())
    SRT_CUDA_CHECK(cudaMemcpy(t.primIndices.data(), v.primIndices,
                              t.primIndices.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  t.bounds = d.bounds();
  t.buildSeconds = stats ? stats->totalMs * 1e-3 : 0.0;
  return t;
}

}  // namespace srt
