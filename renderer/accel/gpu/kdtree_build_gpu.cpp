// GpuKdTreeBuilder: the host side of the GPU kd-tree build. BuildScratch owns the scratch
// (build_scratch.h), the selected segmented reductions (boxes for node bounds, ints for bin
// counts) and compaction, and runs the stages in order on the stream; the kernels are in
// large_nodes.cu, binned_sah.cu, small_nodes.cu and finalize.cu, their per-thread bodies in
// build_steps.h and finalize_steps.h. host_reference.cpp runs the same stages on the host.
#include "renderer/accel/gpu/kdtree_build_gpu.h"

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "primitives/compaction/compaction.h"
#include "primitives/reduction/reduction.h"
#include "renderer/accel/gpu/build_scratch.h"
#include "renderer/accel/gpu/device_steps.h"
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

  DeviceKdTree build(const TriangleMeshView& mesh, cudaStream_t stream, GpuKdBuildStats& st) {
    mesh_ = mesh;
    stream_ = stream;
    if (!host_.data()) host_ = PinnedBuffer<BuildCounters>(MemorySpace::Cuda, 1);
    counters_ = a_.counters.reserve(1, stream);
    levels_.clear();
    base_ = numTerms_ = numTermRefs_ = 0;
    timer_.start(stream);
    if (!setup()) return emptyTree(&st);
    if (V_ <= uint32_t(o_.smallNodeThreshold) || maxDepth_ == 0)
      rootTerminal();
    else
      largeStage();
    smallStage();
    DeviceKdTree tree = finalize();
    timer_.report(&st);
    st.largeNodeLevels = levels_.size();
    st.largeNodes = base_;
    st.terminals = numTerms_;
    return tree;
  }

 private:
  const BuildCounters& host() const { return host_[0]; }

  // `offsets` may be null: made from the owners when the variant reads offsets.
  void reduceBoxes(const Bounds3f* in, uint32_t count, Bounds3f* out, uint32_t segments,
                   const uint32_t* owners, const uint32_t* offsets = nullptr) {
    if (boxReducer_.layout() != reduction::Layout::Offsets) {
      boxReducer_.reduce(in, count, out, segments, owners, nullptr, stream_);
      return;
    }
    if (!offsets) {
      offsets = a_.offsets.reserve(segments + 1, stream_);
      reduction::offsetsFromOwners(owners, count, a_.offsets.data(), segments, stream_);
    }
    boxReducer_.reduce(in, count, out, segments, nullptr, offsets, stream_);
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
    readBack();
    V_ = host().numValid;
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
    numTerms_ = 1;
    numTermRefs_ = V_;
  }

  void largeStage() {
    const LevelNode root{emptyBounds(), 0, 0, V_, 0, chunksOf(V_)};
    SRT_CUDA_CHECK(cudaMemcpyAsync(a_.levelIn.reserve(1, stream_), &root, sizeof(root),
                                   cudaMemcpyHostToDevice, stream_));
    uint32_t count = V_, A = 1, chunks = chunksOf(V_);
    while (A > 0) {
      largeLevel(A, count, chunks);
      readBack();
      numTerms_ += host().newTerms;
      numTermRefs_ += host().newTermRefs;
      count = host().nextRefs;
      chunks = host().nextChunks;
      A = host().nextLarge;
      if (size_t(numTermRefs_) * kScratchPerRef + numTerms_ > kKdMaxField)
        throw std::length_error("GpuKdTreeBuilder: scratch would pass 2^30 entries");
      std::swap(a_.levelIn, a_.levelNext);
    }
  }

  // Node bounds, then bin counts (chunk histograms summed by the int segmented reduction), then
  // each node's cuts and binned-SAH split.
  void planLevel(uint32_t A, uint32_t count, uint32_t chunks, LargeNode* level) {
    timer_.mark(kBounds);
    launchUnpackLevel(a_.curRef.data(), count, a_.curBox.reserve(count, stream_),
                      a_.curOwner.reserve(count, stream_), a_.levelIn.data(), A,
                      a_.offsets.reserve(A + 1, stream_), stream_);
    reduceBoxes(a_.curBox.data(), count, a_.tight.reserve(A, stream_), A, a_.curOwner.data(),
                a_.offsets.data());
    timer_.mark(kBinning);
    const size_t K = kBinCounters;
    const BinLayout layout{a_.partial.reserve(K * chunks, stream_),
                           a_.binOwner.reserve(K * chunks, stream_),
                           a_.binOffsets.reserve(K * A + 1, stream_)};
    launchBinChunks(a_.levelIn.data(), A, chunks, a_.tight.data(), a_.curRef.data(),
                    o_.emptySpaceRatio, maxDepth_, layout, stream_);
    reduction::Request<int> r;
    r.in = layout.partial;
    r.count = uint32_t(K * chunks);
    r.out = a_.binCounts.reserve(K * A, stream_);
    r.numSegments = uint32_t(K * A);
    r.stream = stream_;
    if (intLayout_ == reduction::Layout::Offsets)
      r.offsets = layout.offsets;
    else
      r.owners = layout.owners;
    intReducer_->reduce(r);
    timer_.mark(kSplit);
    launchChooseSplits(a_.levelIn.data(), A, a_.tight.data(), a_.binCounts.data(),
                       o_.emptySpaceRatio, maxDepth_, sah(), o_.splitPerWarp, level, stream_);
  }

  // One large level: plan, route and compact the child lists, classify the children, move the
  // terminals' references out and compact the large children's for the next level.
  void largeLevel(uint32_t A, uint32_t count, uint32_t chunks) {
    const uint32_t C = 2 * A, D = 2 * count, nextBase = base_ + A;
    // Both level arrays get the same capacity, so which one is "next" (they swap every level)
    // never decides whether a rebuild allocates.
    a_.levelIn.reserve(C, stream_, A);
    a_.levelNext.reserve(C, stream_);
    LargeNode* level = a_.large.reserve(nextBase, stream_, base_) + base_;
    planLevel(A, count, chunks, level);
    launchRouteReferences(mesh_, counters_, a_.curRef.data(), count, level, A, o_.streamingClip,
                          a_.dRef.reserve(D, stream_), a_.dKeep.reserve(D, stream_), stream_);
    timer_.mark(kCompaction);
    compact(a_.dKeep.data(), D, a_.dRef.data(), a_.cRef.reserve(D, stream_), &counters_->kept);
    timer_.mark(kSplit);
    launchChildStarts(a_.cRef.data(), &counters_->kept, D, C, a_.childStart.reserve(C + 1, stream_),
                      stream_);
    const int childDepthLimit = count > kMaxReferenceGrowth * V_ ? 0 : maxDepth_;
    launchClassifyChildren(level, A, a_.childStart.data(), uint32_t(o_.smallNodeThreshold),
                           childDepthLimit, a_.info.reserve(C, stream_),
                           a_.scanIn.reserve(C, stream_), stream_);
    const size_t scanBytes = scanChildrenTempBytes(C);
    void* scanTemp = a_.scanTemp.reserve(scanBytes, stream_);
    size_t tempBytes = scanBytes;
    scanChildren(a_.scanIn.data(), a_.scanOut.reserve(C, stream_), C, &scanTemp, &tempBytes,
                 stream_);
    Terminal* terms = a_.terms.reserve(size_t(numTerms_) + C, stream_, numTerms_);
    uint32_t* termTri = a_.termTri.reserve(size_t(numTermRefs_) + D, stream_, numTermRefs_);
    Bounds3f* termBox = a_.termBox.reserve(size_t(numTermRefs_) + D, stream_, numTermRefs_);
    launchAssignChildren(level, A, a_.info.data(), a_.scanOut.data(), nextBase, numTerms_,
                         numTermRefs_, a_.levelNext.data(), terms, a_.handle.reserve(C, stream_),
                         counters_, stream_);
    launchRouteToChildren(a_.cRef.data(), &counters_->kept, D, a_.childStart.data(),
                          a_.handle.data(), nextBase, terms, termTri, termBox,
                          a_.keepB.reserve(D, stream_), stream_);
    timer_.mark(kCompaction);
    compact(a_.keepB.data(), D, a_.cRef.data(), a_.curRef.reserve(D, stream_),
            &counters_->nextRefs);
    levels_.push_back({base_, A});
    base_ = nextBase;
  }

  void smallStage() {
    timer_.mark(kSmall);
    const size_t refs = size_t(kScratchPerRef) * numTermRefs_;
    launchSmallNodes(
        a_.terms.data(), numTerms_, a_.termTri.data(), a_.termBox.data(), maxDepth_, mesh_,
        counters_, sah(), smallVariant(), a_.scratchNodes.reserve(refs + numTerms_, stream_),
        a_.scratchRefs.reserve(refs + 1, stream_), a_.termNodes.reserve(numTerms_, stream_),
        a_.termRefs.reserve(numTerms_, stream_), stream_);
  }

  // Subtree sizes bottom-up, the root, one round trip for the tree's size, then every node
  // written depth-first.
  DeviceKdTree finalize() {
    timer_.mark(kFinalize);
    const size_t numLarge = std::max<size_t>(base_, 1);
    uint32_t* largeSize = a_.largeSize.reserve(numLarge, stream_);
    uint32_t* largePrims = a_.largePrims.reserve(numLarge, stream_);
    uint32_t* largeOffset = a_.largeOffset.reserve(numLarge, stream_);
    uint32_t* largePrimOffset = a_.largePrimOffset.reserve(numLarge, stream_);
    uint32_t* termOffset = a_.termOffset.reserve(numTerms_, stream_);
    uint32_t* termPrimOffset = a_.termPrimOffset.reserve(numTerms_, stream_);
    const uint32_t* termNodes = a_.termNodes.data();
    const uint32_t* termRefs = a_.termRefs.data();
    for (size_t l = levels_.size(); l-- > 0;)
      launchSubtreeSizes(a_.large.data(), levels_[l].first, levels_[l].second, termNodes, termRefs,
                         largeSize, largePrims, stream_);
    launchPlaceRoot(levels_.empty(), a_.large.data(), a_.terms.data(), termNodes, termRefs,
                    largeSize, largePrims, largeOffset, largePrimOffset, termOffset, termPrimOffset,
                    counters_, stream_);
    readBack();
    const uint32_t totalNodes = host().totalNodes, totalPrims = host().totalPrims;
    Buffer<KdNode> nodes(MemorySpace::Cuda, totalNodes);
    Buffer<uint32_t> prims(MemorySpace::Cuda, totalPrims);
    timer_.mark(kFinalize);
    for (const auto& level : levels_)
      launchPlaceLarge(a_.large.data(), level.first, level.second, termNodes, termRefs, largeSize,
                       largePrims, largeOffset, largePrimOffset, termOffset, termPrimOffset,
                       nodes.data(), stream_);
    launchPlaceTerminals(a_.terms.data(), numTerms_, termNodes, termRefs, termOffset,
                         termPrimOffset, a_.scratchNodes.data(), a_.scratchRefs.data(),
                         nodes.data(), prims.data(), stream_);
    timer_.mark(kIdle);
    SRT_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return DeviceKdTree(std::move(nodes), std::move(prims), canonical(host().rootCell));
  }

  SahParams sah() const { return {o_.traversalCost, o_.intersectCost, o_.emptyBonus}; }
  SmallVariant smallVariant() const {
    return {o_.smallReuseBoxes, o_.streamingClip, o_.smallCarveout};
  }

  const GpuKdBuildOptions o_;
  BoxReducer boxReducer_;
  std::unique_ptr<reduction::Reducer<int, reduction::Sum<int>>> intReducer_;
  reduction::Layout intLayout_;
  std::unique_ptr<compaction::Compactor> compactor_;
  PinnedBuffer<BuildCounters> host_;  // made on the first build: no device needed before
  StageTimer timer_;
  BuildArrays a_;
  // The current build.
  TriangleMeshView mesh_;
  cudaStream_t stream_ = nullptr;
  BuildCounters* counters_ = nullptr;
  uint32_t V_ = 0, base_ = 0, numTerms_ = 0, numTermRefs_ = 0;
  int maxDepth_ = 0;
  std::vector<std::pair<uint32_t, uint32_t>> levels_;  // first large node, count
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
