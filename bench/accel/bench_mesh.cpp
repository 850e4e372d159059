#include "bench/accel/bench_mesh.h"

#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <tiny_obj_loader.h>

#include <assimp/Importer.hpp>
#include <cmath>
#include <queue>
#include <random>
#include <stdexcept>
#include <utility>

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

HostMesh refineTo(const HostMesh& in, uint32_t triangles) {
  HostMesh m = in;
  if (m.triangleCount() >= triangles) return m;
  m.name += "@" + std::to_string(triangles);
  auto longest = [&m](uint32_t t, int* edge) {
    float best = -1.f;
    for (int e = 0; e < 3; ++e) {
      const Vec3f d =
          m.positions[m.indices[3 * t + (e + 1) % 3]] - m.positions[m.indices[3 * t + e]];
      const float len = dot(d, d);
      if (len > best) best = len, *edge = e;
    }
    return best;
  };
  // Longest squared edge first; ties by the lower triangle index (a max-heap on the pair with
  // the index negated), so the result is the same everywhere.
  std::priority_queue<std::pair<float, int64_t>> heap;
  int edge = 0;
  for (uint32_t t = 0; t < m.triangleCount(); ++t) heap.push({longest(t, &edge), -int64_t(t)});
  m.indices.reserve(size_t(triangles) * 3);
  while (m.triangleCount() < triangles) {
    const uint32_t t = uint32_t(-heap.top().second);
    heap.pop();
    longest(t, &edge);
    const uint32_t a = m.indices[3 * t + edge], b = m.indices[3 * t + (edge + 1) % 3];
    const uint32_t c = m.indices[3 * t + (edge + 2) % 3];
    const uint32_t mid = uint32_t(m.positions.size());
    m.positions.push_back((m.positions[a] + m.positions[b]) * 0.5f);
    // (a, mid, c) replaces t; (mid, b, c) is new: both keep t's orientation.
    m.indices[3 * t] = a, m.indices[3 * t + 1] = mid, m.indices[3 * t + 2] = c;
    const uint32_t u = m.triangleCount();
    m.indices.insert(m.indices.end(), {mid, b, c});
    heap.push({longest(t, &edge), -int64_t(t)});
    heap.push({longest(u, &edge), -int64_t(u)});
  }
  return m;
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
