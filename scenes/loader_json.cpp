// The streamrt JSON scene file (format in scenes/README.md). Every error names the file, the key
// path (e.g. "objects[2].material") and, for syntax errors or a uniquely found token, the line.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "base/image_read.h"
#include "scenes/loader_internal.h"
#include "scenes/shapes.h"

namespace srt::detail {
namespace {

using nlohmann::json;

class JsonScene {
 public:
  JsonScene(std::string path, std::string text, LoadContext& ctx)
      : path_(std::move(path)), text_(std::move(text)), ctx_(ctx) {}
  Scene load();

 private:
  // Line of `token` in the file when it occurs exactly once (a best effort: nlohmann 3.11 keeps no
  // positions for values), 0 otherwise.
  size_t uniqueLine(const std::string& token) const {
    if (token.empty()) return 0;
    const size_t at = text_.find(token);
    if (at == std::string::npos || text_.find(token, at + 1) != std::string::npos) return 0;
    return size_t(std::count(text_.begin(), text_.begin() + long(at), '\n')) + 1;
  }
  [[noreturn]] void fail(const std::string& where, const std::string& what,
                         const std::string& token = "") const {
    const size_t line = uniqueLine(token);
    throw SceneError(path_ + (line ? ":" + std::to_string(line) : std::string()) + ": " + where +
                     ": " + what);
  }
  void checkKeys(const json& obj, const std::string& where,
                 std::initializer_list<const char*> allowed) const {
    if (!obj.is_object()) fail(where, "expected an object, got " + std::string(obj.type_name()));
    for (const auto& item : obj.items()) {
      const std::string& key = item.key();  // not a structured binding: lambdas capture it
      if (std::find_if(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; }) !=
          allowed.end())
        continue;
      std::string list;
      for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
      fail(where, "unknown key '" + key + "' (expected one of: " + list + ")", "\"" + key + "\"");
    }
  }
  float number(const json& j, const std::string& where) const {
    if (!j.is_number()) fail(where, "expected a number, got " + std::string(j.type_name()));
    const float v = j.get<float>();
    if (!std::isfinite(v)) fail(where, "is out of the float range");
    return v;
  }
  std::string string(const json& j, const std::string& where) const {
    if (!j.is_string()) fail(where, "expected a string, got " + std::string(j.type_name()));
    return j.get<std::string>();
  }
  // [x, y, z]; a single number means (v, v, v) where `scalarOk`.
  Vec3f vec3(const json& j, const std::string& where, bool scalarOk = false) const {
    if (scalarOk && j.is_number()) return Vec3f(number(j, where));
    if (!j.is_array() || j.size() != 3)
      fail(where, std::string("expected [x, y, z]") + (scalarOk ? " or a number" : ""));
    return {number(j[0], where + "[0]"), number(j[1], where + "[1]"), number(j[2], where + "[2]")};
  }
  Vec3f vec3Plain(const json& j, const std::string& where) const { return vec3(j, where); }
  template <typename T, typename F>
  T optional(const json& obj, const char* key, const std::string& where, T fallback, F read) const {
    const auto it = obj.find(key);
    return it == obj.end() ? fallback : (this->*read)(*it, where + "." + key);
  }

  void readCamera(const json& j);
  void readEnvironment(const json& j);
  void readLights(const json& j);
  void readMaterials(const json& j);
  void readObject(const json& j, const std::string& where);
  Transform readTransform(const json& j, const std::string& where) const;
  void checkScales(const Vec3f& base, const std::vector<Keyframe>& keys,
                   const std::string& where) const;
  Keyframe readKeyframe(const json& j, const std::string& where) const;
  uint32_t materialNamed(const std::string& name, const std::string& where);
  void addInstances(size_t firstMesh, const json& j, const std::string& where);

  [[noreturn]] void failAt(size_t byte, const std::string& what) const;

  // Counts triangles before they are made: a one-line file must not ask for a billion.
  void spend(uint64_t triangles, const std::string& where);
  void checkShapeBudget(const json& objects) const;

  std::string path_, text_;
  LoadContext& ctx_;
  Scene scene_;
  uint64_t triangles_ = 0;
};

// nlohmann's DOM builder, remembering where an error was found: a number out of range
// ("1e400") is reported through parse_error too, but its exception carries no position.
class PositionedSax : public nlohmann::detail::json_sax_dom_parser<json> {
 public:
  using nlohmann::detail::json_sax_dom_parser<json>::json_sax_dom_parser;
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& ex) {
    errorByte = position, errorToken = token, errorWhat = ex.what();
    return false;
  }
  size_t errorByte = 0;
  std::string errorToken, errorWhat;
};

void JsonScene::failAt(size_t byte, const std::string& what) const {
  byte = std::min(byte, text_.size());
  const size_t end = byte > 0 ? byte - 1 : 0;
  const size_t line = size_t(std::count(text_.begin(), text_.begin() + long(end), '\n')) + 1;
  const size_t lineStart = text_.rfind('\n', end > 0 ? end - 1 : 0);
  const size_t column = lineStart == std::string::npos || end == 0 ? end + 1 : end - lineStart;
  throw SceneError(path_ + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + what);
}

Scene JsonScene::load() {
  json root;
  PositionedSax sax(root, /*allow_exceptions=*/false);
  if (!json::sax_parse(text_, &sax, json::input_format_t::json, /*strict=*/true,
                       /*ignore_comments=*/true) ||
      !sax.errorWhat.empty()) {
    std::string reason = sax.errorWhat.empty() ? "parse failed" : sax.errorWhat;
    const size_t colon = reason.find("] ");
    if (colon != std::string::npos) reason = reason.substr(colon + 2);
    // "parse error at line 3, column 27: " repeats what the prefix says.
    if (reason.rfind("parse error", 0) == 0 && reason.find(": ") != std::string::npos)
      reason = reason.substr(reason.find(": ") + 2);
    failAt(sax.errorByte, "malformed JSON: " + reason);
  }
  checkKeys(root, "scene",
            {"name", "comment", "include_builtin", "camera", "environment", "lights", "materials",
             "objects"});
  if (root.contains("include_builtin")) {
    const std::string name = string(root["include_builtin"], "include_builtin");
    try {
      scene_ = builtinScene(name);
    } catch (const SceneError& e) {
      fail("include_builtin", e.what(), "\"" + name + "\"");
    }
  }
  scene_.name = root.contains("name") ? string(root["name"], "name") : path_;
  if (root.contains("camera")) readCamera(root["camera"]);
  if (root.contains("environment")) readEnvironment(root["environment"]);
  if (root.contains("lights")) readLights(root["lights"]);
  if (root.contains("materials")) readMaterials(root["materials"]);
  if (root.contains("objects")) {
    const json& objects = root["objects"];
    if (!objects.is_array()) fail("objects", "expected an array");
    checkShapeBudget(objects);
    for (size_t i = 0; i < objects.size(); ++i)
      readObject(objects[i], "objects[" + std::to_string(i) + "]");
  }
  return std::move(scene_);
}

void JsonScene::readCamera(const json& j) {
  checkKeys(j, "camera", {"position", "target", "up", "fov", "lens_radius", "focus_distance"});
  Camera c = scene_.camera.value_or(Camera{});
  c.position = optional(j, "position", "camera", c.position, &JsonScene::vec3Plain);
  c.target = optional(j, "target", "camera", c.target, &JsonScene::vec3Plain);
  c.up = optional(j, "up", "camera", c.up, &JsonScene::vec3Plain);
  c.vfovDegrees = optional(j, "fov", "camera", c.vfovDegrees, &JsonScene::number);
  c.lensRadius = optional(j, "lens_radius", "camera", c.lensRadius, &JsonScene::number);
  c.focusDistance = optional(j, "focus_distance", "camera", c.focusDistance, &JsonScene::number);
  if (!(c.vfovDegrees > 0.f && c.vfovDegrees < 180.f))
    fail("camera.fov", "must be in (0, 180) degrees, got " + std::to_string(c.vfovDegrees));
  if (c.lensRadius < 0.f || c.focusDistance < 0.f)
    fail("camera", "lens_radius and focus_distance must not be negative");
  if (lengthSquared(c.target - c.position) == 0.f) fail("camera", "position and target coincide");
  scene_.camera = c;
}

// A uniform radiance (v|s), or {"file": map.hdr|map.exr, "scale": s, "rotation": degrees}.
void JsonScene::readEnvironment(const json& j) {
  if (!j.is_object()) {
    scene_.environment = vec3(j, "environment", true);
    scene_.environmentMap.reset();
    return;
  }
  checkKeys(j, "environment", {"file", "scale", "rotation"});
  if (!j.contains("file")) fail("environment", "needs 'file' (an .hdr or .exr map)");
  EnvironmentMap map;
  map.path = resolveRelative(folderOf(path_), string(j["file"], "environment.file"));
  map.scale = optional(j, "scale", "environment", 1.f, &JsonScene::number);
  map.rotationDegrees = optional(j, "rotation", "environment", 0.f, &JsonScene::number);
  if (!(map.scale >= 0.f)) fail("environment.scale", "must be >= 0");
  try {
    map.image = readRadianceImage(map.path);
  } catch (const ImageError& e) {
    fail("environment.file", e.what());
  }
  scene_.environment = Vec3f(0.f);
  scene_.environmentMap = std::move(map);
}

void JsonScene::readLights(const json& j) {
  if (!j.is_array()) fail("lights", "expected an array");
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string where = "lights[" + std::to_string(i) + "]";
    checkKeys(j[i], where, {"type", "position", "intensity"});
    const std::string type = j[i].contains("type") ? string(j[i]["type"], where + ".type") : "";
    if (type != "point")
      fail(where + ".type", "unknown light type '" + type + "' (supported: point)",
           "\"" + type + "\"");
    if (!j[i].contains("position") || !j[i].contains("intensity"))
      fail(where, "a point light needs 'position' and 'intensity'");
    scene_.pointLights.push_back({vec3(j[i]["position"], where + ".position"),
                                  vec3(j[i]["intensity"], where + ".intensity", true)});
  }
}

void JsonScene::readMaterials(const json& j) {
  if (!j.is_object()) fail("materials", "expected an object mapping names to materials");
  const std::string folder = folderOf(path_);
  for (const auto& item : j.items()) {
    const std::string& name = item.key();
    const json& m = item.value();
    const std::string where = "materials." + name;
    checkKeys(m, where, {"type", "kd", "ks", "ns", "ior", "ke", "kd_texture"});
    Material mat;
    mat.name = name;
    const std::string type = m.contains("type") ? string(m["type"], where + ".type") : "diffuse";
    if (type == "diffuse")
      mat.type = MaterialType::Diffuse;
    else if (type == "glossy")
      mat.type = MaterialType::Glossy;
    else if (type == "dielectric")
      mat.type = MaterialType::Dielectric;
    else if (type == "mirror")
      mat.type = MaterialType::Mirror;
    else
      fail(where + ".type",
           "unknown material type '" + type + "' (expected diffuse, glossy, dielectric or mirror)",
           "\"" + type + "\"");
    if (mat.type == MaterialType::Mirror || mat.type == MaterialType::Dielectric)
      mat.ks = Vec3f(1.f);
    if (m.contains("kd")) mat.kd = vec3(m["kd"], where + ".kd", true);
    if (m.contains("ks")) mat.ks = vec3(m["ks"], where + ".ks", true);
    if (m.contains("ke")) mat.ke = vec3(m["ke"], where + ".ke", true);
    if (m.contains("ns")) mat.ns = number(m["ns"], where + ".ns");
    if (m.contains("ior")) mat.ior = number(m["ior"], where + ".ior");
    if (mat.ior <= 0.f) fail(where + ".ior", "must be positive");
    if (m.contains("kd_texture")) {
      const std::string tex = string(m["kd_texture"], where + ".kd_texture");
      mat.kdTexture =
          loadTexture(scene_, resolveRelative(folder, tex), path_ + " (" + where + ")", ctx_);
    }
    // A name already defined (e.g. by include_builtin) is redefined in place.
    auto it = std::find_if(scene_.materials.begin(), scene_.materials.end(),
                           [&](const Material& x) { return x.name == name; });
    if (it != scene_.materials.end())
      *it = mat;
    else
      scene_.materials.push_back(mat);
  }
}

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
      fail("objects[" + std::to_string(i) + "]",
           "the scene would have " + std::to_string(total) + " triangles, over the limit of " +
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
  if (file) {
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
    // Merge: textures, then materials (unless overridden), then meshes with remapped ids.
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
  } else {
    const std::string kind = string(j["shape"], where + ".shape");
    auto base = {"name", "shape", "material", "transform", "animation"};
    auto keys = [&](std::initializer_list<const char*> extra) {
      std::vector<const char*> all(base.begin(), base.end());
      all.insert(all.end(), extra.begin(), extra.end());
      for (const auto& item : j.items())
        if (const std::string& key = item.key();
            std::find_if(all.begin(), all.end(), [&](const char* a) { return key == a; }) ==
            all.end()) {
          std::string list;
          for (const char* a : all) list += std::string(list.empty() ? "" : ", ") + a;
          fail(where,
               "unknown key '" + key + "' for a " + kind + " (expected one of: " + list + ")",
               "\"" + key + "\"");
        }
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
  addInstances(firstMesh, j, where);
}

}  // namespace

Scene readJsonScene(const std::string& path, std::string bytes, LoadContext& ctx) {
  return JsonScene(path, std::move(bytes), ctx).load();
}

}  // namespace srt::detail
