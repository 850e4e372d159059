#include "scenes/shapes.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace srt {

Mesh makeSphere(Vec3f center, float radius, int subdivisions, bool inwardNormals,
                uint32_t material) {
  const int rings = std::max(subdivisions, 2);
  const int segments = 2 * rings;
  Mesh m;
  m.name = "sphere";
  // (rings + 1) x (segments + 1) grid: the seam column is duplicated so uvs wrap cleanly.
  for (int i = 0; i <= rings; ++i) {
    const float theta = kPi * float(i) / float(rings);  // 0 at +y (north pole)
    for (int j = 0; j <= segments; ++j) {
      const float phi = 2.f * kPi * float(j) / float(segments);
      const Vec3f n{std::sin(theta) * std::cos(phi), std::cos(theta),
                    -std::sin(theta) * std::sin(phi)};
      m.positions.push_back(center + n * radius);
      m.normals.push_back(inwardNormals ? -n : n);
      m.uvs.push_back({float(j) / float(segments), 1.f - float(i) / float(rings)});
    }
  }
  auto vid = [&](int i, int j) { return uint32_t(i * (segments + 1) + j); };
  auto tri = [&](uint32_t a, uint32_t b, uint32_t c) {
    if (inwardNormals) std::swap(b, c);
    m.indices.insert(m.indices.end(), {a, b, c});
    m.materialIds.push_back(material);
  };
  for (int i = 0; i < rings; ++i)
    for (int j = 0; j < segments; ++j) {
      // Counter-clockwise seen from outside; the pole rows have one degenerate triangle skipped.
      if (i != 0) tri(vid(i, j), vid(i + 1, j), vid(i, j + 1));
      if (i != rings - 1) tri(vid(i, j + 1), vid(i + 1, j), vid(i + 1, j + 1));
    }
  return m;
}

Mesh makeQuad4(Vec3f a, Vec3f b, Vec3f c, Vec3f d, uint32_t material) {
  Mesh m;
  m.name = "quad";
  const Vec3f n = normalize(cross(b - a, c - a));
  m.positions = {a, b, c, d};
  m.normals = {n, n, n, n};
  m.uvs = {{0.f, 0.f}, {1.f, 0.f}, {1.f, 1.f}, {0.f, 1.f}};
  m.indices = {0, 1, 2, 0, 2, 3};
  m.materialIds = {material, material};
  return m;
}

Mesh makeQuad(Vec3f corner, Vec3f edge1, Vec3f edge2, uint32_t material) {
  return makeQuad4(corner, corner + edge1, corner + edge1 + edge2, corner + edge2, material);
}

Mesh makeBox(Vec3f lo, Vec3f hi, uint32_t material) {
  const Vec3f d = hi - lo;
  const Vec3f ex{d.x, 0, 0}, ey{0, d.y, 0}, ez{0, 0, d.z};
  Mesh m;
  // Each face: corner and two edges ordered so cross(edge1, edge2) points outward.
  appendMesh(m, makeQuad(lo, ey, ex, material));       // -z
  appendMesh(m, makeQuad(lo + ez, ex, ey, material));  // +z
  appendMesh(m, makeQuad(lo, ez, ey, material));       // -x
  appendMesh(m, makeQuad(lo + ex, ey, ez, material));  // +x
  appendMesh(m, makeQuad(lo, ex, ez, material));       // -y
  appendMesh(m, makeQuad(lo + ey, ez, ex, material));  // +y
  m.name = "box";
  return m;
}

void appendMesh(Mesh& dst, const Mesh& src) {
  if (dst.positions.empty() && dst.indices.empty()) {
    const std::string name = dst.name;
    dst = src;
    if (!name.empty()) dst.name = name;
    return;
  }
  if (dst.normals.size() != dst.positions.size() || src.normals.size() != src.positions.size()) {
    if (!dst.normals.empty() || !src.normals.empty())
      throw std::logic_error("appendMesh: meshes disagree on having normals");
  }
  // uvs: pad with (0,0) when only one side has them.
  const bool uvs = !dst.uvs.empty() || !src.uvs.empty();
  if (uvs) dst.uvs.resize(dst.positions.size());
  const uint32_t base = uint32_t(dst.positions.size());
  dst.positions.insert(dst.positions.end(), src.positions.begin(), src.positions.end());
  dst.normals.insert(dst.normals.end(), src.normals.begin(), src.normals.end());
  if (uvs) {
    dst.uvs.insert(dst.uvs.end(), src.uvs.begin(), src.uvs.end());
    dst.uvs.resize(dst.positions.size());
  }
  for (uint32_t i : src.indices) dst.indices.push_back(base + i);
  dst.materialIds.insert(dst.materialIds.end(), src.materialIds.begin(), src.materialIds.end());
}

}  // namespace srt
