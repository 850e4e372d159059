// What the dual-tree check (dual_tree_check.h) writes and its host replay reads: one text line per
// ray whose result depends on the tree or the kernel, every float as a C99 hex float so the ray
// comes back bit for bit; and an optional binary dump of a tree, for trees the host cannot
// rebuild bit for bit (a device-built one).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "renderer/accel/kdtree.h"
#include "renderer/accel/kdtree_build_sah.h"

namespace srt {

// The traces of one ray the check compares: the integrator's own result (closest hits only),
// then the standard traversal (intersectClosest / intersectAny) and the default persistent
// kernel, each against the primary and the second tree.
enum DualTreeRun : int {
  kRunIntegrator = 0,     // closest: the hit the integrator shaded; shadow: unused
  kRunPrimaryStandard,    // intersectClosest / intersectAny, the render's tree
  kRunSecondStandard,     // the same against the second tree
  kRunPrimaryPersistent,  // traceClosestPersistent / traceShadowsPersistent (CUDA only)
  kRunSecondPersistent,
  kDualTreeRuns
};

struct DualTreeRecord {
  uint32_t shadow = 0;  // 0: a closest-hit ray, 1: a shadow ray
  uint32_t pass = 0;    // the integrator's pass (the check's call count)
  uint32_t pixel = 0, sample = 0;
  float o[3] = {}, d[3] = {};
  float tMax = 0;
  // Closest: the hit of each run (tri ~0u: none; for the integrator run of a dead lane too).
  // Shadow: runs 1 and 2 hold the closest hit below tMax in the primary / second tree, to name
  // the blocker.
  float t[kDualTreeRuns] = {};
  uint32_t tri[kDualTreeRuns] = {};
  float b1[kDualTreeRuns] = {}, b2[kDualTreeRuns] = {};
  uint32_t occluded = 0;  // shadow: bit r set when run r found the ray blocked
  uint32_t ran = 0;       // bit r set when run r was traced
};

// The first line of a record file: the check's settings and what the trees were.
struct DualTreeHeader {
  std::string primaryBuilder, secondBuilder;
  uint64_t primaryHash = 0, secondHash = 0, meshHash = 0;
  uint32_t triangles = 0;
};

// FNV-1a over a tree's nodes, indices and bounds; over a mesh's positions and indices.
uint64_t hashKdTree(const KdTree& tree);
uint64_t hashMesh(const TriangleMeshView& hostMesh);

void writeDualTreeHeader(std::ostream& out, const DualTreeHeader& h);
void writeDualTreeRecord(std::ostream& out, const DualTreeRecord& r);
// Reads a whole file (header, then records; lines starting with '#' besides the header and
// summary lines are skipped). Throws std::runtime_error on a malformed line.
struct DualTreeFile {
  DualTreeHeader header;
  std::vector<DualTreeRecord> records;
};
DualTreeFile readDualTreeFile(const std::string& path);

// A tree in a small binary file (magic, counts, bounds, nodes, indices).
void writeKdTreeFile(const std::string& path, const KdTree& tree);
KdTree readKdTreeFile(const std::string& path);

// Whether two runs of a record agree: the same hit (t bits, triangle, barycentrics bits) or the
// same occlusion.
bool dualTreeRunsAgree(const DualTreeRecord& r, int a, int b);

}  // namespace srt
