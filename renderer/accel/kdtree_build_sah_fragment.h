// Internal to the CPU SAH builder: the output of one build task, and the pass that joins the
// tasks' outputs into one depth-first tree.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "renderer/accel/kdtree.h"

namespace srt {

// Nodes and primitive indices of a subtree in depth-first order, child indices and primitive
// offsets relative to the fragment. A subtree built by another task is one link node here,
// listed in `children` with the fragment that holds it; its primitive indices go in front of
// prims[primAt], so the joined arrays are those of a serial build.
struct KdFragment {
  struct Child {
    uint32_t node, primAt;
    std::unique_ptr<KdFragment> subtree;
    double spawnAt = 0;  // on the spawning task's path (span estimate only)
  };
  std::vector<KdNode> nodes;
  std::vector<uint32_t> prims;
  std::vector<Child> children;
  double span = 0;  // the building task's own path in seconds (span estimate only)
};

// The critical path of the build under `f`: its task's own path, or a subtree's spawn point
// plus that subtree's critical path.
double criticalPath(const KdFragment& f);

// Joins the fragments under `root` into one depth-first node array and primitive index array, each
// fragment copied once (in parallel over fragments). Throws std::length_error past 2^30 nodes.
void joinFragments(const KdFragment& root, std::vector<KdNode>* nodes,
                   std::vector<uint32_t>* prims);

}  // namespace srt
