// Meshes for the kd-tree benchmarks: OBJ through tinyobjloader, PLY (and anything else assimp
// reads) through assimp, flattened to one indexed triangle list with no scene transforms.
#pragma once

#include <string>
#include <vector>

#include "renderer/accel/kdtree.h"

namespace srt::bench {

struct HostMesh {
  std::string name;  // the file's base name
  std::vector<Vec3f> positions;
  std::vector<uint32_t> indices;
  uint32_t triangleCount() const { return uint32_t(indices.size() / 3); }
  TriangleMeshView view() const { return {positions.data(), indices.data(), triangleCount()}; }
};

// Throws std::runtime_error naming the file when it cannot be read.
HostMesh loadMesh(const std::string& path);

// The mesh with its longest edges halved, one triangle at a time (longest first, ties by index),
// until it has `triangles` triangles: a dense, even surface like a scan's from a small model
// (the teapot's 23,732 triangles to the Stanford dragon's 871,414), the same on every machine.
// Split vertices are not shared with the neighbours (T-junctions do not matter to a build).
// Named "<name>@<triangles>"; a mesh that has as many already is returned as it is.
HostMesh refineTo(const HostMesh& mesh, uint32_t triangles);

// n rays with origins uniform in `b` and directions uniform on the sphere (rays that start among
// the geometry, as secondary rays do), the same for a given seed on every machine.
std::vector<Ray> randomRays(const Bounds3f& b, size_t n, uint64_t seed);

// Milliseconds of the fastest of `repeats` closest-hit passes over `rays` (device memory) through
// `tree` (device memory), one thread per ray; *hits receives how many hit. bench_trace.cu.
double traceOnDevice(const KdTreeView& tree, const Ray* rays, uint32_t n, int repeats,
                     size_t* hits);

}  // namespace srt::bench
