// The unit-triangle rows of a host mesh (TriangleMeshView::unitTriangles), for host tools and
// tests that trace as the renderer does. The renderer computes its own where the geometry lives
// (SceneData, on either backend), with the same unitTriangleRows and so the same bits.
#pragma once

#include <vector>

#include "renderer/accel/kdtree.h"

namespace srt {

// 3 rows per triangle of `mesh` (host pointers).
std::vector<UnitTriangleRow> unitTriangleRowsOnHost(const TriangleMeshView& mesh);

// `mesh` testing its triangles by `rows` instead of the watertight test.
inline TriangleMeshView withUnitTriangles(TriangleMeshView mesh,
                                          const std::vector<UnitTriangleRow>& rows) {
  mesh.unitTriangles = rows.data();
  return mesh;
}

}  // namespace srt
