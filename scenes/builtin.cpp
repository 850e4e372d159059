// Built-in scenes. "cornell" is authored from the Cornell Program of Computer Graphics' published
// measurements (http://www.graphics.cornell.edu/online/box/data.html), in millimetres.
#include <functional>
#include <map>
#include <utility>

#include "scenes/loader.h"
#include "scenes/shapes.h"

namespace srt {
namespace {

uint32_t addMaterial(Scene& s, const std::string& name, Vec3f kd, Vec3f ke = {}) {
  Material m;
  m.name = name;
  m.kd = kd;
  m.ke = ke;
  s.materials.push_back(m);
  return uint32_t(s.materials.size() - 1);
}

void addMesh(Scene& s, Mesh mesh, const std::string& name) {
  mesh.name = name;
  s.meshes.push_back(std::move(mesh));
  Instance inst;
  inst.mesh = uint32_t(s.meshes.size() - 1);
  s.instances.push_back(inst);
}

// A published quad, turned so its normal points toward `toward` (walls face the room, block faces
// face away from the block's axis), whatever the winding in the data.
Mesh orientedQuad(Vec3f a, Vec3f b, Vec3f c, Vec3f d, Vec3f toward, uint32_t material) {
  const Vec3f n = cross(b - a, c - a);
  const Vec3f centre = (a + b + c + d) * 0.25f;
  return dot(n, toward - centre) >= 0.f ? makeQuad4(a, b, c, d, material)
                                        : makeQuad4(d, c, b, a, material);
}

Mesh block(const Vec3f top[4], float height, uint32_t material) {
  Vec3f axis = (top[0] + top[1] + top[2] + top[3]) * 0.25f;
  axis.y = height * 0.5f;
  Mesh m;
  m.name = "block";
  appendMesh(m, orientedQuad(top[0], top[1], top[2], top[3], axis + Vec3f{0, height, 0}, material));
  for (int i = 0; i < 4; ++i) {
    const Vec3f a = top[i], b = top[(i + 1) % 4];
    const Vec3f a0{a.x, 0.f, a.z}, b0{b.x, 0.f, b.z};
    // Outward: away from the block axis, i.e. toward the point mirrored through the face.
    const Vec3f mid = (a + b0) * 0.5f;
    appendMesh(m, orientedQuad(a0, a, b, b0, mid + (mid - axis), material));
  }
  return m;
}

// Walls, floor, ceiling and the light; the blocks are added by the callers.
void cornellRoom(Scene& s) {
  const uint32_t white = addMaterial(s, "white", {0.725f, 0.71f, 0.68f});
  const uint32_t red = addMaterial(s, "red", {0.63f, 0.065f, 0.05f});
  const uint32_t green = addMaterial(s, "green", {0.14f, 0.45f, 0.091f});
  const uint32_t light = addMaterial(s, "light", {0.78f, 0.78f, 0.78f}, {17.f, 12.f, 4.f});
  const Vec3f inside{278.f, 274.4f, 279.6f};
  addMesh(
      s,
      orientedQuad({552.8f, 0, 0}, {0, 0, 0}, {0, 0, 559.2f}, {549.6f, 0, 559.2f}, inside, white),
      "floor");
  addMesh(s,
          orientedQuad({556.f, 548.8f, 0}, {556.f, 548.8f, 559.2f}, {0, 548.8f, 559.2f},
                       {0, 548.8f, 0}, inside, white),
          "ceiling");
  addMesh(s,
          orientedQuad({549.6f, 0, 559.2f}, {0, 0, 559.2f}, {0, 548.8f, 559.2f},
                       {556.f, 548.8f, 559.2f}, inside, white),
          "back wall");
  addMesh(
      s,
      orientedQuad({0, 0, 559.2f}, {0, 0, 0}, {0, 548.8f, 0}, {0, 548.8f, 559.2f}, inside, green),
      "right wall (green)");
  addMesh(s,
          orientedQuad({552.8f, 0, 0}, {549.6f, 0, 559.2f}, {556.f, 548.8f, 559.2f},
                       {556.f, 548.8f, 0}, inside, red),
          "left wall (red)");
  // The published light is at the ceiling height; 0.1 mm lower keeps it from z-fighting.
  addMesh(s,
          orientedQuad({343.f, 548.7f, 227.f}, {343.f, 548.7f, 332.f}, {213.f, 548.7f, 332.f},
                       {213.f, 548.7f, 227.f}, {278.f, 0.f, 279.5f}, light),
          "light");
  Camera c;
  c.position = {278.f, 273.f, -800.f};
  c.target = {278.f, 273.f, 0.f};
  c.up = {0.f, 1.f, 0.f};
  c.vfovDegrees = 39.3077f;  // 2 atan(0.0125 / 0.035): 25 mm film, 35 mm focal length
  s.camera = c;
  s.environment = {0.f, 0.f, 0.f};
}

Scene cornell() {
  Scene s;
  s.name = "cornell";
  cornellRoom(s);
  const uint32_t white = 0;
  const Vec3f shortTop[4] = {
      {130.f, 165.f, 65.f}, {82.f, 165.f, 225.f}, {240.f, 165.f, 272.f}, {290.f, 165.f, 114.f}};
  const Vec3f tallTop[4] = {
      {423.f, 330.f, 247.f}, {265.f, 330.f, 296.f}, {314.f, 330.f, 456.f}, {472.f, 330.f, 406.f}};
  addMesh(s, block(shortTop, 165.f, white), "short block");
  addMesh(s, block(tallTop, 330.f, white), "tall block");
  return s;
}

Scene cornellWhitted() {
  Scene s;
  s.name = "cornell-whitted";
  cornellRoom(s);
  Material mirror;
  mirror.name = "mirror";
  mirror.type = MaterialType::Mirror;
  mirror.kd = {0.f, 0.f, 0.f};
  mirror.ks = {0.95f, 0.95f, 0.95f};
  s.materials.push_back(mirror);
  Material glass;
  glass.name = "glass";
  glass.type = MaterialType::Dielectric;
  glass.kd = {0.f, 0.f, 0.f};
  glass.ks = {1.f, 1.f, 1.f};
  glass.ior = 1.5f;
  s.materials.push_back(glass);
  const uint32_t mirrorId = uint32_t(s.materials.size() - 2), glassId = mirrorId + 1;
  addMesh(s, makeSphere({370.f, 100.f, 350.f}, 100.f, 48, false, mirrorId), "mirror sphere");
  addMesh(s, makeSphere({185.f, 100.f, 170.f}, 100.f, 48, false, glassId), "glass sphere");
  // Below the ceiling light, bright enough that the floor under it reads about 0.3.
  s.pointLights.push_back({{278.f, 500.f, 279.5f}, {300000.f, 255000.f, 180000.f}});
  return s;
}

Scene furnace() {
  Scene s;
  s.name = "furnace";
  const uint32_t white = addMaterial(s, "albedo one", {1.f, 1.f, 1.f});
  // Face normals only: interpolated shading normals let a cosine-sampled direction point below
  // the facet it leaves (into the sphere), and those paths are lost inside it (about
  // 1 pixel in 1000 lost a sample of 16). With flat facets the sphere is a convex polyhedron:
  // every bounce escapes with throughput exactly 1 and every pixel is 0.5 (but where a ray slips
  // through an edge: the renderer's triangle test is not watertight).
  Mesh sphere = makeSphere({0.f, 0.f, 0.f}, 1.f, 64, false, white);
  sphere.normals.clear();
  addMesh(s, std::move(sphere), "sphere");
  s.environment = {0.5f, 0.5f, 0.5f};
  Camera c;
  c.position = {0.f, 0.f, 4.f};
  c.target = {0.f, 0.f, 0.f};
  c.vfovDegrees = 40.f;
  s.camera = c;
  return s;
}

const std::map<std::string, std::function<Scene()>>& registry() {
  static const std::map<std::string, std::function<Scene()>> r = {
      {"cornell", cornell}, {"cornell-whitted", cornellWhitted}, {"furnace", furnace}};
  return r;
}

}  // namespace

std::vector<std::string> builtinSceneNames() {
  std::vector<std::string> names;
  for (const auto& [name, make] : registry()) names.push_back(name);
  return names;
}

Scene builtinScene(const std::string& name) {
  const auto it = registry().find(name);
  if (it == registry().end()) {
    std::string known;
    for (const std::string& n : builtinSceneNames()) known += (known.empty() ? "" : ", ") + n;
    throw SceneError("unknown built-in scene '" + name + "' (built-ins: " + known + ")");
  }
  return it->second();
}

}  // namespace srt
