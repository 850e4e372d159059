// The streamrt JSON scene file: parsing with error positions, checked values, and the scene's
// camera, environment, lights and materials (objects: loader_json_objects.cpp).
#include "scenes/loader_json.h"

#include <cmath>

#include "base/image_read.h"

namespace srt::detail {
namespace {

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

}  // namespace

void JsonScene::checkKeys(const json& obj, const std::string& where,
                          const std::vector<const char*>& allowed, const std::string& kind) const {
  if (!obj.is_object()) fail(where, "expected an object, got " + std::string(obj.type_name()));
  for (const auto& item : obj.items()) {
    const std::string& key = item.key();  // not a structured binding: lambdas capture it
    if (std::find_if(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; }) !=
        allowed.end())
      continue;
    std::string list;
    for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
    fail(where,
         "unknown key '" + key + "'" + (kind.empty() ? "" : " for a " + kind) +
             " (expected one of: " + list + ")",
         "\"" + key + "\"");
  }
}

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

Scene readJsonScene(const std::string& path, std::string bytes, LoadContext& ctx) {
  return JsonScene(path, std::move(bytes), ctx).load();
}

}  // namespace srt::detail
