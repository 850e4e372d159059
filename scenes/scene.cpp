#include "scenes/scene.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "base/transform_normal.h"

namespace srt {

Transform Instance::transformAt(float time) const {
  if (keyframes.empty()) return transform;
  auto toTransform = [](const Keyframe& k) {
    return Transform::translate(k.translate) * Transform::rotate(k.rotateDegrees, k.rotateAxis) *
           Transform::scale(k.scale);
  };
  if (keyframes.size() == 1 || time <= keyframes.front().time)
    return transform * toTransform(keyframes.front());
  if (time >= keyframes.back().time) return transform * toTransform(keyframes.back());
  size_t i = 1;
  while (keyframes[i].time < time) ++i;
  const Keyframe& a = keyframes[i - 1];
  const Keyframe& b = keyframes[i];
  const float t = (time - a.time) / std::max(b.time - a.time, 1e-9f);
  Keyframe k;
  k.translate = lerp(t, a.translate, b.translate);
  k.rotateAxis = b.rotateAxis;
  k.rotateDegrees = a.rotateDegrees + t * (b.rotateDegrees - a.rotateDegrees);
  k.scale = lerp(t, a.scale, b.scale);
  return transform * toTransform(k);
}

size_t Scene::triangleCount() const {
  size_t n = 0;
  for (const Instance& inst : instances) n += meshes[inst.mesh].triangleCount();
  return n;
}

Bounds3f Scene::bounds(float time) const {
  Bounds3f b;
  for (const Instance& inst : instances) {
    const Transform x = inst.transformAt(time);
    for (const Vec3f& p : meshes[inst.mesh].positions) b.extend(x.point(p));
  }
  return b;
}

Bounds3f FlatGeometry::bounds() const {
  Bounds3f b;
  for (const Vec3f& p : positions) b.extend(p);
  return b;
}

// Every instance's part of the flat arrays is written in parallel (a million corners take
// ~30 ms on one core, every cold render's setup waits for them); each element is computed as the
// sequential loop did, so the arrays are the same bit for bit.
FlatGeometry flatten(const Scene& scene, float time) {
  struct Part {
    const Mesh* mesh;
    Transform x, inverse;
    size_t vertex, triangle;  // the first of this instance in the flat arrays
  };
  std::vector<Part> parts;
  parts.reserve(scene.instances.size());
  size_t vertices = 0, triangles = 0;
  bool allNormals = true, allUvs = true;
  for (const Instance& inst : scene.instances) {
    const Mesh& m = scene.meshes[inst.mesh];
    const Transform x = inst.transformAt(time);
    parts.push_back({&m, x, x.inverse(), vertices, triangles});
    vertices += m.positions.size();
    triangles += m.triangleCount();
    allNormals &= m.normals.size() == m.positions.size();
    allUvs &= m.uvs.size() == m.positions.size();
  }
  FlatGeometry g;
  g.positions.resize(vertices);
  if (allNormals) g.normals.resize(vertices);
  if (allUvs) g.uvs.resize(vertices);
  g.indices.resize(triangles * 3);
  g.materialIds.resize(triangles);
#pragma omp parallel if (vertices > 65536)
  for (const Part& p : parts) {
    const Mesh& m = *p.mesh;
    const int64_t nv = int64_t(m.positions.size()), nt = int64_t(m.triangleCount());
    const uint32_t base = uint32_t(p.vertex);
#pragma omp for schedule(static) nowait
    for (int64_t i = 0; i < nv; ++i) {
      g.positions[p.vertex + i] = p.x.point(m.positions[i]);
      if (allNormals) g.normals[p.vertex + i] = normalByInverse(p.inverse, m.normals[i]);
      if (allUvs) g.uvs[p.vertex + i] = m.uvs[i];
    }
#pragma omp for schedule(static) nowait
    for (int64_t t = 0; t < nt; ++t) {
      for (int k = 0; k < 3; ++k) g.indices[3 * (p.triangle + t) + k] = base + m.indices[3 * t + k];
      g.materialIds[p.triangle + t] = m.materialIds[t];
    }
  }
  return g;
}

namespace {

// Whether the ray from o along d meets the triangle at t > 0 (Moller-Trumbore).
bool rayMeetsTriangle(const Vec3f& o, const Vec3f& d, const Vec3f& a, const Vec3f& b,
                      const Vec3f& c) {
  const Vec3f e1 = b - a, e2 = c - a, p = cross(d, e2);
  const float det = dot(e1, p);
  if (std::fabs(det) < 1e-12f) return false;
  const float inv = 1.f / det;
  const Vec3f s = o - a;
  const float u = dot(s, p) * inv;
  if (u < 0.f || u > 1.f) return false;
  const Vec3f q = cross(s, e1);
  const float v = dot(d, q) * inv;
  return v >= 0.f && u + v <= 1.f && dot(e2, q) * inv > 0.f;
}

// A room seen from within (Sponza, the Conference Room) rather than an object: rays from the
// bounds' centre in 26 directions nearly all meet geometry (an open roof lets a few escape), and
// a good share of the triangles lie in the middle of the bounds (columns, furniture), where an
// object's surface (a teapot's) keeps to the outside.
bool looksLikeARoom(const Scene& scene, const Bounds3f& b) {
  const FlatGeometry g = flatten(scene);
  const Vec3f centre = b.center(), d = b.diagonal();
  const Vec3f innerLo = b.lo + d * 0.2f, innerHi = b.hi - d * 0.2f;
  size_t inner = 0;
  for (size_t t = 0; t + 2 < g.indices.size(); t += 3) {
    const Vec3f c = (g.positions[g.indices[t]] + g.positions[g.indices[t + 1]] +
                     g.positions[g.indices[t + 2]]) / 3.f;
    inner += c.x > innerLo.x && c.x < innerHi.x && c.y > innerLo.y && c.y < innerHi.y &&
             c.z > innerLo.z && c.z < innerHi.z;
  }
  if (inner * 4 < g.triangleCount()) return false;
  int rays = 0, hits = 0;
  for (int x = -1; x <= 1; ++x)
    for (int y = -1; y <= 1; ++y)
      for (int z = -1; z <= 1; ++z) {
        if (x == 0 && y == 0 && z == 0) continue;
        const Vec3f dir = normalize(Vec3f{float(x), float(y), float(z)});
        ++rays;
        for (size_t t = 0; t + 2 < g.indices.size(); t += 3)
          if (rayMeetsTriangle(centre, dir, g.positions[g.indices[t]],
                               g.positions[g.indices[t + 1]], g.positions[g.indices[t + 2]])) {
            ++hits;
            break;
          }
      }
  return hits * 4 >= rays * 3;
}

}  // namespace

Camera frameScene(const Scene& scene, float aspect) {
  const Bounds3f b = scene.bounds();
  Camera c;
  if (b.empty()) return c;
  const Vec3f center = b.center();
  const Vec3f d = b.diagonal();
  c.up = {0.f, 1.f, 0.f};
  if (looksLikeARoom(scene, b)) {
    // From within: at the centre, looking down the longer horizontal axis with a wide lens.
    c.vfovDegrees = 60.f;
    c.position = center;
    c.target = center + (d.x >= d.z ? Vec3f{1.f, 0.f, 0.f} : Vec3f{0.f, 0.f, -1.f});
    return c;
  }
  c.vfovDegrees = 40.f;
  const float halfFov = 0.5f * c.vfovDegrees * kPi / 180.f;
  // Fit the larger of height and width/aspect, then step back past the front face.
  const float halfExtent = 0.5f * std::max(d.y, d.x / std::max(aspect, 1e-3f));
  const float distance = halfExtent / std::tan(halfFov) * 1.1f + 0.5f * d.z;
  c.target = center;
  c.position = center + Vec3f{0.f, 0.f, distance};
  return c;
}

}  // namespace srt
