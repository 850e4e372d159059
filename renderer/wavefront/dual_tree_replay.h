// The host side of the dual-tree check (dual_tree_check.h): traces a recorded ray again against
// both trees with the host traversal, and explains a ray in one tree: the leaves the traversal
// visits (with their intervals, and which were skipped behind the nearest hit), and for chosen
// triangles every leaf that references them, with the leaf's box, the triangle's clipped box in
// it and the ray's interval there. streamrt-dual-tree-replay (bench/accel) drives it.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <vector>

#include "renderer/accel/kdtree.h"
#include "renderer/accel/kdtree_build_sah.h"
#include "renderer/wavefront/dual_tree_check_format.h"

namespace srt {

// The recorded ray (tMax as recorded: infinite for closest-hit rays).
Ray recordRay(const DualTreeRecord& r);

// The host's standard traversal of a record's ray against `tree`, as the run `run` of a record
// holds it (closest: the hit; shadow: occlusion in bit `run` and the closest hit below tMax).
struct HostReplay {
  Hit closest;  // triangle ~0u: none
  bool occluded = false;
};
HostReplay replayOnHost(const DualTreeRecord& r, const KdTreeView& tree);

// The clipping allowance both builders use (16 ulps of the mesh's largest coordinate).
float kdClipEpsilon(const TriangleMeshView& mesh);

// Writes, for `tree`, the standard closest-hit traversal of `ray` leaf by leaf, then for every
// triangle of `triangles` the leaves that hold it. `eps`: kdClipEpsilon.
void explainRay(std::ostream& out, const Ray& ray, const KdTree& tree, const TriangleMeshView& mesh,
                const std::vector<uint32_t>& triangles, float eps);

}  // namespace srt
