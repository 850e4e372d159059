#include "renderer/accel/device_kdtree.h"

#include "renderer/accel/kdtree_build_sah.h"

#include <stdexcept>
#include <utility>

namespace srt {

DeviceKdTree::DeviceKdTree(const KdTree& tree, MemorySpace space)
    : nodes_(space, tree.nodes), primIndices_(space, tree.primIndices), bounds_(tree.bounds) {}

DeviceKdTree::DeviceKdTree(Buffer<KdNode>&& nodes, Buffer<uint32_t>&& primIndices,
                           const Bounds3f& bounds)
    : nodes_(std::move(nodes)), primIndices_(std::move(primIndices)), bounds_(bounds) {
  if (!nodes_.empty() && !primIndices_.empty() && nodes_.space() != primIndices_.space())
    throw std::invalid_argument("DeviceKdTree: nodes and primitive indices in different spaces");
}

KdTreeView DeviceKdTree::view(const TriangleMeshView& mesh) const {
  KdTreeView v;
  v.nodes = nodes_.empty() ? nullptr : nodes_.data();
  v.primIndices = primIndices_.data();
  v.bounds = bounds_;
  v.mesh = mesh;
  return v;
}

KdTree DeviceKdTree::toHost() const {
  KdTree tree;
  tree.nodes = nodes_.download();
  tree.primIndices = primIndices_.download();
  tree.bounds = bounds_;
  return tree;
}

}  // namespace srt
