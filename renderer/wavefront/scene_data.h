// The scene as the stages see it: flattened geometry, the kd-tree, materials, textures, emitters
// and point lights, in the backend's memory. SceneData owns the buffers; SceneView is the plain
// struct of pointers passed by value to every stage.
#pragma once

#include <future>
#include <memory>
#include <string>
#include <vector>

#include "renderer/accel/device_kdtree.h"
#include "renderer/accel/gpu/kdtree_build_gpu.h"
#include "renderer/accel/kdtree.h"
#include "renderer/accel/kdtree_build_sah.h"
#include "renderer/backend/backend.h"
#include "renderer/shading/bsdf.h"
#include "renderer/shading/environment.h"
#include "renderer/shading/light_pick.h"
#include "renderer/shading/lights.h"
#include "renderer/shading/material.h"
#include "renderer/shading/texture.h"
#include "scenes/scene.h"

namespace srt {

class DualTreeCheck;

struct SceneView {
  KdTreeView accel;                // also holds the positions and indices
  const Vec3f* normals = nullptr;  // per vertex, or null (face normals)
  const Vec2f* uvs = nullptr;      // per vertex, or null
  const uint32_t* materialIds = nullptr;
  const DeviceMaterial* materials = nullptr;
  const TextureView* textures = nullptr;
  EmitterView emitters;
  const PointLight* pointLights = nullptr;
  uint32_t numPointLights = 0;
  Vec3f environment;
  EnvironmentView environmentMap;  // when present, it replaces `environment`
  float rayEpsilon = 1e-5f;        // offset of spawned rays, relative to hitPointMagnitude
};

// What shading needs to know about a hit point. Surfaces are two-sided for everything but glass:
// `ns`/`ng` face the incoming ray; `nsOutward` keeps the authored orientation, whose side tells a
// dielectric whether the ray enters or leaves.
struct SurfaceHit {
  Vec3f p, ng, ns, nsOutward;
  Vec2f uv;
  uint32_t material = 0;
  uint32_t triangle = 0;
  float magnitude = 0;       // hitPointMagnitude: the scale of p's rounding error
  bool frontFace = true;     // the ray arrived on the authored outside
  bool windingFront = true;  // the ray arrived on the side the winding normal points to (emitters
                             // shine only there, see renderer/shading/lights.h)
};

// The scale of an interpolated hit point's rounding error: its coordinates are sums of b_i p_i, so
// the error grows with the corners' magnitudes, not the point's (pbrt-v4's pAbsSum). A point near
// the origin on a floor whose corners are 1000 units away is known to ~1e-4 only.
SRT_CPU_GPU inline float hitPointMagnitude(Vec3f p0, Vec3f p1, Vec3f p2, float b0, float b1,
                                           float b2) {
  const auto term = [](Vec3f v, float b) {
    return fabsf(b) * maxComponent(Vec3f{fabsf(v.x), fabsf(v.y), fabsf(v.z)});
  };
  return term(p0, b0) + term(p1, b1) + term(p2, b2);
}

SRT_CPU_GPU inline SurfaceHit surfaceAt(const SceneView& s, const Ray& ray, const Hit& hit) {
  SurfaceHit h;
  const uint32_t* idx = s.accel.mesh.indices + 3 * hit.triangle;
  const Vec3f p0 = s.accel.mesh.positions[idx[0]], p1 = s.accel.mesh.positions[idx[1]],
              p2 = s.accel.mesh.positions[idx[2]];
  const float b0 = 1.f - hit.b1 - hit.b2;
  h.p = p0 * b0 + p1 * hit.b1 + p2 * hit.b2;
  h.magnitude = hitPointMagnitude(p0, p1, p2, b0, hit.b1, hit.b2);
  Vec3f ng = normalize(cross(p1 - p0, p2 - p0));
  h.windingFront = dot(ng, ray.d) < 0.f;
  Vec3f ns = ng;
  if (s.normals) {
    const Vec3f n =
        s.normals[idx[0]] * b0 + s.normals[idx[1]] * hit.b1 + s.normals[idx[2]] * hit.b2;
    if (lengthSquared(n) > 0.f) {
      ns = normalize(n);
      if (dot(ns, ng) < 0.f) ng = -ng;  // vertex normals define the outside
    }
  }
  h.nsOutward = ns;
  h.frontFace = dot(ng, ray.d) < 0.f;
  h.ng = h.frontFace ? ng : -ng;
  h.ns = h.frontFace ? ns : -ns;
  if (s.uvs) {
    const Vec2f a = s.uvs[idx[0]], b = s.uvs[idx[1]], c = s.uvs[idx[2]];
    h.uv = {a.x * b0 + b.x * hit.b1 + c.x * hit.b2, a.y * b0 + b.y * hit.b1 + c.y * hit.b2};
  }
  h.material = s.materialIds[hit.triangle];
  h.triangle = hit.triangle;
  return h;
}

// How next-event estimation picks among the kinds of light the scene has.
SRT_CPU_GPU inline LightPickProbabilities lightPicks(const SceneView& s) {
  return lightPickProbabilities(s.emitters.count > 0, s.numPointLights > 0,
                                s.environmentMap.present());
}

// Whether shading makes shadow rays at all.
SRT_CPU_GPU inline bool hasSampledLights(const SceneView& s) {
  return s.emitters.count > 0 || s.numPointLights > 0 || s.environmentMap.present();
}

// The normal a BSDF is built around: the authored one for glass, the facing one otherwise.
SRT_CPU_GPU inline Vec3f bsdfNormal(const SurfaceHit& h, MaterialType type) {
  return type == MaterialType::Dielectric ? h.nsOutward : h.ns;
}

// A ray leaving the hit point towards `d`, pushed off the surface on the side `d` points to, by
// more than the point's rounding error: a smaller push lets the ray hit the surface it left at a
// spurious t ~ 0, found or not depending on which kd-tree leaves hold that surface.
SRT_CPU_GPU inline Vec3f offsetFromSurface(float epsilon, Vec3f p, float magnitude, Vec3f ng,
                                           Vec3f d) {
  const float scale = epsilon * (1.f + magnitude);
  return p + ng * (dot(ng, d) > 0.f ? scale : -scale);
}
SRT_CPU_GPU inline Vec3f offsetOrigin(const SceneView& s, const SurfaceHit& h, Vec3f d) {
  return offsetFromSurface(s.rayEpsilon, h.p, h.magnitude, h.ng, d);
}

// Which kd-tree builder a render uses: the CPU SAH builder (Wald & Havran), or the GPU builder
// (Zhou et al.) with its segmented reduction and compaction primitive chosen by name.
struct AccelOptions {
  // auto (gpu on CUDA, cpu on the CPU backend) | cpu | gpu | gpu-host (the GPU algorithm's
  // sequential host reference, any backend: slow, for comparing trees without a device)
  std::string builder = "auto";
  // The tree's SAH constants and depth limit, for whichever builder runs (the GPU builder takes
  // them over its own; its other options stay in `gpu`).
  KdBuildOptions sah;
  GpuKdBuildOptions gpu;
  // Whether the first build computes KdTreeStats (nodes, leaves, depth, SAH cost), and whether
  // per-frame rebuilds (SceneData::setTime) do. Off, a GPU build leaves them zero rather than copy
  // the tree to the host (~10 ms of a cold render's setup for the Conference Room).
  bool firstTreeStats = true;
  bool rebuildTreeStats = false;
  // Whether a time announced ahead (SceneData::prefetch) is moved to and built into a second copy
  // of the moving geometry and tree, on its own stream and host thread, while the current frame
  // renders: auto (on with the GPU builder on CUDA) | on (also the CPU backend, where it only
  // tests the same code) | off. Never with the CPU builder on CUDA, nor with a moving light.
  // SRT_KD_OVERLAP=auto|on|off overrides.
  std::string overlap = "auto";
  // The GPU builder's tree quality (GpuKdBuildOptions::smallClampBoxes): full | fast | auto (fast
  // for scenes whose geometry moves, whose trees are rebuilt every frame; full otherwise).
  std::string quality = "auto";
};

// What one build reported, for --stats: time per stage (the GPU builder's), size and SAH cost.
struct AccelBuildReport {
  std::string builder;
  std::string quality;  // AccelOptions::quality resolved: full or fast (the GPU algorithm's)
  double buildMs = 0;
  GpuKdBuildStats gpuStages;  // zero for the CPU builder
  KdTreeStats tree;           // nodes, leaves, depth, SAH cost (computed on the host)
  bool treeComputed = false;  // `tree` holds this build's figures (see rebuildTreeStats)
  // Built beside the previous frame's render (SceneData::prefetch); `waitMs` is the host time
  // setTime() then waited for it, the part of the build the frame still pays.
  bool overlapped = false;
  double waitMs = 0;
  double setTimeMs = 0;  // host time of setTime() (the move, the build or its wait, the swap)
  double freeMs = 0;     // host time of freeing the tree before (cudaFree waits for the device)
};

struct BuildOverlap;  // scene_data_overlap.h

class SceneData {
 public:
  // Flattens `scene` at `time`, builds the kd-tree and copies everything to the backend's
  // memory. Throws std::invalid_argument for a builder the backend cannot run.
  SceneData(const Scene& scene, const Backend& backend, float time = 0.f,
            const AccelOptions& accel = {});
  // The same with `flat`, flatten(scene, time) made beforehand (while the device started).
  SceneData(const Scene& scene, const Backend& backend, float time, const AccelOptions& accel,
            FlatGeometry flat);
  ~SceneData();
  // Moves the geometry to `time` and rebuilds the kd-tree (the per-frame rebuild of animated
  // scenes). Only the animated instances' vertices move, from object-space copies kept in the
  // backend's memory, to the bits flatten(scene, time) gives. `scene` must be the constructor's.
  // With a prefetch() of `time` pending, waits for it and swaps the two copies instead.
  void setTime(const Scene& scene, float time);
  // Starts moving a second copy of the geometry to `time` and building its tree, on a stream and
  // host thread of their own (after the render work queued so far, by an event), so that the
  // render queued next overlaps it and the next setTime(scene, time) only waits and swaps; the
  // frame then renders with the tree for its own time, bit for bit the serial one. A no-op
  // unless overlapping() (AccelOptions::overlap). Call after setTime() of the frame to render.
  void prefetch(const Scene& scene, float time);
  bool overlapping() const { return overlap_ != nullptr; }

  const SceneView& view() const { return view_; }
  size_t triangleCount() const { return triangles_; }
  // Waits for the tree statistics, which the GPU build computes on a host thread while the
  // first frame renders.
  const AccelBuildReport& accelReport() const;
  // The dual-tree diagnostic (SRT_DUAL_TREE_CHECK, dual_tree_check.h), or null.
  DualTreeCheck* dualTreeCheck() const { return dualCheck_.get(); }

 private:
  // Where one animated instance's vertices and triangles sit in the flattened arrays.
  struct AnimatedInstance {
    uint32_t instance = 0;
    uint32_t firstVertex = 0, vertexCount = 0;  // in MovingGeometry::positions/normals
    uint32_t objectFirst = 0;                   // in objectPositions_/objectNormals_
    uint32_t firstTriangle = 0, triangleCount = 0;
    bool emissive = false;  // its emitters' areas change with the transform
  };
  // The geometry that moves and the tree over it: once, or twice when the rebuild overlaps the
  // render (the render reads sets_[front_] while the other is moved and built).
  struct MovingGeometry {
    Buffer<Vec3f> positions, normals;
    Buffer<PackedVertex> corners;  // 3 per triangle, for traversal (TriangleMeshView::corners)
    Buffer<UnitTriangleRow> unitTriangles;  // 3 per triangle (TriangleMeshView::unitTriangles)
    std::unique_ptr<DeviceKdTree> tree;
    AccelBuildReport report;  // of `tree`
  };
  void keepAnimatedInstances(const Scene& scene);
  std::vector<Transform> animatedTransforms(const Scene& scene, float time) const;
  void moveAnimatedInstances(const std::vector<Transform>& xs, MovingGeometry& g,
                             const Backend& backend) const;
  // Builds g's tree on `backend`'s stream; statistics on a host thread (`asyncStats`) or here.
  // Returns the tree it replaced, for the caller to free where a cudaFree costs least.
  std::unique_ptr<DeviceKdTree> buildAccel(MovingGeometry& g, const Backend& backend,
                                           const Vec3f* hostPositions, bool withStats,
                                           bool asyncStats);
  void showFront();  // view_ reads sets_[front_]
  // scene_data_overlap.cpp
  void startOverlap(const std::string& mode);  // after the first build; mode: overlapMode()
  void waitForOverlap() noexcept;
  bool takePrefetched(float time);  // waits for a pending prefetch; true when it was `time`'s
  void makeBackSet();
  void uploadEmitters(const FlatGeometry& geo, const Scene& scene);
  void uploadEnvironment(const Scene& scene);

  Backend backend_;
  AccelOptions accel_;
  std::unique_ptr<GpuKdTreeBuilder> gpuBuilder_;
  SceneView view_;
  size_t triangles_ = 0;
  mutable AccelBuildReport report_;
  mutable std::future<KdTreeStats> pendingTreeStats_;
  MovingGeometry sets_[2];
  int front_ = 0;
  float frontTime_ = 0.f;                  // the time sets_[front_] shows
  std::unique_ptr<BuildOverlap> overlap_;  // null: every setTime() moves and builds in place
  Buffer<Vec2f> uvs_;
  Buffer<uint32_t> indices_, materialIds_;
  std::vector<AnimatedInstance> animated_;
  Buffer<Vec3f> objectPositions_, objectNormals_;  // the animated instances', concatenated
  std::vector<uint32_t> hostIndices_;  // for the CPU builder when the geometry lives on the GPU
  Buffer<DeviceMaterial> materials_;
  Buffer<Vec3f> texels_;
  Buffer<TextureView> textures_;
  std::unique_ptr<DualTreeCheck> dualCheck_;
  Buffer<uint32_t> emitterTriangles_;
  Buffer<Vec3f> emitterRadiance_;
  Buffer<float> emitterAreas_, emitterCdf_, emitterPmf_;
  Buffer<int32_t> triangleToEmitter_, emitterTextures_;
  Buffer<PointLight> pointLights_;
  Buffer<Vec3f> environmentTexels_;
  Buffer<float> environmentMarginal_, environmentConditional_;
};

}  // namespace srt
