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

#include "renderer/accel/gpu/build_common.h"
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

}  // namespace

KdTree buildKdTreeGpuAlgorithmOnHost(const TriangleMeshView& mesh, const GpuKdBuildOptions& opt) {
  validateNumbers(opt);
  if (mesh.triangleCount > 0 && (!mesh.positions || !mesh.indices))
    throw std::invalid_argument("buildKdTreeGpuAlgorithmOnHost: mesh without positions/indices");
  // Setup: finite triangles, raw bounds, widened boxes.
  std::vector<uint32_t> tri;
  std::vector<Aabb> box;
  Aabb raw = emptyAabb();
  for (uint32_t t = 0; t < mesh.triangleCount; ++t) {
    Vec3f v[3];
    triangleVertices(mesh, t, v);
    if (!finiteVec(v[0]) || !finiteVec(v[1]) || !finiteVec(v[2])) continue;
    tri.push_back(t);
    raw = unite(raw, rawTriangleBox(v));
  }
  KdTree tree;
  if (tri.empty()) {
    tree.nodes.resize(1);
    tree.nodes[0].initLeaf(0, 0);
    return tree;
  }
  const float eps = clipEpsilon(raw);
  for (uint32_t t : tri) {
    Vec3f v[3];
    triangleVertices(mesh, t, v);
    box.push_back(widenedTriangleBox(v, eps));
  }
  const uint32_t N = uint32_t(tri.size());
  const int maxDepth = gpuKdMaxDepth(opt, N);
  const SahParams sah{opt.traversalCost, opt.intersectCost, opt.emptyBonus};
  const uint32_t threshold = uint32_t(opt.smallNodeThreshold);

  std::vector<LargeNode> large;
  std::vector<std::pair<uint32_t, uint32_t>> levels;  // base, count
  std::vector<Terminal> terms;
  std::vector<uint32_t> termTri;
  std::vector<Aabb> termBox;
  std::vector<uint32_t> owner(N, 0);
  std::vector<LevelNode> levelNodes{{emptyAabb(), 0}};

  if (N <= threshold || maxDepth == 0) {
    Aabb tight = emptyAabb();
    for (const Aabb& b : box) tight = unite(tight, b);
    terms.push_back({tight, 0, 0, N});
    termTri = tri;
    termBox = box;
  } else {
    uint32_t base = 0;
    while (!levelNodes.empty()) {
      const uint32_t A = uint32_t(levelNodes.size()), count = uint32_t(tri.size());
      // Bounds (segmented reduction by owner).
      std::vector<Aabb> tight(A, emptyAabb());
      for (uint32_t i = 0; i < count; ++i) tight[owner[i]] = unite(tight[owner[i]], box[i]);
      // Plan.
      for (uint32_t i = 0; i < A; ++i)
        large.push_back(planLargeNode(levelNodes[i], tight[i], opt.emptySpaceRatio, maxDepth));
      // Route into the doubled stream, then the ordered compaction (below part, then above part).
      std::vector<uint32_t> cTri, cOwner;
      std::vector<Aabb> cBox;
      std::vector<uint8_t> keepAbove(count);
      std::vector<Aabb> boxAbove(count);
      for (uint32_t i = 0; i < count; ++i) {
        Vec3f v[3];
        triangleVertices(mesh, tri[i], v);
        bool below, above;
        Aabb bb;
        routeReference(large[base + owner[i]], box[i], v, eps, &below, &bb, &above, &boxAbove[i]);
        keepAbove[i] = above;
        if (below) cTri.push_back(tri[i]), cBox.push_back(bb), cOwner.push_back(owner[i]);
      }
      for (uint32_t i = 0; i < count; ++i)
        if (keepAbove[i])
          cTri.push_back(tri[i]), cBox.push_back(boxAbove[i]), cOwner.push_back(owner[i] + A);
      // Child counts and classification.
      std::vector<uint32_t> childCount(2 * A, 0), handle(2 * A);
      for (uint32_t o : cOwner) ++childCount[o];
      std::vector<LevelNode> next;
      uint32_t termRefs = uint32_t(termTri.size());
      for (uint32_t c = 0; c < 2 * A; ++c) {
        LargeNode& parent = large[base + c % A];
        const int side = int(c / A);
        const Aabb cell = childCell(parent, side);
        const uint32_t depth = parent.depth + parent.numCuts + 1;
        const bool isLarge = !parent.noSplit && childCount[c] > threshold && int(depth) < maxDepth;
        if (isLarge) {
          handle[c] = base + A + uint32_t(next.size());
          next.push_back({cell, depth});
        } else {
          handle[c] = kTerminalBit | uint32_t(terms.size());
          terms.push_back({cell, depth, termRefs, childCount[c]});
          termRefs += childCount[c];
        }
        parent.child[side] = handle[c];
      }
      // Large children's references go on (owner renumbered), the rest to the terminals.
      tri.clear(), box.clear(), owner.clear();
      for (size_t i = 0; i < cTri.size(); ++i) {
        const uint32_t h = handle[cOwner[i]];
        if (h & kTerminalBit) {
          termTri.push_back(cTri[i]);
          termBox.push_back(cBox[i]);
        } else {
          tri.push_back(cTri[i]), box.push_back(cBox[i]), owner.push_back(h - (base + A));
        }
      }
      levels.push_back({base, A});
      base += A;
      levelNodes = std::move(next);
    }
  }

  // Small nodes.
  const uint32_t T = uint32_t(terms.size());
  const size_t R = termTri.size();
  std::vector<KdNode> scratchNodes(kScratchPerRef * R + T);
  std::vector<uint32_t> scratchRefs(kScratchPerRef * R + 1);
  std::vector<uint32_t> termNodes(T), termRefs(T);
  auto shared = std::make_unique<SmallShared>();
  SequentialTeam team;
  for (uint32_t t = 0; t < T; ++t) {
    const Terminal& term = terms[t];
    const size_t n0 = kScratchPerRef * size_t(term.refStart);
    SmallOutput out{scratchNodes.data() + n0 + t, kScratchPerRef * term.refCount + 1,
                    scratchRefs.data() + n0, kScratchPerRef * term.refCount};
    buildSmallSubtree(team, *shared, term, termTri.data() + term.refStart,
                      termBox.data() + term.refStart, maxDepth, mesh, eps, sah, out, &termNodes[t],
                      &termRefs[t]);
  }

  // Finalize: sizes bottom-up, offsets top-down, then the terminals' subtrees.
  std::vector<uint32_t> largeSize(large.size()), largePrims(large.size());
  auto sizeOf = [&](uint32_t h) {
    return h & kTerminalBit ? termNodes[h & ~kTerminalBit] : largeSize[h];
  };
  auto primsOf = [&](uint32_t h) {
    return h & kTerminalBit ? termRefs[h & ~kTerminalBit] : largePrims[h];
  };
  for (size_t l = levels.size(); l-- > 0;)
    for (uint32_t g = levels[l].first; g < levels[l].first + levels[l].second; ++g) {
      largeSize[g] =
          largeOwnNodes(large[g]) + sizeOf(large[g].child[0]) + sizeOf(large[g].child[1]);
      largePrims[g] = primsOf(large[g].child[0]) + primsOf(large[g].child[1]);
    }
  const uint32_t root = large.empty() ? kTerminalBit : 0u;
  tree.nodes.resize(sizeOf(root));
  tree.primIndices.resize(primsOf(root));
  tree.bounds = toBounds(large.empty() ? terms[0].cell : large[0].cell);
  std::vector<uint32_t> largeOffset(large.size()), largePrimOffset(large.size());
  std::vector<uint32_t> termOffset(T), termPrimOffset(T);
  auto place = [&](uint32_t h, uint32_t o, uint32_t p) {
    if (h & kTerminalBit)
      termOffset[h & ~kTerminalBit] = o, termPrimOffset[h & ~kTerminalBit] = p;
    else
      largeOffset[h] = o, largePrimOffset[h] = p;
  };
  place(root, 0, 0);
  for (const auto& level : levels)
    for (uint32_t g = level.first; g < level.first + level.second; ++g) {
      const LargeNode& n = large[g];
      const uint32_t belowSize = sizeOf(n.child[0]);
      const uint32_t below =
          writeLargeNode(n, largeOffset[g], largeSize[g], belowSize, tree.nodes.data());
      place(n.child[0], below, largePrimOffset[g]);
      place(n.child[1], below + belowSize, largePrimOffset[g] + primsOf(n.child[0]));
    }
  for (uint32_t t = 0; t < T; ++t) {
    const size_t n0 = kScratchPerRef * size_t(terms[t].refStart);
    for (uint32_t k = 0; k < termNodes[t]; ++k)
      tree.nodes[termOffset[t] + k] =
          relocate(scratchNodes[n0 + t + k], termOffset[t], termPrimOffset[t]);
    for (uint32_t k = 0; k < termRefs[t]; ++k)
      tree.primIndices[termPrimOffset[t] + k] = scratchRefs[n0 + k];
  }
  return tree;
}

}  // namespace srt
