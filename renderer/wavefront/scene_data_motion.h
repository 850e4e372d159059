// Moving animated instances to world space where the geometry lives (the per-frame rebuild), with
// the float operations of Transform::point and Transform::normal in the same order, so the result
// is the bits flatten() gives on the host.
#pragma once

#include <cstdint>

#include "base/math.h"
#include "renderer/accel/kdtree.h"
#include "renderer/backend/backend.h"

namespace srt {

// world[i] = x.point(object[i]) for i < count.
void transformPoints(const Backend& backend, const Vec3f* object, Vec3f* world, uint32_t count,
                     const Transform& x);
// world[i] = x.normal(object[i]) for i < count, given `inverse` = x.inverse().
void transformNormals(const Backend& backend, const Vec3f* object, Vec3f* world, uint32_t count,
                      const Transform& inverse);
// corners[i] = positions[indices[i]] for i in [first, first + count): traversal's copy of the
// triangles' corners (TriangleMeshView::corners).
void gatherCorners(const Backend& backend, const Vec3f* positions, const uint32_t* indices,
                   PackedVertex* corners, uint32_t first, uint32_t count);
// rows[3 t .. 3 t + 2] = unitTriangleRows of triangle t's corners, for t in
// [firstTriangle, firstTriangle + count) (TriangleMeshView::unitTriangles).
void computeUnitTriangles(const Backend& backend, const PackedVertex* corners,
                          UnitTriangleRow* rows, uint32_t firstTriangle, uint32_t count);

}  // namespace srt
