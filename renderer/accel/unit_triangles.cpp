#include "renderer/accel/unit_triangles.h"

namespace srt {

std::vector<UnitTriangleRow> unitTriangleRowsOnHost(const TriangleMeshView& mesh) {
  std::vector<UnitTriangleRow> rows(3 * size_t(mesh.triangleCount));
  for (size_t t = 0; t < mesh.triangleCount; ++t) {
    const uint32_t* i = mesh.indices + 3 * t;
    unitTriangleRows(mesh.positions[i[0]], mesh.positions[i[1]], mesh.positions[i[2]],
                     &rows[3 * t]);
  }
  return rows;
}

}  // namespace srt
