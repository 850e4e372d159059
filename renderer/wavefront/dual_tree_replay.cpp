#include "renderer/wavefront/dual_tree_replay.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>

#include "renderer/accel/clip.h"

namespace srt {
namespace {

std::string hex(float f) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%a", double(f));
  return buf;
}

std::string box(const Bounds3f& b) {
  std::string s = "[";
  for (int k = 0; k < 3; ++k) s += hex(b.lo[k]) + (k < 2 ? " " : "] - [");
  for (int k = 0; k < 3; ++k) s += hex(b.hi[k]) + (k < 2 ? " " : "]");
  return s;
}

// Every leaf with its box, in depth-first order.
struct LeafBox {
  uint32_t node;
  Bounds3f bounds;
  int depth;
};

void collectLeaves(const KdTree& tree, uint32_t node, Bounds3f b, int depth,
                   std::vector<LeafBox>& out) {
  for (;;) {
    const KdNode& n = tree.nodes[node];
    if (n.isLeaf()) {
      out.push_back({node, b, depth});
      return;
    }
    Bounds3f above = b;
    above.lo[n.axis()] = n.split;
    b.hi[n.axis()] = n.split;
    collectLeaves(tree, n.aboveChild(), above, depth + 1, out);
    ++node;
    ++depth;
  }
}

bool leafHolds(const KdTree& tree, uint32_t leaf, uint32_t tri) {
  const KdNode& n = tree.nodes[leaf];
  const uint32_t count = n.primitiveCount();
  if (count == 1) return n.onePrimitive == tri;
  for (uint32_t i = 0; i < count; ++i)
    if (tree.primIndices[n.primitiveOffset + i] == tri) return true;
  return false;
}

void triangleVertices(const TriangleMeshView& m, uint32_t tri, Vec3f v[3]) {
  for (int i = 0; i < 3; ++i) v[i] = m.positions[m.indices[3 * size_t(tri) + i]];
}

// The leaves traverseKdTree visits, in order: the same stack walk, printing each leaf (and each
// node skipped behind the nearest hit) with its interval.
void walkLeaves(std::ostream& out, const Ray& ray, const KdTree& tree, const KdTreeView& view) {
  float tMin, tMax;
  if (!detail::clipRayToBounds(view.bounds, ray, &tMin, &tMax)) {
    out << "  misses the tree's bounds\n";
    return;
  }
  const Vec3f invDir(1.f / ray.d.x, 1.f / ray.d.y, 1.f / ray.d.z);
  const WatertightRay shear = triangleSetup(view.mesh, ray.d);
  float closest = ray.tMax;
  Hit best;
  std::vector<detail::KdStackEntry> stack;
  uint32_t index = 0;
  for (;;) {
    const KdNode& node = tree.nodes[index];
    if (closest < tMin) {
      out << "  skip node " << index << " [" << hex(tMin) << ", " << hex(tMax) << "] behind t "
          << hex(closest) << "\n";
    } else if (!node.isLeaf()) {
      const int axis = node.axis();
      const float split = node.split, o = ray.o[axis], d = ray.d[axis];
      const uint32_t below = index + 1, above = node.aboveChild();
      if (d == 0.f) {
        if (o < split)
          index = below;
        else if (o > split)
          index = above;
        else
          stack.push_back({above, tMin, tMax}), index = below;
        continue;
      }
      const detail::KdSplitStep s =
          detail::kdSplitStep(split, o, d, invDir[axis], below, above, tMin, tMax);
      index = s.visit == detail::KdSplitStep::kSecond ? s.second : s.first;
      if (s.visit == detail::KdSplitStep::kBoth)
        stack.push_back({s.second, s.splitTMin, tMax}), tMax = s.splitTMax;
      continue;
    } else {
      const uint32_t count = node.primitiveCount();
      out << "  leaf " << index << " [" << hex(tMin) << ", " << hex(tMax) << "] " << count
          << " triangles";
      for (uint32_t i = 0; i < count; ++i) {
        const uint32_t tri =
            count == 1 ? node.onePrimitive : tree.primIndices[node.primitiveOffset + i];
        Hit h;
        if (intersectMeshTriangle(view.mesh, tri, ray, shear, ray.tMax, &h))
          out << " | hits " << tri << " at " << hex(h.t);
        if (updateClosestBelow(view.mesh, tri, ray, shear, closest, &best)) closest = best.t;
      }
      out << "\n";
    }
    if (stack.empty()) break;
    index = stack.back().node;
    tMin = stack.back().tMin;
    tMax = stack.back().tMax;
    stack.pop_back();
  }
  out << "  result: triangle " << best.triangle << " t " << hex(best.t) << "\n";
}

}  // namespace

Ray recordRay(const DualTreeRecord& r) {
  Ray ray;
  ray.o = Vec3f(r.o[0], r.o[1], r.o[2]);
  ray.d = Vec3f(r.d[0], r.d[1], r.d[2]);
  ray.tMax = r.tMax;
  return ray;
}

HostReplay replayOnHost(const DualTreeRecord& r, const KdTreeView& tree) {
  HostReplay h;
  const Ray ray = recordRay(r);
  if (!intersectClosest(tree, ray, &h.closest)) h.closest = Hit{};
  h.occluded = intersectAny(tree, ray);
  return h;
}

float kdClipEpsilon(const TriangleMeshView& mesh) {
  float m = 0.f;
  for (uint32_t i = 0; i < 3 * mesh.triangleCount; ++i) {
    const Vec3f p = mesh.positions[mesh.indices[i]];
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) continue;
    m = std::max(m, std::max(std::fabs(p.x), std::max(std::fabs(p.y), std::fabs(p.z))));
  }
  return 16.f * FLT_EPSILON * m;
}

void explainRay(std::ostream& out, const Ray& ray, const KdTree& tree, const TriangleMeshView& mesh,
                const std::vector<uint32_t>& triangles, float eps) {
  KdTreeView view{tree.nodes.data(), tree.primIndices.data(), tree.bounds, mesh};
  walkLeaves(out, ray, tree, view);
  std::vector<LeafBox> leaves;
  collectLeaves(tree, 0, tree.bounds, 0, leaves);
  for (uint32_t tri : triangles) {
    Vec3f v[3];
    triangleVertices(mesh, tri, v);
    Hit h;
    const bool hit = intersectMeshTriangle(mesh, tri, ray, kInf, &h);
    out << "  triangle " << tri << (hit ? " hit at t " + hex(h.t) : std::string(" missed"))
        << ", corners";
    for (const Vec3f& p : v) out << " (" << hex(p.x) << " " << hex(p.y) << " " << hex(p.z) << ")";
    out << "\n";
    if (hit) {  // the leaf holding the hit point, as o + t d rounds
      const Vec3f p = ray.o + ray.d * h.t;
      for (const LeafBox& leaf : leaves)
        if (leaf.bounds.lo.x <= p.x && p.x <= leaf.bounds.hi.x && leaf.bounds.lo.y <= p.y &&
            p.y <= leaf.bounds.hi.y && leaf.bounds.lo.z <= p.z && p.z <= leaf.bounds.hi.z)
          out << "    hit point (" << hex(p.x) << " " << hex(p.y) << " " << hex(p.z) << ") in leaf "
              << leaf.node << (leafHolds(tree, leaf.node, tri) ? " (holds it)\n" : " (not held)\n");
    }
    size_t elsewhere = 0;  // leaves holding it that the ray does not cross
    for (const LeafBox& leaf : leaves) {
      if (!leafHolds(tree, leaf.node, tri)) continue;
      float t0 = 0, t1 = 0;
      if (!detail::clipRayToBounds(leaf.bounds, ray, &t0, &t1)) {
        ++elsewhere;
        continue;
      }
      Vec3f lo, hi;
      const bool in = clipTriangleBounds(v, leaf.bounds.lo, leaf.bounds.hi, eps, &lo, &hi);
      out << "    in leaf " << leaf.node << " depth " << leaf.depth << " box " << box(leaf.bounds)
          << "\n      clipped " << (in ? box(Bounds3f{lo, hi}) : "none") << "; ray [" << hex(t0)
          << ", " << hex(t1) << "]\n";
    }
    out << "    and " << elsewhere << " more leaves hold it, which the ray does not cross\n";
  }
}

}  // namespace srt
