// The CPU SAH builder's finishing passes: joining the build tasks' fragments into one depth-first
// tree, and the statistics of any finished tree, whoever built it.
#include <omp.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "renderer/accel/kdtree_build_sah.h"
#include "renderer/accel/kdtree_build_sah_fragment.h"

namespace srt {
namespace {

struct PlacedFragment {
  const KdFragment* fragment;
  size_t nodeBase, primBase;
  std::vector<size_t> childNodes, childPrims;  // sizes of the subtrees behind its link nodes
};

// Lists `f` and its descendants with their final offsets; returns the nodes and primitive indices
// of f's whole subtree.
std::pair<size_t, size_t> place(const KdFragment& f, size_t nodeBase, size_t primBase,
                                std::vector<PlacedFragment>* list) {
  const size_t self = list->size();
  list->push_back({&f, nodeBase, primBase, {}, {}});
  size_t extraNodes = 0, extraPrims = 0;  // what the subtrees placed so far add in front
  std::vector<size_t> nodes, prims;
  for (const KdFragment::Child& c : f.children) {
    const auto [n, p] =
        place(*c.subtree, nodeBase + c.node + extraNodes, primBase + c.primAt + extraPrims, list);
    nodes.push_back(n);
    prims.push_back(p);
    extraNodes += n - 1;
    extraPrims += p;
  }
  (*list)[self].childNodes = std::move(nodes);
  (*list)[self].childPrims = std::move(prims);
  return {f.nodes.size() + extraNodes, f.prims.size() + extraPrims};
}

void copyFragment(const PlacedFragment& p, KdNode* nodes, uint32_t* prims) {
  const KdFragment& f = *p.fragment;
  std::vector<uint32_t> finalIndex(f.nodes.size());
  size_t extra = 0, c = 0;
  for (size_t i = 0; i < f.nodes.size(); ++i) {
    finalIndex[i] = uint32_t(p.nodeBase + i + extra);
    if (c < f.children.size() && f.children[c].node == i) extra += p.childNodes[c++] - 1;
  }
  // A leaf's primitives never straddle a link node: its offset maps like its first one.
  std::vector<uint32_t> finalPrim(f.prims.size() + 1);
  extra = 0, c = 0;
  for (size_t j = 0; j <= f.prims.size(); ++j) {
    while (c < f.children.size() && f.children[c].primAt == j) extra += p.childPrims[c++];
    finalPrim[j] = uint32_t(p.primBase + j + extra);
    if (j < f.prims.size()) prims[finalPrim[j]] = f.prims[j];
  }
  c = 0;
  for (size_t i = 0; i < f.nodes.size(); ++i) {
    if (c < f.children.size() && f.children[c].node == i) {
      ++c;  // the subtree's own fragment writes its root here
      continue;
    }
    KdNode n = f.nodes[i];
    if (!n.isLeaf())
      n.initInterior(n.axis(), n.split, finalIndex[n.aboveChild()]);
    else if (n.primitiveCount() > 1)
      n.primitiveOffset = finalPrim[n.primitiveOffset];
    nodes[finalIndex[i]] = n;
  }
}

}  // namespace

void joinFragments(const KdFragment& root, std::vector<KdNode>* nodes,
                   std::vector<uint32_t>* prims) {
  std::vector<PlacedFragment> list;
  const auto [nodeCount, primCount] = place(root, 0, 0, &list);
  if (nodeCount > kKdMaxField) throw std::length_error("kd-tree: more than 2^30 nodes");
  if (primCount > kKdMaxField)
    throw std::length_error("kd-tree: more than 2^30 primitive references");
  nodes->resize(nodeCount);
  prims->resize(primCount);
  const long count = long(list.size());
#pragma omp parallel for schedule(dynamic, 1) if (count > 1)
  for (long i = 0; i < count; ++i) copyFragment(list[size_t(i)], nodes->data(), prims->data());
}

double criticalPath(const KdFragment& f) {
  double path = f.span;
  for (const KdFragment::Child& c : f.children)
    path = std::max(path, c.spawnAt + criticalPath(*c.subtree));
  return path;
}

KdTreeStats computeStats(const KdTree& tree, const KdBuildOptions& options) {
  KdTreeStats s;
  s.buildSeconds = tree.buildSeconds;
  if (tree.nodes.empty()) return s;
  const double rootArea = tree.bounds.surfaceArea();
  struct Item {
    uint32_t node;
    Bounds3f box;
    size_t depth;
  };
  std::vector<Item> stack{{0, tree.bounds, 0}};
  size_t nonEmpty = 0;
  while (!stack.empty()) {
    const Item it = stack.back();
    stack.pop_back();
    const KdNode& n = tree.nodes[it.node];
    ++s.nodes;
    const double rel = rootArea > 0 ? it.box.surfaceArea() / rootArea : 1.0;
    if (n.isLeaf()) {
      const uint32_t c = n.primitiveCount();
      ++s.leaves;
      s.emptyLeaves += c == 0;
      nonEmpty += c > 0;
      s.primReferences += c;
      s.maxDepth = std::max(s.maxDepth, it.depth);
      if (c > 1 && size_t(n.primitiveOffset) + c > tree.primIndices.size())
        throw std::invalid_argument("kd-tree: leaf " + std::to_string(it.node) +
                                    " points past the primitive index array");
      s.sahCost += options.intersectCost * double(c) * rel;
      continue;
    }
    const uint32_t above = n.aboveChild();
    if (above <= it.node + 1 || above >= tree.nodes.size() || it.node + 1 >= tree.nodes.size())
      throw std::invalid_argument("kd-tree: node " + std::to_string(it.node) +
                                  " has a bad child index " + std::to_string(above));
    if (it.depth + 1 > size_t(kKdMaxDepth))
      throw std::invalid_argument("kd-tree: deeper than kKdMaxDepth = " +
                                  std::to_string(kKdMaxDepth));
    s.sahCost += options.traversalCost * rel;
    Bounds3f lo = it.box, hi = it.box;
    lo.hi[n.axis()] = n.split;
    hi.lo[n.axis()] = n.split;
    stack.push_back({above, hi, it.depth + 1});
    stack.push_back({it.node + 1, lo, it.depth + 1});
  }
  s.avgPrimsPerLeaf = nonEmpty ? double(s.primReferences) / double(nonEmpty) : 0.0;
  return s;
}

}  // namespace srt
