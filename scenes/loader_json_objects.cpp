// The objects of a streamrt JSON scene: meshes from other files, generated shapes, their
// transforms and keyframes, and the triangle budget they spend.
#include <cmath>

#include "scenes/loader_json.h"
#include "scenes/shapes.h"

namespace srt::detail {

void JsonScene::spend(uint64_t triangles, const std::string& where) {
  triangles_ += triangles;
  if (triangles_ > ctx_.options().maxTriangles)
    fail(where, "the scene would have " + std::to_string(triangles_) +
                    " triangles, over the limit of " + std::to_string(ctx_.options().maxTriangles));
}

// The generated shapes' triangles summed before any is made, so a file asking for several huge
// spheres is refused at once instead of after building the first ones. Malformed entries are
// left to readObject, which names what is wrong with them.
void JsonScene::checkShapeBudget(const json& objects) const {
  uint64_t total = triangles_;
  for (size_t i = 0; i < objects.size(); ++i) {
    const json& j = objects[i];
    if (!j.is_object() || !j.contains("shape") || !j["shape"].is_string()) continue;
    const std::string kind = j["shape"].get<std::string>();
    uint64_t count = kind == "cube" ? 12 : kind == "quad" ? 2 : 0;
    if (kind == "sphere") {
      double sub = 32;
      if (j.contains("subdivisions")) {
        if (!j["subdivisions"].is_number()) continue;
        sub = j["subdivisions"].get<double>();
      }
      if (!(sub >= 2 && sub <= 4096)) continue;
      count = 4 * uint64_t(sub) * uint64_t(sub);
    }
    total += count;
    if (total > ctx_.options().maxTriangles)
      fail("objects[" + std::to_string(i) + "]", "the scene would have " + std::to_string(total) +
                                                     " triangles, over the limit of " +
                                                     std::to_string(ctx_.options().maxTriangles));
  }
}

uint32_t JsonScene::materialNamed(const std::string& name, const std::string& where) {
  for (size_t i = 0; i < scene_.materials.size(); ++i)
    if (scene_.materials[i].name == name) return uint32_t(i);
  std::string known;
  for (const Material& m : scene_.materials) known += (known.empty() ? "" : ", ") + m.name;
  fail(where, "unknown material '" + name + "' (defined: " + (known.empty() ? "none" : known) + ")",
       "\"" + name + "\"");
}

Transform JsonScene::readTransform(const json& j, const std::string& where) const {
  checkKeys(j, where, {"translate", "rotate", "scale"});
  const Keyframe k = readKeyframe(j, where);
  return Transform::translate(k.translate) * Transform::rotate(k.rotateDegrees, k.rotateAxis) *
         Transform::scale(k.scale);
}

// flatten() inverts every instance's transform (for normals) at every time: no scale may reach
// zero, at a keyframe or between two (a component keeps its sign, so the smallest magnitude is
// at a keyframe), and the product with the static scale must stay invertible.
void JsonScene::checkScales(const Vec3f& base, const std::vector<Keyframe>& keys,
                            const std::string& where) const {
  Vec3f smallest{std::fabs(base.x), std::fabs(base.y), std::fabs(base.z)};
  Vec3f low = smallest;
  for (size_t i = 0; i < keys.size(); ++i) {
    const Vec3f s = keys[i].scale;
    if (i > 0 && (s.x * keys[i - 1].scale.x <= 0.f || s.y * keys[i - 1].scale.y <= 0.f ||
                  s.z * keys[i - 1].scale.z <= 0.f))
      fail(where + ".animation[" + std::to_string(i) + "].scale",
           "a scale component changes sign or is zero between keyframes (not invertible)");
    low = Vec3f{std::min(i ? low.x : std::fabs(s.x), std::fabs(s.x)),
                std::min(i ? low.y : std::fabs(s.y), std::fabs(s.y)),
                std::min(i ? low.z : std::fabs(s.z), std::fabs(s.z))};
  }
  if (!keys.empty()) smallest = smallest * low;
  if (!(double(smallest.x) * smallest.y * smallest.z >= 1e-15))
    fail(where, "a scale is zero or too small: the transform is not invertible");
}

Keyframe JsonScene::readKeyframe(const json& j, const std::string& where) const {
  Keyframe k;
  if (j.contains("time")) k.time = number(j["time"], where + ".time");
  if (j.contains("translate")) k.translate = vec3(j["translate"], where + ".translate");
  if (j.contains("scale")) k.scale = vec3(j["scale"], where + ".scale", true);
  if (j.contains("rotate")) {
    const json& r = j["rotate"];
    checkKeys(r, where + ".rotate", {"axis", "degrees"});
    if (r.contains("axis")) k.rotateAxis = vec3(r["axis"], where + ".rotate.axis");
    if (lengthSquared(k.rotateAxis) == 0.f) fail(where + ".rotate.axis", "must not be zero");
    if (r.contains("degrees")) k.rotateDegrees = number(r["degrees"], where + ".rotate.degrees");
  }
  return k;
}

void JsonScene::addInstances(size_t firstMesh, const json& j, const std::string& where) {
  Instance inst;
  Vec3f baseScale(1.f);
  if (j.contains("transform")) {
    inst.transform = readTransform(j["transform"], where + ".transform");
    baseScale = readKeyframe(j["transform"], where + ".transform").scale;
  }
  if (j.contains("animation")) {
    const json& a = j["animation"];
    if (!a.is_array() || a.empty())
      fail(where + ".animation", "expected a non-empty array of keyframes");
    for (size_t i = 0; i < a.size(); ++i) {
      const std::string kw = where + ".animation[" + std::to_string(i) + "]";
      checkKeys(a[i], kw, {"time", "translate", "rotate", "scale"});
      if (!a[i].contains("time")) fail(kw, "a keyframe needs 'time'");
      inst.keyframes.push_back(readKeyframe(a[i], kw));
      if (i > 0 && !(inst.keyframes[i].time > inst.keyframes[i - 1].time))
        fail(kw + ".time", "keyframe times must increase");
    }
  }
  checkScales(baseScale, inst.keyframes, where);
  for (size_t m = firstMesh; m < scene_.meshes.size(); ++m) {
    inst.mesh = uint32_t(m);
    scene_.instances.push_back(inst);
  }
}

void JsonScene::readObject(const json& j, const std::string& where) {
  if (!j.is_object()) fail(where, "expected an object");
  const bool file = j.contains("file"), shape = j.contains("shape");
  if (file == shape) fail(where, "needs exactly one of 'file' or 'shape'");
  const size_t firstMesh = scene_.meshes.size();
  int overrideMaterial = -1;
  if (j.contains("material"))
    overrideMaterial =
        int(materialNamed(string(j["material"], where + ".material"), where + ".material"));
  if (file)
    readFileObject(j, where, overrideMaterial);
  else
    readShape(j, where, overrideMaterial);
  addInstances(firstMesh, j, where);
}

// A mesh file merged in: its textures, then its materials (unless overridden), then its meshes
// with remapped ids.
void JsonScene::readFileObject(const json& j, const std::string& where, int overrideMaterial) {
  checkKeys(j, where, {"name", "file", "material", "transform", "animation"});
  const std::string rel = string(j["file"], where + ".file");
  const std::string full = resolveRelative(folderOf(path_), rel);
  const std::string ext = lowerExtension(full);
  if (ext.empty()) fail(where + ".file", "'" + rel + "' has no extension", "\"" + rel + "\"");
  if (ext == ".json")
    fail(where + ".file", "scene files cannot include other JSON scenes", "\"" + rel + "\"");
  Scene sub;
  try {
    sub = loadSceneFile(full, ctx_);
    spend(sub.triangleCount(), where + ".file");
  } catch (const SceneError& e) {
    fail(where + ".file", e.what(), "\"" + rel + "\"");
  }
  const uint32_t texBase = uint32_t(scene_.textures.size());
  const uint32_t matBase = uint32_t(scene_.materials.size());
  for (Texture& t : sub.textures) scene_.textures.push_back(std::move(t));
  if (overrideMaterial < 0)
    for (Material m : sub.materials) {
      if (m.kdTexture >= 0) m.kdTexture += int(texBase);
      scene_.materials.push_back(m);
    }
  for (Mesh& m : sub.meshes) {
    for (uint32_t& id : m.materialIds)
      id = overrideMaterial >= 0 ? uint32_t(overrideMaterial) : id + matBase;
    scene_.meshes.push_back(std::move(m));
  }
}

// A generated sphere, cube or quad; without a material, the scene's "default" (made if absent).
void JsonScene::readShape(const json& j, const std::string& where, int overrideMaterial) {
  const std::string kind = string(j["shape"], where + ".shape");
  auto keys = [&](std::initializer_list<const char*> extra) {
    std::vector<const char*> all = {"name", "shape", "material", "transform", "animation"};
    all.insert(all.end(), extra.begin(), extra.end());
    checkKeys(j, where, all, kind);
  };
  uint32_t material = overrideMaterial >= 0 ? uint32_t(overrideMaterial) : 0;
  if (overrideMaterial < 0) {
    auto it = std::find_if(scene_.materials.begin(), scene_.materials.end(),
                           [](const Material& m) { return m.name == "default"; });
    if (it == scene_.materials.end()) {
      Material m;
      m.name = "default";
      scene_.materials.push_back(m);
      it = scene_.materials.end() - 1;
    }
    material = uint32_t(it - scene_.materials.begin());
  }
  Mesh mesh;
  if (kind == "sphere") {
    keys({"center", "radius", "subdivisions", "inward"});
    const Vec3f c = j.contains("center") ? vec3(j["center"], where + ".center") : Vec3f{};
    const float r = j.contains("radius") ? number(j["radius"], where + ".radius") : 1.f;
    if (!(r > 0.f)) fail(where + ".radius", "must be positive");
    const float sub =
        j.contains("subdivisions") ? number(j["subdivisions"], where + ".subdivisions") : 32.f;
    if (sub < 2.f || sub > 4096.f) fail(where + ".subdivisions", "must be in [2, 4096]");
    bool inward = false;
    if (j.contains("inward")) {
      if (!j["inward"].is_boolean()) fail(where + ".inward", "expected true or false");
      inward = j["inward"].get<bool>();
    }
    spend(4 * uint64_t(sub) * uint64_t(sub), where);  // rings x 2 rings quads
    mesh = makeSphere(c, r, int(sub), inward, material);
  } else if (kind == "cube") {
    keys({"min", "max", "center", "size"});
    Vec3f lo{-0.5f, -0.5f, -0.5f}, hi{0.5f, 0.5f, 0.5f};
    if (j.contains("min") || j.contains("max")) {
      if (!j.contains("min") || !j.contains("max") || j.contains("center") || j.contains("size"))
        fail(where, "a cube takes either 'min' and 'max' or 'center' and 'size'");
      lo = vec3(j["min"], where + ".min");
      hi = vec3(j["max"], where + ".max");
    } else {
      const Vec3f c = j.contains("center") ? vec3(j["center"], where + ".center") : Vec3f{};
      const Vec3f s = j.contains("size") ? vec3(j["size"], where + ".size", true) : Vec3f(1.f);
      lo = c - s * 0.5f, hi = c + s * 0.5f;
    }
    if (!(lo.x < hi.x && lo.y < hi.y && lo.z < hi.z))
      fail(where, "cube min must be below max on every axis");
    spend(12, where);
    mesh = makeBox(lo, hi, material);
  } else if (kind == "quad") {
    keys({"corner", "edge1", "edge2"});
    if (!j.contains("corner") || !j.contains("edge1") || !j.contains("edge2"))
      fail(where, "a quad needs 'corner', 'edge1' and 'edge2'");
    const Vec3f e1 = vec3(j["edge1"], where + ".edge1"), e2 = vec3(j["edge2"], where + ".edge2");
    if (lengthSquared(cross(e1, e2)) == 0.f) fail(where, "quad edges are parallel or zero");
    spend(2, where);
    mesh = makeQuad(vec3(j["corner"], where + ".corner"), e1, e2, material);
  } else {
    fail(where + ".shape", "unknown shape '" + kind + "' (expected sphere, cube or quad)",
         "\"" + kind + "\"");
  }
  if (j.contains("name")) mesh.name = string(j["name"], where + ".name");
  scene_.meshes.push_back(std::move(mesh));
}

}  // namespace srt::detail
