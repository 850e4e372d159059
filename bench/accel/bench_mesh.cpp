#include "bench/accel/bench_mesh.h"

#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <tiny_obj_loader.h>

#include <assimp/Importer.hpp>
#include <cmath>
#include <random>
#include <stdexcept>

namespace srt::bench {
namespace {

std::string baseName(const std::string& path) {
  return path.substr(path.find_last_of('/') + 1);
}

HostMesh loadObj(const std::string& path) {
  tinyobj::ObjReaderConfig config;
  config.triangulate = true;
  config.mtl_search_path = "";
  tinyobj::ObjReader reader;
  if (!reader.ParseFromFile(path, config))
    throw std::runtime_error("cannot read OBJ " + path + ": " + reader.Error());
  HostMesh m;
  m.name = baseName(path);
  const auto& v = reader.GetAttrib().vertices;
  for (size_t i = 0; i + 2 < v.size(); i += 3) m.positions.push_back({v[i], v[i + 1], v[i + 2]});
  for (const auto& shape : reader.GetShapes())
    for (const auto& idx : shape.mesh.indices) {
      if (idx.vertex_index < 0 || size_t(idx.vertex_index) >= m.positions.size())
        throw std::runtime_error(path + ": vertex index out of range");
      m.indices.push_back(uint32_t(idx.vertex_index));
    }
  return m;
}

// All meshes, triangulated; points and lines are dropped.
HostMesh loadWithAssimp(const std::string& path) {
  Assimp::Importer importer;
  const aiScene* scene = importer.ReadFile(path, aiProcess_Triangulate);
  if (!scene) throw std::runtime_error("cannot read " + path + ": " + importer.GetErrorString());
  HostMesh m;
  m.name = baseName(path);
  for (unsigned k = 0; k < scene->mNumMeshes; ++k) {
    const aiMesh* mesh = scene->mMeshes[k];
    const uint32_t base = uint32_t(m.positions.size());
    for (unsigned i = 0; i < mesh->mNumVertices; ++i)
      m.positions.push_back({mesh->mVertices[i].x, mesh->mVertices[i].y, mesh->mVertices[i].z});
    for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
      if (mesh->mFaces[f].mNumIndices != 3) continue;
      for (int j = 0; j < 3; ++j) m.indices.push_back(base + mesh->mFaces[f].mIndices[j]);
    }
  }
  return m;
}

}  // namespace

HostMesh loadMesh(const std::string& path) {
  const std::string ext = path.size() > 4 ? path.substr(path.size() - 4) : "";
  return ext == ".obj" || ext == ".OBJ" ? loadObj(path) : loadWithAssimp(path);
}

std::vector<Ray> randomRays(const Bounds3f& b, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::vector<Ray> rays(n);
  for (Ray& r : rays) {
    for (int k = 0; k < 3; ++k) r.o[k] = b.lo[k] + u(rng) * (b.hi[k] - b.lo[k]);
    const float z = 1.f - 2.f * u(rng), phi = 6.2831853f * u(rng);
    const float s = std::sqrt(std::max(0.f, 1.f - z * z));
    r.d = Vec3f(s * std::cos(phi), s * std::sin(phi), z);
  }
  return rays;
}

}  // namespace srt::bench
