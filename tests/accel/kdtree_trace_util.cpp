#include "tests/accel/kdtree_trace_util.h"

namespace srt::test {

KdTreeView hostView(const KdTree& tree, const TriangleMeshView& mesh) {
  KdTreeView v;
  v.nodes = tree.nodes.data();
  v.primIndices = tree.primIndices.data();
  v.bounds = tree.bounds;
  v.mesh = mesh;
  return v;
}

}  // namespace srt::test
