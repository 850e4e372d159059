// GpuKdTreeBuilder: the host side of the GPU kd-tree build. BuildScratch owns the scratch
// (build_scratch.h), the selected segmented reductions (boxes for node bounds, ints for bin
// counts) and compaction, and runs the stages in order on the stream; the kernels are in
// large_nodes.cu, binned_sah.cu, small_nodes.cu and finalize.cu, their per-thread bodies in
// build_steps.h and finalize_steps.h. host_reference.cpp runs the same stages on the host.
#include "renderer/accel/gpu/kdtree_build_gpu.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "primitives/compaction/compaction.h"
#include "primitives/reduction/reduction.h"
#include "renderer/accel/gpu/build_scratch.h"
#include "renderer/accel/gpu/device_steps.h"
#include "renderer/accel/gpu/level_graph.h"
#include "renderer/accel/gpu/level_plan.h"
#include "renderer/accel/gpu/segmented_boxes.h"

namespace srt {
namespace kdgpu {
namespace {

using IntReducers = reduction::Registry<int, reduction::Sum<int>>;

compaction::Field field(const void* src, void* dst, uint32_t bytes) {
  compaction::Field f;
  f.src = src;
  f.dst = dst;
  f.bytes = bytes;
  return f;
}

// One empty leaf (no triangle, or none finite), as the CPU builder makes.
DeviceKdTree emptyTree(GpuKdBuildStats* stats) {
  stats->nodes = stats->leaves = 1;
  KdTree t;
  t.nodes.resize(1);
  t.nodes[0].initLeaf(0, 0);
  return DeviceKdTree(t, MemorySpace::Cuda);
}

}  // namespace

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
  DeviceKdTree build(const TriangleMeshView& mesh, cudaStream_t stream, GpuKdBuildStats& st) {
    mesh_ = mesh;
    stream_ = stream;
    if (!host_.data()) {
      host_ = PinnedBuffer<BuildCounters>(MemorySpace::Cuda, 1);
      hostState_ = PinnedBuffer<BuildState>(MemorySpace::Cuda, 1);
    }
    counters_ = a_.counters.reserve(1, stream);
    state_ = a_.state.reserve(1, stream);
    timer_.start(stream);
    for (bool mayReplay = o_.levels != GpuKdLevels::Sync;; mayReplay = false) {
      // A rebuild of a mesh as large as the last assumes its count of valid triangles: no round
      // trip after setup; finalize checks the count and a wrong guess builds again.
      validAssumed_ = mayReplay && plan_.numLevels() > 0 && plan_.triangles == mesh_.triangleCount;
      if (!setup()) {
        plan_ = {};
        return emptyTree(&st);
      }
      const bool replay = mayReplay && canReplay();
      st.replayed = st.replayed || replay;
      graphed_ = false;
      if (std::optional<DeviceKdTree> tree = runStages(replay)) {
        timer_.report(&st);
        const LevelCounts& totals = hostState_[0].levels[plan_.numLevels()];
        st.largeNodeLevels = plan_.numLevels();
        st.largeNodes = totals.base;
        st.terminals = totals.termBase;
        st.graphed = graphed_;
        st.outputReserved = outputReserved_;
        return std::move(*tree);
      }
      st.retried = true;
    }
  }

 private:
  const BuildCounters& host() const { return host_[0]; }

  bool rootIsTerminal() const {
    return V_ <= uint32_t(smallNodeThresholdFor(o_)) || maxDepth_ == 0;
  }

  // The previous build had as many triangles and valid ones, and large levels.
  bool canReplay() const {
    if (rootIsTerminal() || plan_.numLevels() == 0 || plan_.triangles != mesh_.triangleCount ||
        plan_.valid != V_)
      return false;
    const LevelCounts& t = plan_.totals();
    const uint64_t refs = withSlack(t.termRefBase, o_.replaySlack);
    return refs * uint64_t(o_.scratchPerRef) + withSlack(t.termBase, o_.replaySlack) <= kKdMaxField;
  }

  // Empty when a replayed build outgrew its launches.
  std::optional<DeviceKdTree> runStages(bool replay) {
    levels_.clear();
    if (!replay || o_.levels != GpuKdLevels::Graph) {  // the primitives' scratch may move
      graph_.reset();
      graph_.pending.clear();
    }
    SRT_CUDA_CHECK(cudaMemsetAsync(&state_->overflow, 0, sizeof(uint32_t), stream_));
    if (rootIsTerminal())
      rootTerminal();
    else if (replay)
      replayLargeStage();
    else
      syncLargeStage();
    smallStage();
    return finalize();
  }

  // `offsets` may be null: made from the owners when the variant reads offsets. outHoldsIdentity:
  // out[] holds empty boxes already (Request::outHoldsIdentity).
  void reduceBoxes(const Bounds3f* in, uint32_t count, Bounds3f* out, uint32_t segments,
                   const uint32_t* owners, const uint32_t* offsets = nullptr,
                   bool outHoldsIdentity = false) {
    if (boxReducer_.layout() != reduction::Layout::Offsets) {
      boxReducer_.reduce(in, count, out, segments, owners, nullptr, stream_, outHoldsIdentity);
      return;
    }
    if (!offsets) {
      offsets = a_.offsets.reserve(segments + 1, stream_);
      reduction::offsetsFromOwners(owners, count, a_.offsets.data(), segments, stream_);
    }
    boxReducer_.reduce(in, count, out, segments, nullptr, offsets, stream_, outHoldsIdentity);
  }

  void compact(const uint8_t* keep, uint32_t count, const void* src, void* dst, uint32_t* numKept) {
    const compaction::Field f = field(src, dst, sizeof(Ref));
    compaction::Request r;
    r.keep = keep;
    r.fields = &f;
    r.numFields = 1;
    r.count = count;
    r.numKept = numKept;
    r.memory = MemorySpace::Cuda;
    r.stream = stream_;
    compactor_->compact(r);
  }

  void readBack() {
    timer_.mark(kIdle);
    SRT_CUDA_CHECK(cudaMemcpyAsync(host_.data(), counters_, sizeof(BuildCounters),
                                   cudaMemcpyDeviceToHost, stream_));
    SRT_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  // Boxes of the finite triangles, compacted; the clip epsilon from their bounds. False when no
  // triangle is finite.
  bool setup() {
    const uint32_t N = mesh_.triangleCount;
    timer_.mark(kSetup);
    launchTriangleBoxes(mesh_, a_.dRef.reserve(N, stream_), a_.dKeep.reserve(N, stream_), stream_);
    compact(a_.dKeep.data(), N, a_.dRef.data(), a_.curRef.reserve(N, stream_),
            &counters_->numValid);
    if (validAssumed_) {
      V_ = plan_.valid;
    } else {
      readBack();
      V_ = host().numValid;
    }
    if (V_ == 0) return false;
    maxDepth_ = gpuKdMaxDepth(o_, V_);
    timer_.mark(kBounds);
    launchUnpack(a_.curRef.data(), V_, a_.curBox.reserve(V_, stream_),
                 a_.curOwner.reserve(V_, stream_), stream_);
    reduceBoxes(a_.curBox.data(), V_, &counters_->rawBounds, 1, a_.curOwner.data());
    timer_.mark(kSetup);
    launchWidenBoxes(counters_, a_.curRef.data(), V_, stream_);
    return true;
  }

  void rootTerminal() {
    timer_.mark(kBounds);
    launchUnpack(a_.curRef.data(), V_, a_.curBox.data(), a_.curOwner.data(), stream_);
    reduceBoxes(a_.curBox.data(), V_, a_.tight.reserve(1, stream_), 1, a_.curOwner.data());
    timer_.mark(kSplit);
    launchRootTerminal(a_.tight.data(), a_.curRef.data(), V_, a_.terms.reserve(1, stream_),
                       a_.termTri.reserve(V_, stream_), a_.termBox.reserve(V_, stream_), stream_);
    setLevel(0, {0u, 0u, 0u, 0u, 1u, V_});
    capLarge_ = 0;
    capTerms_ = 1;
    capTermRefs_ = V_;
  }

  // Level l's counts from the host (the root level, or the root terminal's totals); async from
  // page-locked memory, which nothing writes again before the stream's next synchronisation.
  void setLevel(uint32_t l, const LevelCounts& c) {
    hostState_[0].levels[l] = c;
    SRT_CUDA_CHECK(cudaMemcpyAsync(&state_->levels[l], &hostState_[0].levels[l], sizeof(c),
                                   cudaMemcpyHostToDevice, stream_));
  }
  void readLevel(uint32_t l) {
    timer_.mark(kIdle);
    SRT_CUDA_CHECK(cudaMemcpyAsync(&hostState_[0].levels[l], &state_->levels[l],
                                   sizeof(LevelCounts), cudaMemcpyDeviceToHost, stream_));
    SRT_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  void uploadRoot() {
    const LevelNode root{emptyBounds(), 0, 0, V_, 0, chunksOf(V_)};
    SRT_CUDA_CHECK(cudaMemcpyAsync(a_.levelIn.reserve(1, stream_), &root, sizeof(root),
                                   cudaMemcpyHostToDevice, stream_));
    setLevel(0, {1u, V_, chunksOf(V_), 0u, 0u, 0u});
  }

  // The sync levels grow their arrays as the counts come in, and each growth waits for the
  // device, allocates and frees: before them, a plausible largest level (firstBuildCaps) is
  // reserved at once where that takes at most a quarter of the free device memory.
  void reservePlausibleLevel() {
    const LevelCaps c = firstBuildCaps(V_, uint32_t(smallNodeThresholdFor(o_)));
    size_t freeBytes = 0, totalBytes = 0;
    if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess) {
      (void)cudaGetLastError();
      return;
    }
    if (levelBytes(c) / 2 * 3 > freeBytes / 4) return;  // with the arrays' growth slack
    reserveLevel(a_, c, {0, 0, 0, 0, V_}, stream_);
    boxReducer_.reserve(c.refs, c.nodes);
    intReducer_->reserve(uint32_t(kBinCounters) * c.chunks, uint32_t(kBinCounters) * c.nodes);
    compactor_->reserve(2 * c.refs);
  }

  // One round trip a level: its counts size the next level's launches exactly.
  void syncLargeStage() {
    reservePlausibleLevel();
    uploadRoot();
    LevelCounts cur = hostState_[0].levels[0];
    for (uint32_t l = 0; cur.nodes > 0; ++l) {
      if (l + 1 >= kMaxLevelEntries) throw std::logic_error("GpuKdTreeBuilder: too many levels");
      const LevelCaps caps = exactCaps(cur);
      reserveLevel(a_, caps, {cur.nodes, cur.base, cur.termBase, cur.termRefBase, cur.refs},
                   stream_);
      largeLevel(l, caps);
      readLevel(l + 1);
      cur = hostState_[0].levels[l + 1];
      if (size_t(cur.termRefBase) * size_t(o_.scratchPerRef) + cur.termBase > kKdMaxField)
        throw std::length_error("GpuKdTreeBuilder: scratch would pass 2^30 entries");
      std::swap(a_.levelIn, a_.levelNext);
    }
    capLarge_ = cur.base;
    capTerms_ = cur.termBase;
    capTermRefs_ = cur.termRefBase;
  }

  // No round trip: the previous build's levels plus slack, every array reserved up front.
  void replayLargeStage() {
    const ReplayCaps r = replayCaps(plan_, o_.replaySlack);
    reserveLevel(a_, r.max, {0, 0, 0, 0, V_}, stream_);
    uploadRoot();
    if (o_.levels == GpuKdLevels::Graph && !graph_.unsupported)
      graphLevels(r);
    else
      replayLevels(r);
    capLarge_ = r.max.large;
    capTerms_ = r.smallTerms;
    capTermRefs_ = r.smallRefs;
  }

  // The level arrays swap every level and are swapped back after an odd count, so each replay
  // (and a graph of it) reads the root from the same array.
  void replayLevels(const ReplayCaps& r) {
    for (uint32_t l = 0; l < r.levels.size(); ++l) {
      largeLevel(l, r.levels[l]);
      std::swap(a_.levelIn, a_.levelNext);
    }
    if (r.levels.size() % 2) std::swap(a_.levelIn, a_.levelNext);
  }

  // The loop as a graph: relaunched when its key repeats, captured at the second alike replay
  // (the first may still grow the primitives' scratch, which a capture cannot do).
  void graphLevels(const ReplayCaps& r) {
    std::vector<uintptr_t> key = levelGraphKey(a_, mesh_, V_, counters_, state_, r.levels);
    if (!graph_.exec || key != graph_.key) {
      graph_.reset();
      if (key != graph_.pending) {
        graph_.pending = std::move(key);
        replayLevels(r);
        return;
      }
      if (!captureStream_.get()) captureStream_ = OwnedStream::nonBlocking();
      const uint32_t* levelIn = reinterpret_cast<const uint32_t*>(a_.levelIn.data());
      const cudaStream_t stream = stream_;
      stream_ = captureStream_.get();
      timer_.pause(true);
      const bool captured = captureLevelGraph(graph_, key, stream_, [&] { replayLevels(r); });
      timer_.pause(false);
      stream_ = stream;
      if (!captured) {  // nothing ran: the loop again, enqueued
        if (reinterpret_cast<const uint32_t*>(a_.levelIn.data()) != levelIn)
          std::swap(a_.levelIn, a_.levelNext);
        levels_.clear();
        replayLevels(r);
        return;
      }
    }
    timer_.mark(kLevels);
    launchLevelGraph(graph_, stream_);
    levels_ = r.levels;
    graphed_ = true;
  }

  // Node bounds, then bin counts (chunk histograms summed by the int segmented reduction), then
  // each node's cuts and binned-SAH split. The reductions run over the caps (padding included).
  void planLevel(const LevelArgs& a) {
    const LevelCaps& caps = a.caps;
    timer_.mark(kBounds);
    launchUnpackLevel(a, a_.curRef.data(), a_.curBox.data(), a_.curOwner.data(), a_.levelIn.data(),
                      a_.offsets.data(),
                      {a_.tight.data(), a_.binCounts.data(), a_.childRefs.data()}, stream_);
    reduceBoxes(a_.curBox.data(), caps.refs, a_.tight.data(), caps.nodes, a_.curOwner.data(),
                a_.offsets.data(), true);
    timer_.mark(kBinning);
    const size_t K = kBinCounters;
    const BinLayout layout{a_.partial.data(), a_.binOwner.data(), a_.binOffsets.data()};
    launchBinChunks(a, a_.levelIn.data(), a_.tight.data(), a_.curRef.data(), o_.emptySpaceRatio,
                    maxDepth_, layout, stream_);
    reduction::Request<int> r;
    r.in = layout.partial;
    r.count = uint32_t(K * caps.chunks);
    r.out = a_.binCounts.data();
    r.numSegments = uint32_t(K * caps.nodes);
    r.stream = stream_;
    r.outHoldsIdentity = true;  // zeroed by the unpacking pass
    if (intLayout_ == reduction::Layout::Offsets)
      r.offsets = layout.offsets;
    else
      r.owners = layout.owners;
    intReducer_->reduce(r);
    timer_.mark(kSplit);
    launchChooseSplits(a, a_.levelIn.data(), a_.tight.data(), a_.binCounts.data(),
                       o_.emptySpaceRatio, maxDepth_, sah(), o_.splitPerWarp, a_.large.data(),
                       stream_);
  }

  // Large level l: plan, route and compact the child lists, classify the children, move the
  // terminals' references out and the large children's to level l + 1 (whose counts the
  // kernels write on the device).
  void largeLevel(uint32_t l, const LevelCaps& caps) {
    const LevelArgs a{&state_->levels[l], &state_->levels[l + 1], caps, &state_->overflow};
    const uint32_t C = 2 * caps.nodes, D = 2 * caps.refs;
    planLevel(a);
    launchRouteReferences(a, mesh_, counters_, a_.curRef.data(), a_.large.data(), o_.streamingClip,
                          o_.largeSharedClip, a_.dRef.data(), a_.dKeep.data(), a_.childRefs.data(),
                          stream_);
    timer_.mark(kCompaction);
    compact(a_.dKeep.data(), D, a_.dRef.data(), a_.cRef.data(), &counters_->kept);
    timer_.mark(kSplit);
    classifyAndAssignChildren(a, counters_, a_.large.data(), a_.childRefs.data(),
                              uint32_t(smallNodeThresholdFor(o_)), maxDepth_, a_.levelNext.data(),
                              a_.terms.data(), a_.handle.data(), a_.childStart.data(),
                              a_.scanTemp.data(), childScanTempBytes(C), stream_);
    launchRouteToChildren(a, a_.cRef.data(), &counters_->kept, a_.childStart.data(),
                          a_.handle.data(), a_.terms.data(), a_.levelNext.data(), a_.termTri.data(),
                          a_.termBox.data(), a_.curRef.data(), stream_);
    levels_.push_back(caps);
  }

  // The terminals after the last large level (its counts' totals), up to the caps.
  void smallStage() {
    timer_.mark(kSmall);
    const size_t refs = size_t(o_.scratchPerRef) * capTermRefs_;
    launchSmallNodes(a_.terms.data(), &state_->levels[levels_.size()], capTerms_, capTermRefs_,
                     &state_->overflow, a_.termTri.data(), a_.termBox.data(), maxDepth_, mesh_,
                     counters_, sah(), smallVariant(),
                     a_.scratchNodes.reserve(refs + capTerms_, stream_),
                     a_.scratchRefs.reserve(refs + 1, stream_),
                     a_.termNodes.reserve(std::max<size_t>(capTerms_, 1), stream_),
                     a_.termRefs.reserve(std::max<size_t>(capTerms_, 1), stream_), stream_);
  }

  // Subtree sizes bottom-up and the root, one round trip for the tree's size (and the levels'
  // counts), every node written depth-first. A rebuild writes into arrays reserved from the last
  // tree's size before that round trip, and only a tree too large for them is written again after
  // it. Empty when the build overflowed.
  std::optional<DeviceKdTree> finalize() {
    timer_.mark(kFinalize);
    const FinalizeArrays fa = finalizeArrays();
    const uint32_t numLevels = uint32_t(levels_.size());
    uint32_t maxNodes = 0;
    for (const LevelCaps& c : levels_) maxNodes = std::max(maxNodes, c.nodes);
    launchSubtreeSizes(state_->levels, numLevels, maxNodes, &state_->overflow, fa, counters_,
                       stream_);
    const uint32_t placeBlocks = numLevels > 0 ? placeLargeBlocks(maxNodes) : 0;
    output_.reserve(mesh_.triangleCount);  // cudaMalloc while the GPU works
    if (output_.reserved())
      place(fa, placeBlocks, output_.nodes(), output_.prims(), output_.capacity());
    timer_.mark(kIdle);
    SRT_CUDA_CHECK(cudaMemcpyAsync(host_.data(), counters_, sizeof(BuildCounters),
                                   cudaMemcpyDeviceToHost, stream_));
    SRT_CUDA_CHECK(cudaMemcpyAsync(hostState_.data(), state_, sizeof(BuildState),
                                   cudaMemcpyDeviceToHost, stream_));
    SRT_CUDA_CHECK(cudaStreamSynchronize(stream_));
    if (hostState_[0].overflow || (validAssumed_ && host().numValid != V_)) return std::nullopt;
    updatePlan();
    Buffer<KdNode> nodes;
    Buffer<uint32_t> prims;
    const TreeSize size{host().totalNodes, host().totalPrims};
    outputReserved_ = output_.take(mesh_.triangleCount, size, &nodes, &prims);
    if (!outputReserved_) {
      timer_.mark(kFinalize);
      place(fa, placeBlocks, nodes.data(), prims.data(), size);
      timer_.mark(kIdle);
      SRT_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    return DeviceKdTree(std::move(nodes), std::move(prims), canonical(host().rootCell));
  }

  FinalizeArrays finalizeArrays() {
    const size_t numLarge = std::max<size_t>(capLarge_, 1), numTerms = std::max(capTerms_, 1u);
    FinalizeArrays fa;
    fa.large = a_.large.data();
    fa.terms = a_.terms.data();
    fa.termNodes = a_.termNodes.data();
    fa.termRefs = a_.termRefs.data();
    fa.largeSize = a_.largeSize.reserve(numLarge, stream_);
    fa.largePrims = a_.largePrims.reserve(numLarge, stream_);
    fa.largeOffset = a_.largeOffset.reserve(numLarge, stream_);
    fa.largePrimOffset = a_.largePrimOffset.reserve(numLarge, stream_);
    fa.termOffset = a_.termOffset.reserve(numTerms, stream_);
    fa.termPrimOffset = a_.termPrimOffset.reserve(numTerms, stream_);
    return fa;
  }

  // The large nodes and the terminals' subtrees into arrays of `room`; nothing when the tree
  // (its size in counters_) is larger.
  void place(const FinalizeArrays& fa, uint32_t placeBlocks, KdNode* nodes, uint32_t* prims,
             TreeSize room) {
    const uint32_t* overflow = &state_->overflow;
    launchPlaceLarge(state_->levels, uint32_t(levels_.size()), placeBlocks, overflow, counters_,
                     room, fa, nodes, stream_);
    launchPlaceTerminals(&state_->levels[levels_.size()], std::max(capTerms_, 1u), overflow,
                         counters_, room, fa, a_.scratchNodes.data(), a_.scratchRefs.data(),
                         uint32_t(o_.scratchPerRef), nodes, prims, stream_);
  }

  // The levels this build ran (up to the first without nodes, whose bases are the totals).
  void updatePlan() {
    const LevelCounts* levels = hostState_[0].levels;
    uint32_t n = 0;
    while (n < levels_.size() && levels[n].nodes > 0) ++n;
    plan_.triangles = mesh_.triangleCount;
    plan_.valid = V_;
    plan_.levels.assign(levels, levels + n + 1);
  }

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

}  // namespace kdgpu

GpuKdTreeBuilder::GpuKdTreeBuilder(const GpuKdBuildOptions& options)
    : options_(withEnvironment(options)) {
  validate(options_);
  scratch_ = std::make_unique<kdgpu::BuildScratch>(options_);
}

GpuKdTreeBuilder::~GpuKdTreeBuilder() = default;
GpuKdTreeBuilder::GpuKdTreeBuilder(GpuKdTreeBuilder&&) noexcept = default;
GpuKdTreeBuilder& GpuKdTreeBuilder::operator=(GpuKdTreeBuilder&&) noexcept = default;

DeviceKdTree GpuKdTreeBuilder::build(const TriangleMeshView& mesh, cudaStream_t stream,
                                     GpuKdBuildStats* stats) {
  if (mesh.triangleCount > 0 && (!mesh.positions || !mesh.indices))
    throw std::invalid_argument("GpuKdTreeBuilder::build: mesh with " +
                                std::to_string(mesh.triangleCount) +
                                " triangles but no positions or indices");
  if (mesh.triangleCount > (kdgpu::kTerminalBit >> 3))
    throw std::invalid_argument("GpuKdTreeBuilder::build: " + std::to_string(mesh.triangleCount) +
                                " triangles (at most 2^28)");
  GpuKdBuildStats local;
  GpuKdBuildStats& st = stats ? *stats : local;
  st = GpuKdBuildStats();
  if (mesh.triangleCount == 0) return kdgpu::emptyTree(&st);
  DeviceKdTree tree = scratch_->build(mesh, stream, st);
  st.nodes = tree.nodeCount();
  st.leaves = (st.nodes + 1) / 2;
  st.primIndices = (tree.bytes() - st.nodes * sizeof(KdNode)) / sizeof(uint32_t);
  return tree;
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
