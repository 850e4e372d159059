// The reader of the streamrt JSON scene file (format in scenes/README.md), shared by its two
// halves: loader_json.cpp (parsing, checked values, camera, environment, lights, materials) and
// loader_json_objects.cpp (objects: meshes from files, generated shapes, transforms, animation,
// the triangle budget). Every error names the file, the key path (e.g. "objects[2].material")
// and, for syntax errors or a uniquely found token, the line. Not part of the public API.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "scenes/loader_internal.h"

namespace srt::detail {

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
  // Fails on a key outside `allowed`, naming them; `kind` ("sphere") says whose keys they are.
  void checkKeys(const json& obj, const std::string& where, const std::vector<const char*>& allowed,
                 const std::string& kind = "") const;
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
  void readFileObject(const json& j, const std::string& where, int overrideMaterial);
  void readShape(const json& j, const std::string& where, int overrideMaterial);
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

}  // namespace srt::detail
