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

}  // namespace srt::bench
