// The scene description every loader produces and the renderer consumes: meshes in object space,
// instances with (optionally animated) transforms, materials, textures, lights and a camera.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/image_io.h"
#include "base/math.h"

namespace srt {

enum class MaterialType : uint32_t {
  Diffuse = 0,     // Lambertian, Kd (map_Kd)
  Glossy = 1,      // conductor-like glossy lobe: Ks tint, roughness from Ns; Kd adds a diffuse base
  Dielectric = 2,  // smooth glass/water: Ni, Fresnel reflection and refraction
  Mirror = 3,      // perfect specular reflection tinted by Ks (MTL illum 3/5, or Ns very high)
};

struct Material {
  std::string name;
  MaterialType type = MaterialType::Diffuse;
  Vec3f kd{0.8f, 0.8f, 0.8f};
  int kdTexture = -1;  // index into Scene::textures, multiplies kd
  int alphaTexture = -1;  // MTL map_d: the surface is cut out where this mask is below half
  Vec3f ks{0.f, 0.f, 0.f};
  float ns = 0.f;           // Phong exponent from MTL; roughness alpha = sqrt(2 / (ns + 2))
  float ior = 1.5f;         // Ni
  Vec3f ke{0.f, 0.f, 0.f};  // emitted radiance
  int keTexture = -1;       // MTL map_Ke, multiplies ke
  int bumpTexture = -1;     // MTL bump/map_bump heights (linear texels), tilting the normal
  float bumpScale = 1.f;    // its -bm
  int normalTexture = -1;   // MTL norm: tangent-space normals (linear texels)
};

// Linear RGB float texels, row 0 at the top of the image (v = 1).
struct Texture {
  std::string path;
  int width = 0, height = 0;
  std::vector<Vec3f> texels;
};

// An equirectangular (latitude-longitude) map of the radiance arriving from infinitely far away,
// +y up: row 0 is straight up, the bottom row straight down, and the middle column (u = 0.5) looks
// along -z, where the default camera looks. `rotationDegrees` turns it about +y (right-handed).
struct EnvironmentMap {
  std::string path;  // for messages
  Image image;       // linear RGB radiance, finite and >= 0 (base/image_read.h)
  float scale = 1.f;
  float rotationDegrees = 0.f;
  bool importanceSampled = true;  // false: light samples uniform on the sphere (for comparisons)
};

struct Mesh {
  std::string name;
  std::vector<Vec3f> positions;
  std::vector<Vec3f> normals;     // per vertex, empty when the file has none (face normals then)
  std::vector<Vec2f> uvs;         // per vertex, may be empty
  std::vector<uint32_t> indices;  // 3 per triangle
  std::vector<uint32_t> materialIds;  // 1 per triangle, into Scene::materials
  size_t triangleCount() const { return indices.size() / 3; }
};

// Rigid motion for animated scenes: the transform at `time` lerps translation and rotation angle
// between keyframes (the per-frame rebuild).
struct Keyframe {
  float time = 0.f;
  Vec3f translate{0.f, 0.f, 0.f};
  Vec3f rotateAxis{0.f, 1.f, 0.f};
  float rotateDegrees = 0.f;
  Vec3f scale{1.f, 1.f, 1.f};
};

struct Instance {
  uint32_t mesh = 0;
  Transform transform;              // applied after the animation (or alone when there is none)
  std::vector<Keyframe> keyframes;  // empty: static
  Transform transformAt(float time) const;
};

struct Camera {
  Vec3f position{0.f, 0.f, 5.f};
  Vec3f target{0.f, 0.f, 0.f};
  Vec3f up{0.f, 1.f, 0.f};
  float vfovDegrees = 40.f;
  float lensRadius = 0.f;     // 0: pinhole; > 0: thin lens
  float focusDistance = 0.f;  // 0: distance to target
};

struct PointLight {
  Vec3f position;
  Vec3f intensity;  // radiant intensity (W/sr)
};

struct Scene {
  std::string name;
  std::vector<Mesh> meshes;
  std::vector<Instance> instances;
  std::vector<Material> materials;
  std::vector<Texture> textures;
  std::vector<PointLight> pointLights;
  Vec3f environment{0.f, 0.f, 0.f};  // uniform radiance of rays that escape
  std::optional<EnvironmentMap> environmentMap;  // when present, it replaces `environment`
  std::optional<Camera> camera;      // absent: frameScene() places one from the bounds
  float animationEnd = 0.f;          // last keyframe time, 0 for static scenes

  size_t triangleCount() const;
  Bounds3f bounds(float time = 0.f) const;
};

// All instances flattened into one world-space indexed triangle list, as the accelerator and the
// renderer use it. Normals are world space; missing normals are left empty.
struct FlatGeometry {
  std::vector<Vec3f> positions;
  std::vector<Vec3f> normals;  // size == positions.size() or 0
  std::vector<Vec2f> uvs;      // size == positions.size() or 0
  std::vector<uint32_t> indices;
  std::vector<uint32_t> materialIds;
  size_t triangleCount() const { return indices.size() / 3; }
  Bounds3f bounds() const;
};

FlatGeometry flatten(const Scene& scene, float time = 0.f);

// A camera for files without one: inside a room (Sponza, the Conference Room: the bounds'
// centre enclosed, many triangles in the middle) it stands at the centre and looks down the
// longer horizontal axis; otherwise it frames the bounds from the front (+z looking to -z).
Camera frameScene(const Scene& scene, float aspect);

}  // namespace srt
