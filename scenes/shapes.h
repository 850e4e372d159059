// Analytic shapes as triangle meshes, with per-vertex normals and uvs, every triangle using
// material `material`.
#pragma once

#include "scenes/scene.h"

namespace srt {

// UV sphere with smooth normals: `subdivisions` rings (>= 2) and 2 * subdivisions segments.
// inwardNormals flips normals and winding (a sphere seen from inside, e.g. an enclosing dome).
Mesh makeSphere(Vec3f center, float radius, int subdivisions = 32, bool inwardNormals = false,
                uint32_t material = 0);

// Parallelogram corner, corner + edge1, corner + edge1 + edge2, corner + edge2; its normal is
// normalize(cross(edge1, edge2)).
Mesh makeQuad(Vec3f corner, Vec3f edge1, Vec3f edge2, uint32_t material = 0);

// Axis-aligned box with outward normals, 24 vertices (flat faces).
Mesh makeBox(Vec3f lo, Vec3f hi, uint32_t material = 0);

// A quad from four corners in order (any planar convex quad), flat normal from the winding.
Mesh makeQuad4(Vec3f a, Vec3f b, Vec3f c, Vec3f d, uint32_t material = 0);

// Appends `src` to `dst` (indices rebased). Both must agree on having normals/uvs.
void appendMesh(Mesh& dst, const Mesh& src);

}  // namespace srt
