#include "renderer/wavefront/scene_data.h"

#include <chrono>
#include <stdexcept>
#include <utility>

#include "renderer/wavefront/dual_tree_check.h"
#include "renderer/wavefront/scene_data_motion.h"
#include "renderer/wavefront/scene_data_overlap.h"

namespace srt {
namespace {

// The GPU builder's options with the SAH constants and depth limit both builders share.
double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

GpuKdBuildOptions gpuOptions(const AccelOptions& accel) {
  GpuKdBuildOptions gpu = accel.gpu;
  gpu.traversalCost = accel.sah.traversalCost;
  gpu.intersectCost = accel.sah.intersectCost;
  gpu.emptyBonus = accel.sah.emptyBonus;
  gpu.maxDepth = accel.sah.maxDepth;
  return gpu;
}

// auto: the fast tree when some instance moves (every frame rebuilds it), the full one otherwise.
std::string resolveQuality(const std::string& quality, const Scene& scene) {
  if (quality == "full" || quality == "fast") return quality;
  if (quality != "auto")
    throw std::invalid_argument("--kd-quality must be auto, full or fast (got '" + quality + "')");
  for (const Instance& inst : scene.instances)
    if (!inst.keyframes.empty()) return "fast";
  return "full";
}

}  // namespace

SceneData::SceneData(const Scene& scene, const Backend& backend, float time,
                     const AccelOptions& accel)
    : SceneData(scene, backend, time, accel, flatten(scene, time)) {}

SceneData::SceneData(const Scene& scene, const Backend& backend, float time,
                     const AccelOptions& accel, FlatGeometry flat)
    : backend_(backend), accel_(accel) {
  const std::string overlap = overlapMode(accel.overlap);  // checked before anything is built
  // auto: the GPU builder on CUDA, where the mesh already is; the CPU builder on the CPU backend.
  if (accel_.builder == "auto") accel_.builder = backend.isCuda() ? "gpu" : "cpu";
  accel_.quality = resolveQuality(accel_.quality, scene);
  accel_.gpu.smallClampBoxes = accel_.quality == "fast";
  if (accel_.builder == "gpu") {
    if (!backend.isCuda())
      throw std::invalid_argument("--kd-build gpu needs the CUDA backend (--backend cuda)");
    gpuBuilder_ = std::make_unique<GpuKdTreeBuilder>(gpuOptions(accel_));  // checks the options
  } else if (accel_.builder != "cpu" && accel_.builder != "gpu-host") {
    throw std::invalid_argument("--kd-build must be auto, cpu, gpu or gpu-host (got '" +
                                accel.builder + "')");
  }
  const MemorySpace space = backend.memory();
  const FlatGeometry geo = std::move(flat);
  triangles_ = geo.triangleCount();

  MovingGeometry& g = sets_[0];
  g.positions = Buffer<Vec3f>(space, geo.positions);
  indices_ = Buffer<uint32_t>(space, geo.indices);
  materialIds_ = Buffer<uint32_t>(space, geo.materialIds);
  if (!geo.normals.empty()) g.normals = Buffer<Vec3f>(space, geo.normals);
  if (!geo.uvs.empty()) uvs_ = Buffer<Vec2f>(space, geo.uvs);
  if (!gpuBuilder_ && backend.isCuda()) hostIndices_ = geo.indices;
  g.corners = Buffer<PackedVertex>(space, 3 * triangles_);
  gatherCorners(backend, g.positions.data(), indices_.data(), g.corners.data(), 0,
                uint32_t(3 * triangles_));
  g.unitTriangles = Buffer<UnitTriangleRow>(space, 3 * triangles_);
  computeUnitTriangles(backend, g.corners.data(), g.unitTriangles.data(), 0, uint32_t(triangles_));
  keepAnimatedInstances(scene);
  buildAccel(g, backend_, geo.positions.data(), accel_.firstTreeStats, /*asyncStats=*/true);
  report_ = g.report;
  frontTime_ = time;
  showFront();
  const TriangleMeshView deviceMesh{g.positions.data(), indices_.data(), uint32_t(triangles_)};
  dualCheck_ = DualTreeCheck::fromEnvironment(
      backend, {accel_.builder, g.tree.get(),
                TriangleMeshView{geo.positions.data(), geo.indices.data(), uint32_t(triangles_)},
                deviceMesh, view_.accel.mesh, accel_.sah, gpuOptions(accel_)});

  const PackedTextures packed = packTextures(scene.textures);
  if (!packed.texels.empty()) texels_ = Buffer<Vec3f>(space, packed.texels);
  const std::vector<TextureView> textureViews = makeTextureViews(packed, texels_.data());
  if (!textureViews.empty()) textures_ = Buffer<TextureView>(space, textureViews);
  materials_ = Buffer<DeviceMaterial>(space, toDevice(scene.materials, scene.textures.size()));
  uploadEmitters(geo, scene);

  if (!scene.pointLights.empty()) pointLights_ = Buffer<PointLight>(space, scene.pointLights);
  view_.pointLights = pointLights_.data();
  view_.numPointLights = uint32_t(scene.pointLights.size());
  view_.uvs = uvs_.data();
  view_.materialIds = materialIds_.data();
  view_.materials = materials_.data();
  view_.textures = textures_.data();
  view_.environment = scene.environment;
  uploadEnvironment(scene);
  view_.rayEpsilon = 1e-5f;  // relative to the hit point's magnitude (hitPointMagnitude)
  startOverlap(overlap);
}

// Its build thread writes members destroyed before the overlap itself.
SceneData::~SceneData() {
  waitForOverlap();
}

void SceneData::setTime(const Scene& scene, float time) {
  if (scene.triangleCount() != triangles_)
    throw std::logic_error("SceneData::setTime: the scene's topology changed");
  const auto t0 = std::chrono::steady_clock::now();
  dualCheck_.reset();          // its second tree is of the first frame's geometry
  if (takePrefetched(time)) {  // built beside the last render: swapped, report_ set
    report_.setTimeMs = msSince(t0);
    return;
  }
  MovingGeometry& g = sets_[front_];
  moveAnimatedInstances(animatedTransforms(scene, time), g, backend_);
  std::vector<Vec3f> downloaded;
  const Vec3f* hostPositions = g.positions.data();
  if (!gpuBuilder_ && backend_.isCuda()) {  // the CPU builder reads the host's copy
    backend_.synchronize();
    downloaded = g.positions.download();
    hostPositions = downloaded.data();
  }
  std::unique_ptr<DeviceKdTree> old =
      buildAccel(g, backend_, hostPositions, accel_.rebuildTreeStats, /*asyncStats=*/true);
  const auto f0 = std::chrono::steady_clock::now();
  old.reset();  // after the build, so a failed one leaves the tree the view points to
  report_ = g.report;
  report_.freeMs = msSince(f0);
  frontTime_ = time;
  showFront();
  for (const AnimatedInstance& a : animated_)
    if (a.emissive) {  // a moving light's areas change under scaling: the host path, rarely taken
      uploadEmitters(flatten(scene, time), scene);
      break;
    }
  report_.setTimeMs = msSince(t0);
}

void SceneData::keepAnimatedInstances(const Scene& scene) {
  std::vector<Vec3f> objectPositions, objectNormals;
  uint32_t vertex = 0, triangle = 0;
  for (size_t i = 0; i < scene.instances.size(); ++i) {
    const Instance& inst = scene.instances[i];
    const Mesh& m = scene.meshes[inst.mesh];
    if (!inst.keyframes.empty()) {
      AnimatedInstance a;
      a.instance = uint32_t(i);
      a.firstVertex = vertex;
      a.vertexCount = uint32_t(m.positions.size());
      a.objectFirst = uint32_t(objectPositions.size());
      a.firstTriangle = triangle;
      a.triangleCount = uint32_t(m.triangleCount());
      for (uint32_t id : m.materialIds)
        a.emissive |= id < scene.materials.size() && luminance(scene.materials[id].ke) > 0.f;
      objectPositions.insert(objectPositions.end(), m.positions.begin(), m.positions.end());
      if (!sets_[0].normals.empty())  // flatten() kept normals: every mesh has them
        objectNormals.insert(objectNormals.end(), m.normals.begin(), m.normals.end());
      animated_.push_back(a);
    }
    vertex += uint32_t(m.positions.size());
    triangle += uint32_t(m.triangleCount());
  }
  const MemorySpace space = backend_.memory();
  if (!objectPositions.empty()) objectPositions_ = Buffer<Vec3f>(space, objectPositions);
  if (!objectNormals.empty()) objectNormals_ = Buffer<Vec3f>(space, objectNormals);
}

std::vector<Transform> SceneData::animatedTransforms(const Scene& scene, float time) const {
  std::vector<Transform> xs;
  xs.reserve(animated_.size());
  for (const AnimatedInstance& a : animated_)
    xs.push_back(scene.instances[a.instance].transformAt(time));
  return xs;
}

void SceneData::moveAnimatedInstances(const std::vector<Transform>& xs, MovingGeometry& g,
                                      const Backend& backend) const {
  for (size_t i = 0; i < animated_.size(); ++i) {
    const AnimatedInstance& a = animated_[i];
    transformPoints(backend, objectPositions_.data() + a.objectFirst,
                    g.positions.data() + a.firstVertex, a.vertexCount, xs[i]);
    if (!g.normals.empty())
      transformNormals(backend, objectNormals_.data() + a.objectFirst,
                       g.normals.data() + a.firstVertex, a.vertexCount, xs[i].inverse());
    gatherCorners(backend, g.positions.data(), indices_.data(), g.corners.data(),
                  3 * a.firstTriangle, 3 * a.triangleCount);
    computeUnitTriangles(backend, g.corners.data(), g.unitTriangles.data(), a.firstTriangle,
                         a.triangleCount);
  }
}

const AccelBuildReport& SceneData::accelReport() const {
  if (pendingTreeStats_.valid()) {
    const double buildSeconds = report_.tree.buildSeconds;
    report_.tree = pendingTreeStats_.get();
    report_.tree.buildSeconds = buildSeconds;
  }
  return report_;
}

std::unique_ptr<DeviceKdTree> SceneData::buildAccel(MovingGeometry& g, const Backend& backend,
                                                    const Vec3f* hostPositions, bool withStats,
                                                    bool asyncStats) {
  std::unique_ptr<DeviceKdTree> old;
  TriangleMeshView mesh{g.positions.data(), indices_.data(), uint32_t(triangles_)};
  mesh.corners = g.corners.data();         // gathered before every build; the builder reads them
  if (asyncStats) pendingTreeStats_ = {};  // a statistics walk still running is waited for
  AccelBuildReport& report = g.report;
  report = {};
  report.builder = accel_.builder;
  report.quality = accel_.builder == "cpu" ? "full" : accel_.quality;
  report.treeComputed = withStats;
  const auto t0 = std::chrono::steady_clock::now();
  if (gpuBuilder_) {
    // Built where the geometry already is; the tree crosses to the host only for its statistics.
    GpuKdBuildStats stages;
    old = std::exchange(
        g.tree, std::make_unique<DeviceKdTree>(gpuBuilder_->build(mesh, backend.stream, &stages)));
    report.gpuStages = stages;
    report.buildMs = stages.totalMs;
    // The download is on the stream, before any render work; the walk over the tree is not.
    if (withStats && asyncStats)
      pendingTreeStats_ =
          std::async(std::launch::async, [tree = g.tree->toHost()] { return computeStats(tree); });
    else if (withStats) {  // on the build's own stream: toHost() copies on the default one
      backend.synchronize();
      report.tree = computeStats(g.tree->toHost());
    }
  } else {
    // The CPU builder reads host pointers, then the tree is copied to the backend.
    const uint32_t* hostIndices = backend.isCuda() ? hostIndices_.data() : indices_.data();
    const TriangleMeshView hostMesh{hostPositions, hostIndices, uint32_t(triangles_)};
    // gpu-host: the GPU builder's algorithm run on the host (its host reference), so the CPU
    // backend and tests can render with the GPU algorithm's tree without a device.
    const KdTree tree = accel_.builder == "gpu-host"
                            ? buildKdTreeGpuAlgorithmOnHost(hostMesh, gpuOptions(accel_))
                            : buildKdTreeSah(hostMesh, accel_.sah);
    report.buildMs = msSince(t0);
    if (withStats) report.tree = computeStats(tree);
    old = std::exchange(g.tree, std::make_unique<DeviceKdTree>(tree, backend.memory()));
  }
  report.tree.buildSeconds = report.buildMs / 1e3;
  return old;
}

void SceneData::showFront() {
  const MovingGeometry& g = sets_[front_];
  TriangleMeshView traced{g.positions.data(), indices_.data(), uint32_t(triangles_)};
  traced.corners = g.corners.data();
  traced.unitTriangles = g.unitTriangles.data();
  view_.accel = g.tree->view(traced);
  view_.normals = g.normals.data();
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
