// CPU kd-tree builder with the full surface area heuristic, in O(N log N) (Wald & Havran 2006,
// "On building fast kd-trees for ray tracing, and on doing that in O(N log N)"), and statistics
// for any finished tree, whoever built it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "renderer/accel/kdtree.h"

namespace srt {

struct KdBuildOptions {
  // SAH constants (kSahTraversalCost, kSahIntersectCost, kSahEmptyBonus in kdtree.h say why). The
  // cost of a leaf is intersectCost * N; a split that cuts off empty space costs 1 - emptyBonus
  // times its own.
  float traversalCost = kSahTraversalCost;
  float intersectCost = kSahIntersectCost;
  float emptyBonus = kSahEmptyBonus;
  // 0: 8 + 1.3 log2(N) as pbrt-v4, capped at kKdMaxDepth. Larger than kKdMaxDepth is an error.
  int maxDepth = 0;
  // OpenMP tasks over subtrees and over the axes of large nodes (every thread of the enclosing
  // team's default size); false: one thread. The tree is the same either way.
  bool parallel = true;
  // Parallel granularity (the tree is the same for any values): subtrees of at least
  // taskTriangles are tasks; nodes of at least wideNodeTriangles do their sweep, classification,
  // clipping and list split in chunks over all threads. 0: the defaults (256, 8192).
  size_t taskTriangles = 0;
  size_t wideNodeTriangles = 0;
};

// A finished tree in host memory, in the format of kdtree.h (any builder produces this).
struct KdTree {
  std::vector<KdNode> nodes;
  std::vector<uint32_t> primIndices;  // leaves with two or more primitives point in here
  Bounds3f bounds;
  double buildSeconds = 0;  // filled by the builder
};

struct KdTreeStats {
  size_t nodes = 0, leaves = 0, emptyLeaves = 0, maxDepth = 0;
  double avgPrimsPerLeaf = 0;  // primitive references per non-empty leaf
  double sahCost = 0;          // sum over nodes of cost * area / root area (no empty bonus)
  double buildSeconds = 0;
  size_t primReferences = 0;  // sum of leaf counts (a triangle in k leaves counts k times)
};

// Builds from triangles in host memory. Triangles with a non-finite vertex are left out (they can
// never be hit); degenerate (zero-area) triangles are kept and handled like any other.
// Throws std::invalid_argument for bad options or out-of-range vertex indices.
KdTree buildKdTreeSah(const TriangleMeshView& hostMesh, const KdBuildOptions& options = {});

// Walks the tree; the SAH cost uses options' traversal and intersection costs. Throws
// std::invalid_argument if the tree is malformed (bad child index, depth over kKdMaxDepth).
KdTreeStats computeStats(const KdTree& tree, const KdBuildOptions& options = {});

}  // namespace srt
