// Wald & Havran 2006 O(N log N) SAH kd-tree build: per axis, one list of sorted split events
// (end < planar < start at equal positions) is swept to find the best plane; the lists of the two
// children are made from the parent's by a linear split, and only the triangles straddling the
// plane are clipped ("perfect splits") and re-sorted.
//
// Robustness: each triangle's clipped bounds are widened by a few ulps of the scene's largest
// coordinate along the axes where the triangle is not flat, so a triangle is referenced by every
// voxel that rounding in the watertight test could let a ray hit it in. Triangles lying exactly in
// an axis plane stay flat and produce planar events.
#include "renderer/accel/kdtree_build_sah.h"

#include "renderer/accel/clip.h"

#include <omp.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace srt {
namespace {

enum EventType : uint32_t { kEnd = 0, kPlanar = 1, kStart = 2 };

struct Event {
  float pos;
  uint32_t code;  // triangle << 2 | type
  uint32_t tri() const { return code >> 2; }
  uint32_t type() const { return code & 3u; }
};
inline bool operator<(const Event& a, const Event& b) {
  return a.pos < b.pos || (a.pos == b.pos && (a.code & 3u) < (b.code & 3u));
}
using EventLists = std::array<std::vector<Event>, 3>;

enum Side : uint8_t { kBoth, kLeftOnly, kRightOnly };

struct SplitChoice {
  int axis = -1;
  float pos = 0;
  bool planarLeft = false;
  double cost = std::numeric_limits<double>::infinity();
};

// Nodes and primitive indices of a subtree, with child indices and offsets relative to itself.
struct Subtree {
  std::vector<KdNode> nodes;
  std::vector<uint32_t> prims;
};

void appendSubtree(const Subtree& sub, Subtree& out) {
  const size_t base = out.nodes.size(), primBase = out.prims.size();
  if (base + sub.nodes.size() > kKdMaxField)
    throw std::length_error("kd-tree: more than 2^30 nodes");
  for (KdNode n : sub.nodes) {
    if (!n.isLeaf())
      n.initInterior(n.axis(), n.split, n.aboveChild() + uint32_t(base));
    else if (n.primitiveCount() > 1)
      n.primitiveOffset += uint32_t(primBase);
    out.nodes.push_back(n);
  }
  out.prims.insert(out.prims.end(), sub.prims.begin(), sub.prims.end());
}

void freeEvents(EventLists& ev) {
  for (auto& e : ev) std::vector<Event>().swap(e);
}

class SahBuilder {
 public:
  SahBuilder(const TriangleMeshView& mesh, const KdBuildOptions& options, int maxDepth, float eps)
      : mesh_(mesh),
        options_(options),
        maxDepth_(maxDepth),
        eps_(eps),
        scratch_(size_t(omp_get_max_threads())) {}

  // Bounds of the part of triangle `tri` inside `voxel` (widened, see the file comment); false
  // when the triangle misses the voxel.
  bool clippedBounds(uint32_t tri, const Bounds3f& voxel, Bounds3f* out) const {
    Vec3f poly[2][12];
    for (int i = 0; i < 3; ++i) poly[0][i] = mesh_.positions[mesh_.indices[3 * size_t(tri) + i]];
    Bounds3f tb;
    for (int k = 0; k < 3; ++k) {
      tb.lo[k] = std::min(poly[0][0][k], std::min(poly[0][1][k], poly[0][2][k]));
      tb.hi[k] = std::max(poly[0][0][k], std::max(poly[0][1][k], poly[0][2][k]));
    }
    Bounds3f b = tb;
    int n = 3, cur = 0;
    bool clipped = false;
    for (int k = 0; k < 3 && n > 0; ++k) {  // only the planes that cut the triangle's bounds
      if (tb.lo[k] < voxel.lo[k] - eps_) {
        n = clipPolygon(poly[cur], n, k, voxel.lo[k] - eps_, true, poly[1 - cur]);
        cur = 1 - cur;
        clipped = true;
      }
      if (n > 0 && tb.hi[k] > voxel.hi[k] + eps_) {
        n = clipPolygon(poly[cur], n, k, voxel.hi[k] + eps_, false, poly[1 - cur]);
        cur = 1 - cur;
        clipped = true;
      }
    }
    if (n == 0) return false;
    if (clipped) {
      b.lo = b.hi = poly[cur][0];
      for (int i = 1; i < n; ++i)
        for (int k = 0; k < 3; ++k) {
          b.lo[k] = std::min(b.lo[k], poly[cur][i][k]);
          b.hi[k] = std::max(b.hi[k], poly[cur][i][k]);
        }
    }
    for (int k = 0; k < 3; ++k) {
      if (tb.lo[k] < tb.hi[k]) {  // flat triangles stay flat (planar events)
        b.lo[k] = std::max(b.lo[k] - eps_, tb.lo[k] - eps_);
        b.hi[k] = std::min(b.hi[k] + eps_, tb.hi[k] + eps_);
      }
    }
    for (int k = 0; k < 3; ++k) {
      b.lo[k] = std::max(b.lo[k], voxel.lo[k]);
      b.hi[k] = std::min(b.hi[k], voxel.hi[k]);
      if (b.lo[k] > b.hi[k]) return false;
    }
    *out = b;
    return true;
  }

  static void addEvents(uint32_t tri, const Bounds3f& b, EventLists& ev) {
    for (int k = 0; k < 3; ++k) {
      if (b.lo[k] == b.hi[k]) {
        ev[k].push_back({b.lo[k], tri << 2 | kPlanar});
      } else {
        ev[k].push_back({b.lo[k], tri << 2 | kStart});
        ev[k].push_back({b.hi[k], tri << 2 | kEnd});
      }
    }
  }

  // Builds the subtree for the triangles of `ev` (count of them) in `voxel`, appending to `out`.
  // Frees `ev`.
  void build(EventLists& ev, size_t count, const Bounds3f& voxel, int depth, Subtree& out) {
    SplitChoice split;
    if (count > 0 && depth < maxDepth_) split = findSplit(ev, count, voxel);
    if (split.axis < 0 || split.cost > double(options_.intersectCost) * double(count)) {
      makeLeaf(ev, count, out);
      freeEvents(ev);
      return;
    }
    Bounds3f left = voxel, right = voxel;
    left.hi[split.axis] = split.pos;
    right.lo[split.axis] = split.pos;
    EventLists evL, evR;
    size_t countL = 0, countR = 0;
    splitEvents(ev, split, left, right, evL, evR, &countL, &countR);
    freeEvents(ev);

    const size_t self = out.nodes.size();
    out.nodes.emplace_back();
    size_t above = 0;
    if (depth < options_.parallelDepth) {
      Subtree subL, subR;
#pragma omp task shared(evL, subL, left, countL) firstprivate(depth)
      build(evL, countL, left, depth + 1, subL);
#pragma omp task shared(evR, subR, right, countR) firstprivate(depth)
      build(evR, countR, right, depth + 1, subR);
#pragma omp taskwait
      appendSubtree(subL, out);
      above = out.nodes.size();
      appendSubtree(subR, out);
    } else {
      build(evL, countL, left, depth + 1, out);
      above = out.nodes.size();
      build(evR, countR, right, depth + 1, out);
    }
    if (above > kKdMaxField) throw std::length_error("kd-tree: more than 2^30 nodes");
    out.nodes[self].initInterior(split.axis, split.pos, uint32_t(above));
  }

 private:
  double lambda(size_t nl, size_t nr) const {
    return nl == 0 || nr == 0 ? 1.0 - double(options_.emptyBonus) : 1.0;
  }

  // The sweep of Wald & Havran section 4.3, one axis at a time. Planes on the voxel's faces are
  // skipped: they cut off nothing and would recurse without end.
  SplitChoice findSplit(const EventLists& ev, size_t count, const Bounds3f& voxel) const {
    SplitChoice best;
    const Vec3f d = voxel.diagonal();
    const double area = voxel.surfaceArea();
    if (!(area > 0)) return best;
    const double invArea = 2.0 / area;
    const double kT = options_.traversalCost, kI = options_.intersectCost;
    for (int k = 0; k < 3; ++k) {
      const float lo = voxel.lo[k], hi = voxel.hi[k];
      if (!(lo < hi)) continue;
      const double da = d[(k + 1) % 3], db = d[(k + 2) % 3];
      const std::vector<Event>& e = ev[k];
      size_t nl = 0, nr = count;
      for (size_t i = 0; i < e.size();) {
        const float p = e[i].pos;
        size_t ends = 0, planars = 0, starts = 0;
        while (i < e.size() && e[i].pos == p && e[i].type() == kEnd) ++ends, ++i;
        while (i < e.size() && e[i].pos == p && e[i].type() == kPlanar) ++planars, ++i;
        while (i < e.size() && e[i].pos == p && e[i].type() == kStart) ++starts, ++i;
        nr -= planars + ends;
        if (p > lo && p < hi) {
          const double dl = double(p) - lo, dr = double(hi) - p;
          const double pl = (dl * (da + db) + da * db) * invArea;
          const double pr = (dr * (da + db) + da * db) * invArea;
          const double costL =
              lambda(nl + planars, nr) * (kT + kI * (pl * double(nl + planars) + pr * double(nr)));
          const double costR =
              lambda(nl, nr + planars) * (kT + kI * (pl * double(nl) + pr * double(nr + planars)));
          const bool left = costL <= costR;
          const double cost = left ? costL : costR;
          if (cost < best.cost) best = {k, p, left, cost};
        }
        nl += starts + planars;
      }
    }
    return best;
  }

  void makeLeaf(const EventLists& ev, size_t count, Subtree& out) const {
    if (count > kKdMaxField) throw std::length_error("kd-tree: leaf with more than 2^30 triangles");
    KdNode leaf;
    if (count == 0) {
      leaf.initLeaf(0, 0);
    } else if (count == 1) {
      uint32_t tri = 0;
      for (const Event& e : ev[0])
        if (e.type() != kEnd) tri = e.tri();
      leaf.initLeaf(1, tri);
    } else {
      leaf.initLeaf(uint32_t(count), uint32_t(out.prims.size()));
      for (const Event& e : ev[0])
        if (e.type() != kEnd) out.prims.push_back(e.tri());
    }
    out.nodes.push_back(leaf);
  }

  // Wald & Havran section 5.2: classify, split the sorted lists in one pass, clip the straddling
  // triangles to both children, sort their new events and merge.
  void splitEvents(const EventLists& ev, const SplitChoice& s, const Bounds3f& left,
                   const Bounds3f& right, EventLists& outL, EventLists& outR, size_t* countL,
                   size_t* countR) {
    std::vector<uint8_t>& side = scratch_[size_t(omp_get_thread_num())];
    if (side.size() < mesh_.triangleCount) side.resize(mesh_.triangleCount);
    for (const Event& e : ev[0])
      if (e.type() != kEnd) side[e.tri()] = kBoth;
    for (const Event& e : ev[s.axis]) {
      const uint32_t t = e.type();
      if (t == kEnd && e.pos <= s.pos) side[e.tri()] = kLeftOnly;
      if (t == kStart && e.pos >= s.pos) side[e.tri()] = kRightOnly;
      if (t == kPlanar) {
        const bool toLeft = e.pos < s.pos || (e.pos == s.pos && s.planarLeft);
        side[e.tri()] = toLeft ? kLeftOnly : kRightOnly;
      }
    }
    std::vector<uint32_t> straddling;
    size_t onlyL = 0, onlyR = 0;
    for (const Event& e : ev[0]) {
      if (e.type() == kEnd) continue;
      const uint8_t sd = side[e.tri()];
      if (sd == kBoth) straddling.push_back(e.tri());
      onlyL += sd == kLeftOnly;
      onlyR += sd == kRightOnly;
    }
    EventLists newL, newR;
    size_t keptL = 0, keptR = 0;
    for (uint32_t tri : straddling) {
      Bounds3f b;
      if (clippedBounds(tri, left, &b)) addEvents(tri, b, newL), ++keptL;
      if (clippedBounds(tri, right, &b)) addEvents(tri, b, newR), ++keptR;
    }
    for (int k = 0; k < 3; ++k) {
      std::sort(newL[k].begin(), newL[k].end());
      std::sort(newR[k].begin(), newR[k].end());
      // Capacity for the worst case; the lists are freed as soon as the child has split them.
      outL[k].reserve(ev[k].size() + newL[k].size());
      outR[k].reserve(ev[k].size() + newR[k].size());
      size_t il = 0, ir = 0;
      for (const Event& e : ev[k]) {  // filter the parent's list, merging the new events in
        const uint8_t sd = side[e.tri()];
        if (sd == kLeftOnly) {
          while (il < newL[k].size() && newL[k][il] < e) outL[k].push_back(newL[k][il++]);
          outL[k].push_back(e);
        } else if (sd == kRightOnly) {
          while (ir < newR[k].size() && newR[k][ir] < e) outR[k].push_back(newR[k][ir++]);
          outR[k].push_back(e);
        }
      }
      outL[k].insert(outL[k].end(), newL[k].begin() + std::ptrdiff_t(il), newL[k].end());
      outR[k].insert(outR[k].end(), newR[k].begin() + std::ptrdiff_t(ir), newR[k].end());
    }
    *countL = onlyL + keptL;
    *countR = onlyR + keptR;
  }

  const TriangleMeshView& mesh_;
  const KdBuildOptions& options_;
  int maxDepth_;
  float eps_;
  std::vector<std::vector<uint8_t>> scratch_;  // per-thread triangle sides (no task switch inside)
};

bool finite(Vec3f v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

void checkOptions(const KdBuildOptions& o) {
  if (!(o.traversalCost > 0) || !(o.intersectCost > 0))
    throw std::invalid_argument("KdBuildOptions: traversalCost and intersectCost must be > 0");
  if (!(o.emptyBonus >= 0 && o.emptyBonus < 1))
    throw std::invalid_argument("KdBuildOptions: emptyBonus must be in [0, 1), got " +
                                std::to_string(o.emptyBonus));
  if (o.maxDepth < 0 || o.maxDepth > kKdMaxDepth)
    throw std::invalid_argument("KdBuildOptions: maxDepth " + std::to_string(o.maxDepth) +
                                " outside [0, " + std::to_string(kKdMaxDepth) + "]");
}

}  // namespace

KdTree buildKdTreeSah(const TriangleMeshView& mesh, const KdBuildOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  checkOptions(options);
  if (mesh.triangleCount > 0 && (!mesh.positions || !mesh.indices))
    throw std::invalid_argument("buildKdTreeSah: mesh with " + std::to_string(mesh.triangleCount) +
                                " triangles but no positions or indices");
  if (mesh.triangleCount > kKdMaxField)
    throw std::invalid_argument("buildKdTreeSah: more than 2^30 triangles");

  // Scale of the rounding the clipped bounds must absorb: a few ulps of the largest coordinate.
  std::vector<uint8_t> usable(mesh.triangleCount);
  float maxAbs = 0;
  size_t count = 0;
  for (uint32_t t = 0; t < mesh.triangleCount; ++t) {
    const Vec3f v[3] = {mesh.positions[mesh.indices[3 * size_t(t)]],
                        mesh.positions[mesh.indices[3 * size_t(t) + 1]],
                        mesh.positions[mesh.indices[3 * size_t(t) + 2]]};
    usable[t] = finite(v[0]) && finite(v[1]) && finite(v[2]);
    if (!usable[t]) continue;
    ++count;
    for (const Vec3f& p : v)
      maxAbs = std::max(maxAbs, std::max(std::fabs(p.x), std::max(std::fabs(p.y), std::fabs(p.z))));
  }
  const float eps = 16.f * std::numeric_limits<float>::epsilon() * maxAbs;
  const int maxDepth =
      options.maxDepth > 0
          ? options.maxDepth
          : std::min(kKdMaxDepth,
                     int(std::lround(8 + 1.3 * std::log2(double(std::max<size_t>(count, 1))))));

  SahBuilder builder(mesh, options, maxDepth, eps);
  Bounds3f everything;
  everything.lo = Vec3f(-std::numeric_limits<float>::max());
  everything.hi = Vec3f(std::numeric_limits<float>::max());
  EventLists events;
  Bounds3f bounds;
  for (auto& e : events) e.reserve(2 * count);
  for (uint32_t t = 0; t < mesh.triangleCount; ++t) {
    Bounds3f b;
    if (!usable[t] || !builder.clippedBounds(t, everything, &b)) continue;
    SahBuilder::addEvents(t, b, events);
    bounds.extend(b);
  }
  usable.clear();

  Subtree out;
#pragma omp parallel num_threads(options.parallelDepth > 0 ? omp_get_max_threads() : 1)
#pragma omp single
  {
    for (int k = 0; k < 3; ++k) {
#pragma omp task shared(events) firstprivate(k)
      std::sort(events[k].begin(), events[k].end());
    }
#pragma omp taskwait
    builder.build(events, count, bounds, 0, out);
  }

  KdTree tree;
  tree.nodes = std::move(out.nodes);
  tree.primIndices = std::move(out.prims);
  tree.bounds = bounds;
  tree.buildSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return tree;
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
