// A kd-tree's arrays in one memory space (host or CUDA), ready for traversal on that backend.
#pragma once

#include "primitives/common/memory.h"
#include "renderer/accel/kdtree.h"

namespace srt {

struct KdTree;

class DeviceKdTree {
 public:
  DeviceKdTree() = default;
  // Copies the tree's nodes and primitive indices into `space`.
  DeviceKdTree(const KdTree& tree, MemorySpace space);
  // Adopts arrays a builder filled in place (the GPU builder: the tree never visits the host).
  // Both buffers must be in the same space; nodes must hold exactly the tree's nodes.
  DeviceKdTree(Buffer<KdNode>&& nodes, Buffer<uint32_t>&& primIndices, const Bounds3f& bounds);

  // A view for traversal on the backend that owns `space`. The mesh's pointers must live in the
  // same space as the tree (device pointers for MemorySpace::Cuda).
  KdTreeView view(const TriangleMeshView& mesh) const;

  MemorySpace space() const { return nodes_.space(); }
  size_t nodeCount() const { return nodes_.size(); }
  size_t bytes() const { return nodes_.bytes() + primIndices_.bytes(); }
  const Bounds3f& bounds() const { return bounds_; }
  // The tree copied back to the host (statistics, comparisons with another builder).
  KdTree toHost() const;

 private:
  Buffer<KdNode> nodes_;
  Buffer<uint32_t> primIndices_;
  Bounds3f bounds_;
};

}  // namespace srt
