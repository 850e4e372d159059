// GpuKdTreeBuilder: the host side of the GPU kd-tree build. BuildScratch (build_run.h) runs the
// stages in order on the stream; this file holds its setup, small stage and finalize, and
// large_stage.cpp the large-node stage. The kernels are in large_nodes.cu, binned_sah.cu,
// small_nodes.cu and finalize.cu, their per-thread bodies in build_steps.h and finalize_steps.h.
// host_reference.cpp runs the same stages on the host.
#include "renderer/accel/gpu/kdtree_build_gpu.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "renderer/accel/gpu/build_run.h"

namespace srt {
namespace kdgpu {
namespace {

// One empty leaf (no triangle, or none finite), as the CPU builder makes.
DeviceKdTree emptyTree(GpuKdBuildStats* stats) {
  stats->nodes = stats->leaves = 1;
  KdTree t;
  t.nodes.resize(1);
  t.nodes[0].initLeaf(0, 0);
  return DeviceKdTree(t, MemorySpace::Cuda);
}

}  // namespace

DeviceKdTree BuildScratch::build(const TriangleMeshView& mesh, cudaStream_t stream,
                                 GpuKdBuildStats& st) {
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

bool BuildScratch::canReplay() const {
  if (rootIsTerminal() || plan_.numLevels() == 0 || plan_.triangles != mesh_.triangleCount ||
      plan_.valid != V_)
    return false;
  const LevelCounts& t = plan_.totals();
  const uint64_t refs = withSlack(t.termRefBase, o_.replaySlack);
  return refs * uint64_t(o_.scratchPerRef) + withSlack(t.termBase, o_.replaySlack) <= kKdMaxField;
}

std::optional<DeviceKdTree> BuildScratch::runStages(bool replay) {
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

void BuildScratch::reduceBoxes(const Bounds3f* in, uint32_t count, Bounds3f* out, uint32_t segments,
                               const uint32_t* owners, const uint32_t* offsets,
                               bool outHoldsIdentity) {
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

void BuildScratch::compact(const uint8_t* keep, uint32_t count, const void* src, void* dst,
                           uint32_t* numKept) {
  const compaction::Field f{src, dst, uint32_t(sizeof(Ref))};
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

void BuildScratch::readBack() {
  timer_.mark(kIdle);
  SRT_CUDA_CHECK(cudaMemcpyAsync(host_.data(), counters_, sizeof(BuildCounters),
                                 cudaMemcpyDeviceToHost, stream_));
  SRT_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

bool BuildScratch::setup() {
  const uint32_t N = mesh_.triangleCount;
  timer_.mark(kSetup);
  launchTriangleBoxes(mesh_, a_.dRef.reserve(N, stream_), a_.dKeep.reserve(N, stream_), stream_);
  compact(a_.dKeep.data(), N, a_.dRef.data(), a_.curRef.reserve(N, stream_), &counters_->numValid);
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

void BuildScratch::rootTerminal() {
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

void BuildScratch::smallStage() {
  timer_.mark(kSmall);
  const size_t refs = size_t(o_.scratchPerRef) * capTermRefs_;
  launchSmallNodes(
      a_.terms.data(), &state_->levels[levels_.size()], capTerms_, capTermRefs_, &state_->overflow,
      a_.termTri.data(), a_.termBox.data(), maxDepth_, mesh_, counters_, sah(), smallVariant(),
      a_.scratchNodes.reserve(refs + capTerms_, stream_), a_.scratchRefs.reserve(refs + 1, stream_),
      a_.termNodes.reserve(std::max<size_t>(capTerms_, 1), stream_),
      a_.termRefs.reserve(std::max<size_t>(capTerms_, 1), stream_), stream_);
}

std::optional<DeviceKdTree> BuildScratch::finalize() {
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

FinalizeArrays BuildScratch::finalizeArrays() {
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

void BuildScratch::place(const FinalizeArrays& fa, uint32_t placeBlocks, KdNode* nodes,
                         uint32_t* prims, TreeSize room) {
  const uint32_t* overflow = &state_->overflow;
  launchPlaceLarge(state_->levels, uint32_t(levels_.size()), placeBlocks, overflow, counters_, room,
                   fa, nodes, stream_);
  launchPlaceTerminals(&state_->levels[levels_.size()], std::max(capTerms_, 1u), overflow,
                       counters_, room, fa, a_.scratchNodes.data(), a_.scratchRefs.data(),
                       uint32_t(o_.scratchPerRef), nodes, prims, stream_);
}

void BuildScratch::updatePlan() {
  const LevelCounts* levels = hostState_[0].levels;
  uint32_t n = 0;
  while (n < levels_.size() && levels[n].nodes > 0) ++n;
  plan_.triangles = mesh_.triangleCount;
  plan_.valid = V_;
  plan_.levels.assign(levels, levels + n + 1);
}

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
