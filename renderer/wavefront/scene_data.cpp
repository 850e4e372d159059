#include "renderer/wavefront/scene_data.h"

#include <chrono>

namespace srt {

SceneData::SceneData(const Scene& scene, const Backend& backend, float time) {
  const MemorySpace space = backend.memory();
  const FlatGeometry geo = flatten(scene, time);
  triangles_ = geo.triangleCount();

  positions_ = Buffer<Vec3f>(space, geo.positions);
  indices_ = Buffer<uint32_t>(space, geo.indices);
  materialIds_ = Buffer<uint32_t>(space, geo.materialIds);
  if (!geo.normals.empty()) normals_ = Buffer<Vec3f>(space, geo.normals);
  if (!geo.uvs.empty()) uvs_ = Buffer<Vec2f>(space, geo.uvs);

  // The kd-tree is built on the host from host pointers, then copied to the backend.
  const TriangleMeshView hostMesh{geo.positions.data(), geo.indices.data(), uint32_t(triangles_)};
  const auto t0 = std::chrono::steady_clock::now();
  const KdTree tree = buildKdTreeSah(hostMesh);
  buildSeconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  accelStats_ = computeStats(tree);
  tree_ = std::make_unique<DeviceKdTree>(tree, space);
  view_.accel = tree_->view({positions_.data(), indices_.data(), uint32_t(triangles_)});

  const PackedTextures packed = packTextures(scene.textures);
  if (!packed.texels.empty()) texels_ = Buffer<Vec3f>(space, packed.texels);
  const std::vector<TextureView> textureViews = makeTextureViews(packed, texels_.data());
  if (!textureViews.empty()) textures_ = Buffer<TextureView>(space, textureViews);
  materials_ = Buffer<DeviceMaterial>(space, toDevice(scene.materials, scene.textures.size()));

  const EmitterTable emitters = buildEmitters(geo, scene.materials);
  EmitterView ev;
  if (emitters.size() > 0) {
    emitterTriangles_ = Buffer<uint32_t>(space, emitters.triangles);
    emitterRadiance_ = Buffer<Vec3f>(space, emitters.radiance);
    emitterAreas_ = Buffer<float>(space, emitters.areas);
    emitterCdf_ = Buffer<float>(space, emitters.cdf);
    emitterPmf_ = Buffer<float>(space, emitters.pmf);
    triangleToEmitter_ = Buffer<int32_t>(space, emitters.triangleToEmitter);
    ev.triangles = emitterTriangles_.data();
    ev.radiance = emitterRadiance_.data();
    ev.areas = emitterAreas_.data();
    ev.cdf = emitterCdf_.data();
    ev.pmf = emitterPmf_.data();
    ev.triangleToEmitter = triangleToEmitter_.data();
    ev.count = uint32_t(emitters.size());
    ev.triangleCount = uint32_t(emitters.triangleToEmitter.size());
  }
  view_.emitters = ev;

  if (!scene.pointLights.empty()) pointLights_ = Buffer<PointLight>(space, scene.pointLights);
  view_.pointLights = pointLights_.data();
  view_.numPointLights = uint32_t(scene.pointLights.size());
  view_.normals = normals_.data();
  view_.uvs = uvs_.data();
  view_.materialIds = materialIds_.data();
  view_.materials = materials_.data();
  view_.textures = textures_.data();
  view_.environment = scene.environment;
  view_.rayEpsilon = 1e-5f;  // relative to the hit point's magnitude (offsetOrigin)
}

}  // namespace srt
