#include "renderer/wavefront/scene_data.h"

#include <chrono>
#include <stdexcept>

namespace srt {

SceneData::SceneData(const Scene& scene, const Backend& backend, float time,
                     const AccelOptions& accel)
    : backend_(backend), accel_(accel) {
  if (accel.builder == "gpu") {
    if (!backend.isCuda())
      throw std::invalid_argument("--kd-build gpu needs the CUDA backend (--backend cuda)");
    GpuKdBuildOptions gpu = accel.gpu;
    gpu.traversalCost = accel.sah.traversalCost;
    gpu.intersectCost = accel.sah.intersectCost;
    gpu.emptyBonus = accel.sah.emptyBonus;
    gpu.maxDepth = accel.sah.maxDepth;
    gpuBuilder_ = std::make_unique<GpuKdTreeBuilder>(gpu);  // checks the names and numbers
  } else if (accel.builder != "cpu") {
    throw std::invalid_argument("--kd-build must be cpu or gpu (got '" + accel.builder + "')");
  }
  const MemorySpace space = backend.memory();
  const FlatGeometry geo = flatten(scene, time);
  triangles_ = geo.triangleCount();

  positions_ = Buffer<Vec3f>(space, geo.positions);
  indices_ = Buffer<uint32_t>(space, geo.indices);
  materialIds_ = Buffer<uint32_t>(space, geo.materialIds);
  if (!geo.normals.empty()) normals_ = Buffer<Vec3f>(space, geo.normals);
  if (!geo.uvs.empty()) uvs_ = Buffer<Vec2f>(space, geo.uvs);
  buildAccel(geo);

  const PackedTextures packed = packTextures(scene.textures);
  if (!packed.texels.empty()) texels_ = Buffer<Vec3f>(space, packed.texels);
  const std::vector<TextureView> textureViews = makeTextureViews(packed, texels_.data());
  if (!textureViews.empty()) textures_ = Buffer<TextureView>(space, textureViews);
  materials_ = Buffer<DeviceMaterial>(space, toDevice(scene.materials, scene.textures.size()));
  uploadEmitters(geo, scene);

  if (!scene.pointLights.empty()) pointLights_ = Buffer<PointLight>(space, scene.pointLights);
  view_.pointLights = pointLights_.data();
  view_.numPointLights = uint32_t(scene.pointLights.size());
  view_.normals = normals_.data();
  view_.uvs = uvs_.data();
  view_.materialIds = materialIds_.data();
  view_.materials = materials_.data();
  view_.textures = textures_.data();
  view_.environment = scene.environment;
  uploadEnvironment(scene);
  view_.rayEpsilon = 1e-5f;  // relative to the hit point's magnitude (offsetOrigin)
}

SceneData::~SceneData() = default;

void SceneData::setTime(const Scene& scene, float time) {
  const FlatGeometry geo = flatten(scene, time);
  if (geo.positions.size() != positions_.size() || geo.triangleCount() != triangles_)
    throw std::logic_error("SceneData::setTime: the scene's topology changed");
  positions_.upload(geo.positions);
  if (!geo.normals.empty()) normals_.upload(geo.normals);
  buildAccel(geo);
  uploadEmitters(geo, scene);  // areas change under scaling
}

void SceneData::buildAccel(const FlatGeometry& geo) {
  const TriangleMeshView mesh{positions_.data(), indices_.data(), uint32_t(triangles_)};
  report_ = {};
  report_.builder = accel_.builder;
  const auto t0 = std::chrono::steady_clock::now();
  if (gpuBuilder_) {
    // Built where the geometry already is; only the SAH statistics come back to the host.
    GpuKdBuildStats stages;
    tree_ = std::make_unique<DeviceKdTree>(gpuBuilder_->build(mesh, backend_.stream, &stages));
    report_.gpuStages = stages;
    report_.buildMs = stages.totalMs;
    report_.tree = computeStats(tree_->toHost());
  } else {
    // The CPU builder reads host pointers, then the tree is copied to the backend.
    const TriangleMeshView hostMesh{geo.positions.data(), geo.indices.data(), uint32_t(triangles_)};
    const KdTree tree = buildKdTreeSah(hostMesh, accel_.sah);
    report_.buildMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    report_.tree = computeStats(tree);
    tree_ = std::make_unique<DeviceKdTree>(tree, backend_.memory());
  }
  report_.tree.buildSeconds = report_.buildMs / 1e3;
  // Traversal reads each triangle's corners in one place, without the index indirection.
  std::vector<PackedVertex> corners(3 * size_t(triangles_));
  for (size_t i = 0; i < corners.size(); ++i) {
    const Vec3f& p = geo.positions[geo.indices[i]];
    corners[i] = {p.x, p.y, p.z, 0.f};
  }
  if (corners_.size() == corners.size())
    corners_.upload(corners);  // an animated frame: same topology, new positions
  else
    corners_ = Buffer<PackedVertex>(backend_.memory(), corners);
  TriangleMeshView traced = mesh;
  traced.corners = corners_.data();
  view_.accel = tree_->view(traced);
}

void SceneData::uploadEmitters(const FlatGeometry& geo, const Scene& scene) {
  const MemorySpace space = backend_.memory();
  const EmitterTable emitters = buildEmitters(geo, scene.materials, &scene.textures);
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
    if (!emitters.keTextures.empty()) {  // emission maps
      emitterTextures_ = Buffer<int32_t>(space, emitters.keTextures);
      ev.keTextures = emitterTextures_.data();
      ev.uvs = uvs_.data();
      ev.textures = textures_.data();
    }
    ev.count = uint32_t(emitters.size());
    ev.triangleCount = uint32_t(emitters.triangleToEmitter.size());
  }
  view_.emitters = ev;
}

void SceneData::uploadEnvironment(const Scene& scene) {
  view_.environmentMap = {};
  if (!scene.environmentMap) return;
  const MemorySpace space = backend_.memory();
  const EnvironmentTable env = buildEnvironment(*scene.environmentMap);
  environmentTexels_ = Buffer<Vec3f>(space, env.texels);
  environmentMarginal_ = Buffer<float>(space, env.distribution.marginalCdf);
  environmentConditional_ = Buffer<float>(space, env.distribution.conditionalCdf);
  view_.environmentMap = makeEnvironmentView(
      env, environmentTexels_.data(), environmentMarginal_.data(), environmentConditional_.data());
}

}  // namespace srt
