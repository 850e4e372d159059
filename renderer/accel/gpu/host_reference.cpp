// The GPU build's pipeline run sequentially on the host, with the per-element steps of
// build_common.h: the reference the CPU tests check (structure, hits, SAH cost) without a device.
// Every step mirrors a kernel of large_nodes.cu / small_nodes.cu / finalize.cu; the segmented
// reduction is a loop over owners and the compaction a stable partition.
#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "renderer/accel/gpu/build_steps.h"
#include "renderer/accel/gpu/kdtree_build_gpu.h"

namespace srt {

void validateNumbers(const GpuKdBuildOptions& o) {
  if (o.smallNodeThreshold < 1 || o.smallNodeThreshold > kdgpu::kSmallMax)
    throw std::invalid_argument("GpuKdBuildOptions: smallNodeThreshold " +
                                std::to_string(o.smallNodeThreshold) + " outside [1, 64]");
  if (o.maxDepth < 0 || o.maxDepth > kKdMaxDepth)
    throw std::invalid_argument("GpuKdBuildOptions: maxDepth " + std::to_string(o.maxDepth) +
                                " outside [0, " + std::to_string(kKdMaxDepth) + "]");
  if (!(o.emptySpaceRatio >= 0.f && o.emptySpaceRatio <= 1.f))
    throw std::invalid_argument("GpuKdBuildOptions: emptySpaceRatio " +
                                std::to_string(o.emptySpaceRatio) + " outside [0, 1]");
  if (!(o.traversalCost > 0) || !(o.intersectCost > 0))
    throw std::invalid_argument("GpuKdBuildOptions: traversalCost and intersectCost must be > 0");
  if (!(o.emptyBonus >= 0 && o.emptyBonus < 1))
    throw std::invalid_argument("GpuKdBuildOptions: emptyBonus " + std::to_string(o.emptyBonus) +
                                " outside [0, 1)");
}

int gpuKdMaxDepth(const GpuKdBuildOptions& o, size_t triangles) {
  if (o.maxDepth > 0) return o.maxDepth;
  const double n = double(triangles > 1 ? triangles : 1);
  return std::min(kKdMaxDepth, int(std::lround(8 + 1.3 * std::log2(n))));
}

namespace {

using namespace kdgpu;

Aabb unite(const Aabb& a, const Aabb& b) {
  return reduction::AabbUnion()(a, b);
}

// The segmented reduction by owner (owners sorted) and the ordered compaction, on the host.
std::vector<Aabb> reduceByOwner(const std::vector<Aabb>& in, uint32_t count,
                                const std::vector<uint32_t>& owner, uint32_t segments) {
  std::vector<Aabb> out(segments, emptyAabb());
  for (uint32_t i = 0; i < count; ++i) out[owner[i]] = unite(out[owner[i]], in[i]);
  return out;
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

}  // namespace

// Mirrors GpuKdTreeBuilder::build step for step (kdtree_build_gpu.cpp); each loop below is one
// kernel launch there, with the same per-thread body from build_steps.h.
KdTree buildKdTreeGpuAlgorithmOnHost(const TriangleMeshView& mesh, const GpuKdBuildOptions& o) {
  validateNumbers(o);
  if (mesh.triangleCount > 0 && (!mesh.positions || !mesh.indices))
    throw std::invalid_argument("buildKdTreeGpuAlgorithmOnHost: mesh without positions/indices");
  KdTree tree;
  tree.nodes.resize(1);
  tree.nodes[0].initLeaf(0, 0);
  const uint32_t N = mesh.triangleCount;
  if (N == 0) return tree;

  // Setup.
  std::vector<Ref> dRef(N), cRef, curRef(N);
  std::vector<Aabb> curBox(N);
  std::vector<uint32_t> curOwner(N);
  std::vector<uint8_t> dKeep(N), keepB;
  for (uint32_t i = 0; i < N; ++i) stepTriangleBox(i, mesh, dRef.data(), dKeep.data());
  const uint32_t V = compact(dKeep, N, dRef, curRef);
  if (V == 0) return tree;
  const int maxDepth = gpuKdMaxDepth(o, V);
  const SahParams sah{o.traversalCost, o.intersectCost, o.emptyBonus};
  const uint32_t threshold = uint32_t(o.smallNodeThreshold);
  for (uint32_t i = 0; i < V; ++i) stepUnpack(i, curRef.data(), curBox.data(), curOwner.data());
  const float eps = clipEpsilon(reduceByOwner(curBox, V, curOwner, 1)[0]);
  for (uint32_t i = 0; i < V; ++i) stepWidenBox(i, eps, curRef.data());

  // Large-node stage.
  std::vector<std::pair<uint32_t, uint32_t>> levels;
  std::vector<LargeNode> large;
  std::vector<Terminal> terms;
  std::vector<uint32_t> termTri, start, handle;
  std::vector<Aabb> termBox;
  std::vector<ChildInfo> info;
  std::vector<ChildScan> scanIn, scanOut;
  std::vector<LevelNode> levelIn{{emptyAabb(), 0}}, levelNext;
  uint32_t base = 0, numTerms = 0, numTermRefs = 0;
  if (V <= threshold || maxDepth == 0) {
    for (uint32_t i = 0; i < V; ++i) stepUnpack(i, curRef.data(), curBox.data(), curOwner.data());
    terms.push_back({reduceByOwner(curBox, V, curOwner, 1)[0], 0, 0, V});
    termTri.resize(V);
    termBox.resize(V);
    for (uint32_t i = 0; i < V; ++i)
      stepRootTerminalRef(i, curRef.data(), termTri.data(), termBox.data());
    numTerms = 1;
    numTermRefs = V;
  } else {
    uint32_t count = V, A = 1;
    while (A > 0) {
      const uint32_t C = 2 * A, D = 2 * count, nextBase = base + A;
      grow(curBox, count), grow(curOwner, count);
      for (uint32_t i = 0; i < count; ++i)
        stepUnpack(i, curRef.data(), curBox.data(), curOwner.data());
      const std::vector<Aabb> tight = reduceByOwner(curBox, count, curOwner, A);
      grow(large, nextBase);
      LargeNode* level = large.data() + base;
      for (uint32_t i = 0; i < A; ++i)
        level[i] = planLargeNode(levelIn[i], tight[i], o.emptySpaceRatio, maxDepth);
      grow(dRef, D), grow(dKeep, D);
      for (uint32_t i = 0; i < count; ++i)
        stepRouteReference(i, mesh, eps, curRef.data(), count, level, A, dRef.data(), dKeep.data());
      grow(cRef, D);
      const uint32_t kept = compact(dKeep, D, dRef, cRef);
      grow(start, C + 1), grow(info, C), grow(scanIn, C), grow(scanOut, C);
      for (uint32_t i = 0; i <= kept; ++i) stepChildStarts(i, cRef.data(), kept, C, start.data());
      const int childDepthLimit = count > kMaxReferenceGrowth * V ? 0 : maxDepth;
      for (uint32_t c = 0; c < C; ++c)
        stepClassifyChild(c, level, A, start.data(), threshold, childDepthLimit, info.data(),
                          scanIn.data());
      ChildScan sum{0, 0, 0};
      for (uint32_t c = 0; c < C; ++c) scanOut[c] = sum = sum + scanIn[c];
      grow(terms, numTerms + C), grow(termTri, numTermRefs + D), grow(termBox, numTermRefs + D);
      grow(levelNext, C), grow(handle, C);
      for (uint32_t c = 0; c < C; ++c)
        stepAssignChild(c, level, A, info.data(), scanOut.data(), nextBase, numTerms, numTermRefs,
                        levelNext.data(), terms.data(), handle.data());
      grow(keepB, D);
      for (uint32_t i = 0; i < D; ++i)
        stepRouteToChild(i, kept, cRef.data(), start.data(), handle.data(), nextBase, terms.data(),
                         termTri.data(), termBox.data(), keepB.data());
      grow(curRef, D);
      count = compact(keepB, D, cRef, curRef);
      levels.push_back({base, A});
      base = nextBase;
      numTerms += sum.terms;
      numTermRefs += sum.termRefs;
      A = sum.large;
      std::swap(levelIn, levelNext);
    }
  }

  // Small-node stage.
  const size_t R = numTermRefs;
  std::vector<KdNode> scratchNodes(kScratchPerRef * R + numTerms);
  std::vector<uint32_t> scratchRefs(kScratchPerRef * R + 1);
  std::vector<uint32_t> termNodes(numTerms), termRefs(numTerms);
  // Terminals are independent (one warp each on the device): one thread each here.
#pragma omp parallel
  {
    auto shared = std::make_unique<SmallShared>();
    SequentialTeam team;
#pragma omp for schedule(dynamic, 64)
    for (int64_t t = 0; t < int64_t(numTerms); ++t) {
      const Terminal& term = terms[size_t(t)];
      const size_t n0 = kScratchPerRef * size_t(term.refStart);
      SmallOutput out{scratchNodes.data() + n0 + t, kScratchPerRef * term.refCount + 1,
                      scratchRefs.data() + n0, kScratchPerRef * term.refCount};
      buildSmallSubtree(team, *shared, term, termTri.data() + term.refStart,
                        termBox.data() + term.refStart, maxDepth, mesh, eps, sah, out,
                        &termNodes[size_t(t)], &termRefs[size_t(t)]);
    }
  }

  // Finalize.
  const size_t numLarge = std::max<size_t>(base, 1);
  std::vector<uint32_t> largeSize(numLarge), largePrims(numLarge), largeOffset(numLarge),
      largePrimOffset(numLarge), termOffset(numTerms), termPrimOffset(numTerms);
  const Sizes sizes{termNodes.data(), termRefs.data(), largeSize.data(), largePrims.data()};
  const Offsets offsets{largeOffset.data(), largePrimOffset.data(), termOffset.data(),
                        termPrimOffset.data()};
  for (size_t l = levels.size(); l-- > 0;)
    for (uint32_t g = levels[l].first; g < levels[l].first + levels[l].second; ++g)
      stepSubtreeSize(g, large.data(), sizes, largeSize.data(), largePrims.data());
  BuildCounters counters{};
  stepPlaceRoot(levels.empty(), large.data(), terms.data(), sizes, offsets, &counters);
  tree.nodes.assign(counters.totalNodes, KdNode{});
  tree.primIndices.assign(counters.totalPrims, 0);
  tree.bounds = toBounds(counters.rootCell);
  for (const auto& level : levels)
    for (uint32_t g = level.first; g < level.first + level.second; ++g)
      stepPlaceLarge(g, large.data(), sizes, offsets, tree.nodes.data());
  for (uint32_t t = 0; t < numTerms; ++t) {
    const uint32_t items = std::max(termNodes[t], termRefs[t]);
    for (uint32_t k = 0; k < items; ++k)
      stepPlaceTerminalItem(t, k, terms.data(), sizes, termOffset.data(), termPrimOffset.data(),
                            scratchNodes.data(), scratchRefs.data(), tree.nodes.data(),
                            tree.primIndices.data());
  }
  return tree;
}

}  // namespace srt
