// Tracing a kd-tree from the tests and the benches alike: a traversable view of a tree built on
// the host (kdtree_trace_util.cpp, library streamrt_kdtree_trace_util) and, for CUDA sources, the
// one-thread-per-ray closest-hit kernel (kdtree_trace_util.cuh).
#pragma once

#include "renderer/accel/kdtree.h"
#include "renderer/accel/kdtree_build_sah.h"  // KdTree

namespace srt::test {

// A traversable view of a host-built tree over a host mesh.
KdTreeView hostView(const KdTree& tree, const TriangleMeshView& mesh);

}  // namespace srt::test
