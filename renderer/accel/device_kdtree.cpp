#include "renderer/accel/device_kdtree.h"

#include "renderer/accel/kdtree_build_sah.h"

namespace srt {

DeviceKdTree::DeviceKdTree(const KdTree& tree, MemorySpace space)
    : nodes_(space, tree.nodes), primIndices_(space, tree.primIndices), bounds_(tree.bounds) {}

KdTreeView DeviceKdTree::view(const TriangleMeshView& mesh) const {
  KdTreeView v;
  v.nodes = nodes_.empty() ? nullptr : nodes_.data();
  v.primIndices = primIndices_.data();
  v.bounds = bounds_;
  v.mesh = mesh;
  return v;
}

}  // namespace srt
