// The GPU build's pipeline run sequentially on the host, with the per-element steps of
// build_steps.h, large_node_split.h, small_node_build.h and finalize_steps.h: the reference the
// CPU tests and streamrt-bench-kdtree-quality check (structure, hits, SAH cost, trace time)
// without a device. Every loop mirrors a kernel of large_nodes.cu / small_nodes.cu /
// finalize.cu; the segmented reductions are loops over owners and the compactions stable
// partitions.
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

#include "renderer/accel/gpu/finalize_steps.h"
#include "renderer/accel/gpu/kdtree_build_gpu.h"
#include "renderer/accel/gpu/small_node_build.h"

namespace srt {

void validateNumbers(const GpuKdBuildOptions& o);  // build_options.cpp

namespace {

using namespace kdgpu;

// The segmented reduction by owner (owners sorted), on the host.
template <typename T, typename Op>
std::vector<T> reduceByOwner(const std::vector<T>& in, size_t count,
                             const std::vector<uint32_t>& owner, size_t segments, T identity,
                             Op op) {
  std::vector<T> out(segments, identity);
  for (size_t i = 0; i < count; ++i) out[owner[i]] = op(out[owner[i]], in[i]);
  return out;
}

std::vector<Bounds3f> reduceBoxes(const std::vector<Bounds3f>& in, size_t count,
                                  const std::vector<uint32_t>& owner, size_t segments) {
  return reduceByOwner(in, count, owner, segments, emptyBounds(),
                       [](Bounds3f a, const Bounds3f& b) {  // fminf / fmaxf, as the device's union
                         a.extend(b);
                         return a;
                       });
}

template <typename T>
uint32_t compact(const std::vector<uint8_t>& keep, uint32_t count, const std::vector<T>& in,
                 std::vector<T>& out) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < count; ++i)
    if (keep[i]) out[n++] = in[i];
  return n;
}

template <typename T>
void grow(std::vector<T>& v, size_t n) {
  if (v.size() < n) v.resize(n);
}

// One build's state, named as the device scratch in build_run.h.
class HostBuild {
 public:
  HostBuild(const TriangleMeshView& mesh, const GpuKdBuildOptions& o) : mesh_(mesh), o_(o) {}

  KdTree run() {
    KdTree tree;
    tree.nodes.resize(1);
    tree.nodes[0].initLeaf(0, 0);
    if (mesh_.triangleCount == 0 || !setup()) return tree;
    if (V_ <= threshold_ || maxDepth_ == 0)
      rootTerminal();
    else
      largeStage();
    smallStage();
    finalize(tree);
    return tree;
  }

 private:
  bool setup() {
    const uint32_t N = mesh_.triangleCount;
    grow(dRef_, N), grow(dKeep_, N), grow(curRef_, N);
    for (uint32_t i = 0; i < N; ++i) stepTriangleBox(i, mesh_, dRef_.data(), dKeep_.data());
    V_ = compact(dKeep_, N, dRef_, curRef_);
    if (V_ == 0) return false;
    maxDepth_ = gpuKdMaxDepth(o_, V_);
    sah_ = {o_.traversalCost, o_.intersectCost, o_.emptyBonus};
    threshold_ = uint32_t(smallNodeThresholdFor(o_));
    unpack(V_);
    eps_ = clipEpsilon(reduceBoxes(curBox_, V_, curOwner_, 1)[0]);
    for (uint32_t i = 0; i < V_; ++i) stepWidenBox(i, eps_, curRef_.data());
    return true;
  }

  void unpack(uint32_t count) {
    grow(curBox_, count), grow(curOwner_, count);
    for (uint32_t i = 0; i < count; ++i)
      stepUnpack(i, curRef_.data(), curBox_.data(), curOwner_.data());
  }

  void rootTerminal() {
    unpack(V_);
    terms_.push_back({reduceBoxes(curBox_, V_, curOwner_, 1)[0], 0, 0, V_});
    termTri_.resize(V_);
    termBox_.resize(V_);
    for (uint32_t i = 0; i < V_; ++i)
      stepRootTerminalRef(i, curRef_.data(), termTri_.data(), termBox_.data());
    numTerms_ = 1;
    numTermRefs_ = V_;
  }

  void largeStage() {
    std::vector<LevelNode> levelIn{{emptyBounds(), 0, 0, V_, 0, chunksOf(V_)}}, levelNext;
    uint32_t count = V_, A = 1, chunks = chunksOf(V_);
    while (A > 0) {
      const ChildScan sum = largeLevel(levelIn, A, count, chunks, levelNext);
      numTerms_ += sum.terms;
      numTermRefs_ += sum.termRefs;
      count = sum.largeRefs;
      chunks = sum.chunks;
      A = sum.large;
      std::swap(levelIn, levelNext);
    }
  }

  // Node bounds, empty-space cuts, bin counts and the binned-SAH split of A nodes.
  void planLevel(const std::vector<LevelNode>& in, uint32_t A, uint32_t count, uint32_t chunks,
                 LargeNode* level) {
    unpack(count);
    std::vector<uint32_t> offsets(A + 1);
    for (uint32_t i = 0; i <= A; ++i) stepLevelOffset(i, in.data(), A, count, offsets.data());
    checkSegments(curOwner_, offsets, count, A);
    const std::vector<Bounds3f> tight = reduceBoxes(curBox_, count, curOwner_, A);
    const size_t K = kBinCounters;
    grow(partial_, K * chunks), grow(binOwner_, K * chunks), grow(binOffsets_, K * A + 1);
    const BinLayout layout{partial_.data(), binOwner_.data(), binOffsets_.data()};
    for (uint32_t c = 0; c < chunks; ++c) {
      const uint32_t n = chunkOwner(in.data(), A, c);
      const LevelNode& node = in[n];
      const NodeCuts cuts = planCuts(node, tight[n], o_.emptySpaceRatio, maxDepth_);
      int hist[kBinCounters] = {};
      const uint32_t first = node.refStart + (c - node.chunkStart) * kChunkRefs;
      const uint32_t last = std::min(first + kChunkRefs, node.refStart + node.refCount);
      for (uint32_t i = first; i < last; ++i) {
        int slot[6];
        binSlots(curRef_[i].box, cuts.bins, slot);
        for (int s : slot) ++hist[s];
      }
      stepChunkSegments(c, chunks, node, n, hist, layout, 0, 1);
    }
    checkSegments(binOwner_, binOffsets_, K * chunks, K * A);
    const std::vector<int> bins = reduceByOwner(partial_, K * chunks, binOwner_, K * A, 0,
                                                [](int a, int b) { return a + b; });
    for (uint32_t i = 0; i < A; ++i)
      level[i] = chooseSplit(planCuts(in[i], tight[i], o_.emptySpaceRatio, maxDepth_), in[i].depth,
                             in[i].refCount, bins.data() + K * i, sah_, maxDepth_);
  }

  // The offsets the device's offset-layout reductions read describe the same segments as the
  // owners this reference reduces by.
  static void checkSegments(const std::vector<uint32_t>& owner,
                            const std::vector<uint32_t>& offsets, size_t count, size_t segments) {
    if (offsets[0] != 0 || offsets[segments] != count)
      throw std::logic_error("host kd build: segment offsets do not span the input");
    for (size_t s = 0; s < segments; ++s)
      for (uint32_t e = offsets[s]; e < offsets[s + 1]; ++e)
        if (owner[e] != s) throw std::logic_error("host kd build: owners and offsets differ");
  }

  // The children's lists as the counts and their scan place them are where the compaction put
  // each child's references.
  void checkChildLists(uint32_t kept, uint32_t counted) const {
    if (kept != counted)
      throw std::logic_error("host kd build: child counts differ from the compacted references");
    for (uint32_t i = 0; i < kept; ++i) {
      const uint32_t c = cRef_[i].owner;
      if (i < start_[c] || i - start_[c] >= childRefs_[c])
        throw std::logic_error("host kd build: a reference outside its child's list");
    }
  }

  // One large level: plan, route, child lists, classification, the next level's references.
  ChildScan largeLevel(const std::vector<LevelNode>& in, uint32_t A, uint32_t count,
                       uint32_t chunks, std::vector<LevelNode>& next) {
    const uint32_t C = 2 * A, D = 2 * count, nextBase = base_ + A;
    grow(large_, nextBase);
    LargeNode* level = large_.data() + base_;
    planLevel(in, A, count, chunks, level);
    grow(dRef_, D), grow(dKeep_, D), grow(cRef_, D);
    float clipBuffer[kClipLaneFloats];
    float* clip = o_.largeSharedClip ? clipBuffer : nullptr;
    childRefs_.assign(C, 0);
    for (uint32_t i = 0; i < count; ++i) {
      const RouteSides sides =
          o_.streamingClip ? stepRouteReference<true>(i, mesh_, eps_, curRef_.data(), count, level,
                                                      A, dRef_.data(), dKeep_.data(), clip)
                           : stepRouteReference<false>(i, mesh_, eps_, curRef_.data(), count, level,
                                                       A, dRef_.data(), dKeep_.data(), clip);
      childRefs_[curRef_[i].owner] += sides.below;
      childRefs_[curRef_[i].owner + A] += sides.above;
    }
    const uint32_t kept = compact(dKeep_, D, dRef_, cRef_);
    grow(start_, C), grow(info_, C), grow(scanOut_, C);
    const int childDepthLimit = count > kMaxReferenceGrowth * V_ ? 0 : maxDepth_;
    ChildScan sum{0, 0, 0, 0, 0, 0};
    for (uint32_t c = 0; c < C; ++c) {
      info_[c] = classifyChild(c, level, A, childRefs_.data(), threshold_, childDepthLimit);
      scanOut_[c] = sum = sum + childScanEntry(info_[c]);
    }
    grow(terms_, numTerms_ + C), grow(termTri_, numTermRefs_ + D);
    grow(termBox_, numTermRefs_ + D), grow(next, C), grow(handle_, C);
    for (uint32_t c = 0; c < C; ++c)
      stepAssignChild(c, level, A, info_[c], scanOut_[c], nextBase, numTerms_, numTermRefs_,
                      next.data(), terms_.data(), handle_.data(), start_.data());
    checkChildLists(kept, sum.refs);
    grow(curRef_, D);
    for (uint32_t i = 0; i < D; ++i)
      stepRouteToChild(i, kept, cRef_.data(), start_.data(), handle_.data(), nextBase,
                       terms_.data(), next.data(), termTri_.data(), termBox_.data(),
                       curRef_.data());
    levels_.push_back({base_, A});
    base_ = nextBase;
    return sum;
  }

  // Terminals are independent (one warp each on the device): one thread each here.
  void smallStage() {
    const size_t R = numTermRefs_;
    scratchNodes_.resize(size_t(o_.scratchPerRef) * R + numTerms_);
    scratchRefs_.resize(size_t(o_.scratchPerRef) * R + 1);
    termNodes_.resize(numTerms_);
    termRefs_.resize(numTerms_);
#pragma omp parallel
    {
      auto shared = std::make_unique<SmallShared>();
      float clipBuffer[kClipLaneFloats];
      float* clip = o_.smallSharedClip ? clipBuffer : nullptr;
      SequentialTeam team;
#pragma omp for schedule(dynamic, 64)
      for (int64_t t = 0; t < int64_t(numTerms_); ++t) {
        const Terminal& term = terms_[size_t(t)];
        const uint32_t perRef = uint32_t(o_.scratchPerRef);
        const size_t n0 = size_t(perRef) * term.refStart;
        SmallOutput out{scratchNodes_.data() + n0 + t, perRef * term.refCount + 1,
                        scratchRefs_.data() + n0, perRef * term.refCount};
        const uint32_t* tris = termTri_.data() + term.refStart;
        const Bounds3f* boxes = termBox_.data() + term.refStart;
        uint32_t* nodesUsed = &termNodes_[size_t(t)];
        uint32_t* refsUsed = &termRefs_[size_t(t)];
        if (o_.streamingClip)
          buildSmallSubtree<true>(team, *shared, term, tris, boxes, maxDepth_, mesh_, eps_, sah_,
                                  out, nodesUsed, refsUsed, o_.smallReuseBoxes, o_.smallClampBoxes,
                                  clip);
        else
          buildSmallSubtree<false>(team, *shared, term, tris, boxes, maxDepth_, mesh_, eps_, sah_,
                                   out, nodesUsed, refsUsed, o_.smallReuseBoxes, o_.smallClampBoxes,
                                   clip);
      }
    }
  }

  void finalize(KdTree& tree) {
    const size_t numLarge = std::max<size_t>(base_, 1);
    std::vector<uint32_t> largeSize(numLarge), largePrims(numLarge), largeOffset(numLarge),
        largePrimOffset(numLarge), termOffset(numTerms_), termPrimOffset(numTerms_);
    const Sizes sizes{termNodes_.data(), termRefs_.data(), largeSize.data(), largePrims.data()};
    const Offsets offsets{largeOffset.data(), largePrimOffset.data(), termOffset.data(),
                          termPrimOffset.data()};
    for (size_t l = levels_.size(); l-- > 0;)
      for (uint32_t g = levels_[l].first; g < levels_[l].first + levels_[l].second; ++g)
        stepSubtreeSize(g, large_.data(), sizes, largeSize.data(), largePrims.data());
    BuildCounters counters{};
    stepPlaceRoot(levels_.empty(), large_.data(), terms_.data(), sizes, offsets, &counters);
    tree.nodes.assign(counters.totalNodes, KdNode{});
    tree.primIndices.assign(counters.totalPrims, 0);
    tree.bounds = canonical(counters.rootCell);
    for (const auto& level : levels_)
      for (uint32_t g = level.first; g < level.first + level.second; ++g)
        stepPlaceLarge(g, large_.data(), sizes, offsets, tree.nodes.data());
    for (uint32_t t = 0; t < numTerms_; ++t) {
      const uint32_t items = std::max(termNodes_[t], termRefs_[t]);
      for (uint32_t k = 0; k < items; ++k)
        stepPlaceTerminalItem(t, k, terms_.data(), sizes, termOffset.data(), termPrimOffset.data(),
                              scratchNodes_.data(), scratchRefs_.data(), uint32_t(o_.scratchPerRef),
                              tree.nodes.data(), tree.primIndices.data());
    }
  }

  const TriangleMeshView& mesh_;
  const GpuKdBuildOptions& o_;
  uint32_t V_ = 0, threshold_ = 0;
  int maxDepth_ = 0;
  SahParams sah_;
  float eps_ = 0.f;
  std::vector<Ref> dRef_, cRef_, curRef_;
  std::vector<Bounds3f> curBox_;
  std::vector<uint32_t> curOwner_;
  std::vector<uint8_t> dKeep_;
  std::vector<int> partial_;
  std::vector<uint32_t> binOwner_, binOffsets_;
  std::vector<LargeNode> large_;
  std::vector<std::pair<uint32_t, uint32_t>> levels_;  // first large node, count
  uint32_t base_ = 0, numTerms_ = 0, numTermRefs_ = 0;
  std::vector<Terminal> terms_;
  std::vector<uint32_t> termTri_, start_, handle_, childRefs_;
  std::vector<Bounds3f> termBox_;
  std::vector<ChildInfo> info_;
  std::vector<ChildScan> scanOut_;
  std::vector<KdNode> scratchNodes_;
  std::vector<uint32_t> scratchRefs_, termNodes_, termRefs_;
};

}  // namespace

// Mirrors GpuKdTreeBuilder::build step for step (kdtree_build_gpu.cpp).
KdTree buildKdTreeGpuAlgorithmOnHost(const TriangleMeshView& mesh, const GpuKdBuildOptions& o) {
  validateNumbers(o);
  if (mesh.triangleCount > 0 && (!mesh.positions || !mesh.indices))
    throw std::invalid_argument("buildKdTreeGpuAlgorithmOnHost: mesh without positions/indices");
  return HostBuild(mesh, o).run();
}

}  // namespace srt
