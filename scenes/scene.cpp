#include "scenes/scene.h"

#include <algorithm>
#include <cmath>

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

FlatGeometry flatten(const Scene& scene, float time) {
  FlatGeometry g;
  size_t vertices = 0, triangles = 0;
  bool allNormals = true, allUvs = true;
  for (const Instance& inst : scene.instances) {
    const Mesh& m = scene.meshes[inst.mesh];
    vertices += m.positions.size();
    triangles += m.triangleCount();
    allNormals &= m.normals.size() == m.positions.size();
    allUvs &= m.uvs.size() == m.positions.size();
  }
  g.positions.reserve(vertices);
  g.indices.reserve(triangles * 3);
  g.materialIds.reserve(triangles);
  for (const Instance& inst : scene.instances) {
    const Mesh& m = scene.meshes[inst.mesh];
    const Transform x = inst.transformAt(time);
    const uint32_t base = uint32_t(g.positions.size());
    for (const Vec3f& p : m.positions) g.positions.push_back(x.point(p));
    if (allNormals)
      for (const Vec3f& n : m.normals) g.normals.push_back(x.normal(n));
    if (allUvs) g.uvs.insert(g.uvs.end(), m.uvs.begin(), m.uvs.end());
    for (uint32_t i : m.indices) g.indices.push_back(base + i);
    g.materialIds.insert(g.materialIds.end(), m.materialIds.begin(), m.materialIds.end());
  }
  return g;
}

Camera frameScene(const Scene& scene, float aspect) {
  const Bounds3f b = scene.bounds();
  Camera c;
  if (b.empty()) return c;
  const Vec3f center = b.center();
  const Vec3f d = b.diagonal();
  c.vfovDegrees = 40.f;
  const float halfFov = 0.5f * c.vfovDegrees * kPi / 180.f;
  // Fit the larger of height and width/aspect, then step back past the front face.
  const float halfExtent = 0.5f * std::max(d.y, d.x / std::max(aspect, 1e-3f));
  const float distance = halfExtent / std::tan(halfFov) * 1.1f + 0.5f * d.z;
  c.target = center;
  c.position = center + Vec3f{0.f, 0.f, distance};
  c.up = {0.f, 1.f, 0.f};
  return c;
}

}  // namespace srt
