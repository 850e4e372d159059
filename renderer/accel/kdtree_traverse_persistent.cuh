// The kd-tree traversal of kdtree.h cut into resumable steps, for persistent-thread kernels that
// keep one ray per lane in flight and run Aila & Laine's (2009) while-while loop over a warp:
// walkToLeaf() descends interior nodes until the lane holds a leaf, testLeaf() runs its triangles.
// Between the two the warp re-converges, so lanes that reach leaves at different depths wait for
// each other once per leaf instead of once per node (the if-if loop of a plain kernel).
//
// Results are bit-identical to intersectClosest(): the same front-to-back order, the same interval
// arithmetic and the same closest-hit rule (updateClosest: the least (t, triangle)), so the same
// triangles are tested and the same hit wins.
//
// Speculative traversal (Aila & Laine 2009, section 4): a lane that found a leaf keeps walking
// until every lane of the warp holds one, so the warp tests triangles together. It walks with a
// stale `closest` (the postponed leaf may still shorten it). That walk only adds node visits: the
// skip test `closest < tMin` is re-done with the true `closest` before any leaf is tested, tMin
// never decreases along a descent, and entries pushed under a node the standard traversal would
// have skipped start at or after that node's tMin, so they are skipped too. No triangle test is
// added, dropped or reordered. The steps are host-device code so a CPU test can drive them with
// any speculation pattern (tests/accel/traversal_persistent_test.cu).
#pragma once

#include <cstring>

#include "renderer/accel/kdtree.h"

#if !defined(__CUDACC__)
#error "kdtree_traverse_persistent.cuh holds device code: include it from .cu files only"
#endif

namespace srt::persistent {

constexpr uint32_t kFullWarp = 0xffffffffu;
constexpr uint32_t kNoNode = 0xffffffffu;

// One lane's ray in flight. The stack (kKdMaxDepth entries) lives beside it in the kernel.
struct KdLane {
  Ray ray;
  Vec3f invDir;
  float tMin, tMax;  // the interval of `node`
  float closest;     // the nearest hit so far, or ray.tMax: nodes starting after it are skipped
  uint32_t node;     // next node to visit; kNoNode once the stack ran empty
  uint32_t leaf;     // a leaf waiting for its triangle tests; kNoNode when none
  float leafTMin;    // that leaf's tMin, for the skip test redone with the final `closest`
  int top;
  bool found;
  Hit hit;
};

// The speculation vote of a warp: whether every lane still walking holds a leaf.
struct WarpHoldsLeaves {
  __device__ bool operator()(bool mine) const { return __all_sync(__activemask(), mine); }
};

// Sets the lane up for `ray`; false when the ray misses the tree's bounds (or the tree is empty),
// exactly where traverseKdTree returns false before its loop.
SRT_CPU_GPU SRT_INLINE bool startLane(const KdTreeView& tree, const Ray& ray, KdLane& l) {
  if (tree.nodes == nullptr || !detail::clipRayToBounds(tree.bounds, ray, &l.tMin, &l.tMax))
    return false;
  l.ray = ray;
  l.invDir = Vec3f(1.f / ray.d.x, 1.f / ray.d.y, 1.f / ray.d.z);
  l.closest = ray.tMax;
  l.node = 0;
  l.leaf = kNoNode;
  l.leafTMin = 0.f;
  l.top = 0;
  l.found = false;
  return true;
}

SRT_CPU_GPU SRT_INLINE void popNode(KdLane& l, const detail::KdStackEntry* stack) {
  if (l.top == 0) {
    l.node = kNoNode;
    return;
  }
  --l.top;
  l.node = stack[l.top].node;
  l.tMin = stack[l.top].tMin;
  l.tMax = stack[l.top].tMax;
}

// One interior node, exactly as traverseKdTree handles it.
SRT_CPU_GPU SRT_INLINE void descend(const KdNode& node, KdLane& l, detail::KdStackEntry* stack) {
  const int axis = node.axis();
  const float split = node.split, o = l.ray.o[axis], d = l.ray.d[axis];
  const uint32_t below = l.node + 1, above = node.aboveChild();
  if (d == 0.f) {  // parallel to the plane: the side holding the origin, both if on it
    if (o < split) {
      l.node = below;
    } else if (o > split) {
      l.node = above;
    } else {
      if (l.top < kKdMaxDepth) stack[l.top++] = {above, l.tMin, l.tMax};
      l.node = below;
    }
    return;
  }
  const float tPlane = (split - o) * l.invDir[axis];
  const bool belowFirst = o < split || (o == split && d < 0.f);
  const uint32_t first = belowFirst ? below : above, second = belowFirst ? above : below;
  if (tPlane <= 0.f || tPlane > l.tMax * (1.f + kKdIntervalSlack)) {
    l.node = first;
  } else if (tPlane < l.tMin * (1.f - kKdIntervalSlack)) {
    l.node = second;
  } else {
    if (l.top < kKdMaxDepth)
      stack[l.top++] = {second, fmaxf(l.tMin, tPlane * (1.f - kKdIntervalSlack)), l.tMax};
    l.node = first;
    l.tMax = fminf(l.tMax, tPlane * (1.f + kKdIntervalSlack));
  }
}

// The inner "while node is interior" loop: walks until the lane holds a leaf (l.leaf) or its stack
// is empty. Without speculation a lane stops at its first leaf; with it, it goes on (remembering
// the first leaf) until allHoldLeaves(l.leaf != kNoNode) says every lane still walking holds one
// (WarpHoldsLeaves on the device), or it meets a second leaf.
template <bool kSpeculative, typename Vote>
SRT_CPU_GPU SRT_INLINE void walkToLeaf(const KdTreeView& tree, KdLane& l,
                                       detail::KdStackEntry* stack, Vote allHoldLeaves) {
  while (l.node != kNoNode) {
    bool stop = false;
    if (l.closest < l.tMin) {
      popNode(l, stack);  // everything in this node is behind the nearest hit
    } else {
      const KdNode node = loadNode(tree, l.node);
      if (!node.isLeaf()) {
        descend(node, l, stack);
      } else if (l.leaf != kNoNode) {
        stop = true;  // a leaf is already waiting: this one is visited in the next round
      } else {
        l.leaf = l.node;
        l.leafTMin = l.tMin;
        popNode(l, stack);
        stop = !kSpeculative;
      }
    }
    if (stop) break;
    if (kSpeculative && allHoldLeaves(l.leaf != kNoNode)) break;
  }
}

// The "while the leaf has triangles" loop, with the skip test redone for a postponed leaf.
// kAnyHit (shadow rays, intersectAny): the first hit ends the ray; `closest` stays ray.tMax.
template <bool kAnyHit = false>
SRT_CPU_GPU SRT_INLINE void testLeaf(const KdTreeView& tree, KdLane& l) {
  if (l.leaf == kNoNode) return;
  if (!(l.closest < l.leafTMin)) {
    const KdNode node = loadNode(tree, l.leaf);
    const uint32_t count = node.primitiveCount();
    // Once per leaf: no register per lane.
    const WatertightRay shear = triangleSetup(tree.mesh, l.ray.d);
    for (uint32_t i = 0; i < count; ++i) {
      const uint32_t tri =
          count == 1 ? node.onePrimitive : loadIndex(tree.primIndices + node.primitiveOffset + i);
      if (kAnyHit) {
        if (intersectMeshTriangle(tree.mesh, tri, l.ray, shear, l.ray.tMax, &l.hit)) {
          l.found = true;
          l.node = kNoNode;
          break;
        }
      } else if (updateClosestBelow(tree.mesh, tri, l.ray, shear, l.closest, &l.hit)) {
        l.found = true;
        l.closest = l.hit.t;
      }
    }
  }
  l.leaf = kNoNode;
}

// The lane's ray has no node and no leaf left.
SRT_CPU_GPU SRT_INLINE bool laneDone(const KdLane& l) {
  return l.node == kNoNode && l.leaf == kNoNode;
}

// ---- Cooperative leaf tests: the warp's leaves as one pool of (ray, triangle) pairs ----
//
// testLeaf() runs a lane's triangles in its own loop, so a warp waits for its largest leaf while
// lanes with small leaves (or none) idle. Instead, a round lays the triangles of every lane's
// postponed leaf end to end and deals them out 32 at a time: lane j tests pair j for whichever
// lane owns it, and the owner keeps the least (t, triangle) as one 64-bit key (hitKey), merged
// with atomicMin. The result does not depend on which lane tests what or in what order: t and the
// barycentrics of a (ray, triangle) pair do not depend on the limit, and the limit (the owner's
// best t widened by kTieMargin, from its best at the start of the round or of a later chunk) is
// never below the one the sequential loop uses at that triangle, so no possible winner is cut.
// The host steps below are driven in any order by a CPU test; the warp version is in
// renderer/wavefront/intersect_persistent.cu.

constexpr uint64_t kNoHitKey = ~uint64_t(0);

SRT_CPU_GPU SRT_INLINE uint32_t floatBits(float f) {
#if SRT_IS_GPU_CODE
  return __float_as_uint(f);
#else
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
#endif
}

SRT_CPU_GPU SRT_INLINE float bitsFloat(uint32_t u) {
#if SRT_IS_GPU_CODE
  return __uint_as_float(u);
#else
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
#endif
}

// The order of nearerHit as one integer: hits have t > 0, and the bits of positive floats order
// like their values, so (t bits, triangle) compares as (t, triangle) does.
SRT_CPU_GPU SRT_INLINE uint64_t hitKey(float t, uint32_t tri) {
  return uint64_t(floatBits(t)) << 32 | tri;
}
SRT_CPU_GPU SRT_INLINE float keyT(uint64_t key) {
  return bitsFloat(uint32_t(key >> 32));
}

// A lane's key before a round: its best hit so far, or none.
SRT_CPU_GPU SRT_INLINE uint64_t laneKey(const KdLane& l) {
  return l.found ? hitKey(l.hit.t, l.hit.triangle) : kNoHitKey;
}

// The triangles a lane hands to the round: its postponed leaf unless the skip test (redone with
// the final `closest`, as testLeaf does) drops it. Clears the lane's leaf.
struct LeafWork {
  uint32_t count = 0;
  uint32_t word = 0;  // the one primitive (count 1) or the offset of the leaf's indices
};

SRT_CPU_GPU SRT_INLINE LeafWork takeLeaf(const KdTreeView& tree, KdLane& l) {
  LeafWork w;
  if (l.leaf != kNoNode && !(l.closest < l.leafTMin)) {
    const KdNode node = loadNode(tree, l.leaf);
    w.count = node.primitiveCount();
    w.word = node.onePrimitive;
  }
  l.leaf = kNoNode;
  return w;
}

SRT_CPU_GPU SRT_INLINE uint32_t leafTriangle(const KdTreeView& tree, uint32_t count, uint32_t word,
                                             uint32_t k) {
  return count == 1 ? word : loadIndex(tree.primIndices + word + k);
}

// What another lane needs of the owner's ray to test a triangle for it. `limit`: closest hits,
// updateClosest's limit at the start of the round; any hit, ray.tMax.
struct PairRay {
  Vec3f o, d;
  float limit;
};

template <bool kAnyHit>
SRT_CPU_GPU SRT_INLINE PairRay pairRay(const KdLane& l) {
  // l.closest is the best t when found, else ray.tMax (whose widening fminf discards).
  return {l.ray.o, l.ray.d,
          kAnyHit ? l.ray.tMax : fminf(l.ray.tMax, l.closest * (1.f + kTieMargin))};
}

// One pair of a round, by the unit-triangle test (the mesh must carry its rows). Closest hits:
// true with *h set when `tri` hits within the limit (tightened by the owner's key as the round has
// it now); the caller merges hitKey(h->t, tri). Any hit: true when `tri` blocks the ray.
template <bool kAnyHit>
SRT_CPU_GPU SRT_INLINE bool testPair(const TriangleMeshView& mesh, const PairRay& r, uint32_t tri,
                                     uint64_t ownerKey, Hit* h) {
  float limit = r.limit;
  if (!kAnyHit && ownerKey != kNoHitKey) limit = fminf(limit, keyT(ownerKey) * (1.f + kTieMargin));
  return intersectUnitTriangle(mesh, tri, r.o, r.d, limit, &h->t, &h->b1, &h->b2);
}

// The owner takes the round's result: `key` is its merged key, b1/b2 the barycentrics of the
// pair that set it (unused when the key is the lane's own from before the round).
template <bool kAnyHit>
SRT_CPU_GPU SRT_INLINE void finishRound(KdLane& l, uint64_t key, float b1, float b2) {
  if (key == laneKey(l)) return;
  l.found = true;
  if (kAnyHit) {
    l.node = kNoNode;  // blocked: the ray is done
    return;
  }
  l.hit.t = keyT(key);
  l.hit.triangle = uint32_t(key);
  l.hit.b1 = b1;
  l.hit.b2 = b2;
  l.closest = l.hit.t;
}

}  // namespace srt::persistent
