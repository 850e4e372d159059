#include "apps/camera_flags.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "apps/command.h"

namespace srt {
namespace {

using nlohmann::json;

// "x,y,z" with three finite numbers (spaces allowed around them).
std::optional<Vec3f> parseTriple(const std::string& text) {
  Vec3f v;
  std::stringstream in(text);
  std::string item;
  int n = 0;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    const float f = std::strtof(item.c_str(), &end);
    while (end && *end == ' ') ++end;
    if (n == 3 || item.find_first_not_of(' ') == std::string::npos || *end != '\0' ||
        !std::isfinite(f))
      return std::nullopt;
    v[n++] = f;
  }
  if (n != 3 || text.back() == ',') return std::nullopt;
  return v;
}

CLI::Option* addTriple(CLI::App& cmd, const std::string& name, std::optional<Vec3f>& out,
                       const std::string& help) {
  return cmd
      .add_option_function<std::string>(
          name, [&out](const std::string& text) { out = parseTriple(text); }, help)
      ->type_name("X,Y,Z")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            return parseTriple(text) ? "" : "'" + text + "' is not X,Y,Z (three finite numbers)";
          },
          ""));
}

bool validFov(float fov) {
  return fov > 0.f && fov < 180.f;
}

Vec3f jsonTriple(const json& j, const std::string& key) {
  if (!j.is_array() || j.size() != 3)
    throw UsageError("--camera: \"" + key + "\" must be an array of three numbers");
  Vec3f v;
  for (int i = 0; i < 3; ++i) {
    if (!j[size_t(i)].is_number() || !std::isfinite(j[size_t(i)].get<float>()))
      throw UsageError("--camera: \"" + key + "\" must hold three finite numbers");
    v[i] = j[size_t(i)].get<float>();
  }
  return v;
}

float jsonNumber(const json& j, const std::string& key) {
  if (!j.is_number() || !std::isfinite(j.get<float>()))
    throw UsageError("--camera: \"" + key + "\" must be a finite number");
  return j.get<float>();
}

// The entry as `view` and `render` print it, "camera": {...}, made a JSON object; anything else
// as it is.
std::string asJsonObject(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\n");
  const bool entry = first != std::string::npos && text.compare(first, 8, "\"camera\"") == 0;
  return entry ? "{" + text + "}" : text;
}

// The --camera object applied to `c` (the scene file's "camera" form, {"camera": {...}}, or the
// entry "camera": {...}).
Camera applyJson(const std::string& text, Camera c) {
  json j;
  try {
    j = json::parse(asJsonObject(text));
  } catch (const json::exception& e) {
    std::string why = e.what();
    const size_t bracket = why.find("] ");  // "[json.exception.parse_error.101] ..."
    if (bracket != std::string::npos) why = why.substr(bracket + 2);
    throw UsageError("--camera: not JSON (" + why + ")");
  }
  if (j.is_object() && j.size() == 1 && j.contains("camera")) j = j["camera"];
  if (!j.is_object())
    throw UsageError(
        "--camera: expected a JSON object like {\"position\": [0, 1, 5], \"target\": [0, 1, "
        "0], \"fov\": 40}");
  for (const auto& [key, value] : j.items()) {
    if (key == "position")
      c.position = jsonTriple(value, key);
    else if (key == "target")
      c.target = jsonTriple(value, key);
    else if (key == "up")
      c.up = jsonTriple(value, key);
    else if (key == "fov")
      c.vfovDegrees = jsonNumber(value, key);
    else if (key == "lens_radius")
      c.lensRadius = jsonNumber(value, key);
    else if (key == "focus_distance")
      c.focusDistance = jsonNumber(value, key);
    else
      throw UsageError("--camera: unknown key \"" + key +
                       "\" (known: position, target, up, fov, lens_radius, "
                       "focus_distance)");
  }
  if (!validFov(c.vfovDegrees)) throw UsageError("--camera: \"fov\" must be in (0, 180)");
  if (c.lensRadius < 0.f || c.focusDistance < 0.f)
    throw UsageError("--camera: lens_radius and focus_distance must not be negative");
  return c;
}

}  // namespace

bool CameraFlags::placesCamera() const {
  if (lookFrom && lookAt) return true;
  if (json.empty()) return false;
  const nlohmann::json j = nlohmann::json::parse(asJsonObject(json), nullptr, false);
  const nlohmann::json& c = j.is_object() && j.contains("camera") ? j["camera"] : j;
  return c.is_object() && (lookFrom || c.contains("position")) && (lookAt || c.contains("target"));
}

void addCameraFlags(CLI::App& cmd, CameraFlags& flags) {
  cmd.add_option("--camera", flags.json,
                 "The camera as a scene file's \"camera\" JSON object, e.g. '{\"position\": [0, "
                 "1, 5], \"target\": [0, 1, 0], \"fov\": 40}'; overrides the scene's camera")
      ->type_name("JSON");
  addTriple(cmd, "--look-from", flags.lookFrom, "Camera position, overriding the scene's");
  addTriple(cmd, "--look-at", flags.lookAt, "Point the camera looks at");
  addTriple(cmd, "--up", flags.up, "Camera up direction (0,1,0 by default)");
  cmd.add_option_function<float>(
         "--fov", [&flags](const float& v) { flags.fov = v; },
         "Vertical field of view in degrees, in (0, 180)")
      ->type_name("DEG")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            char* end = nullptr;
            const float v = std::strtof(text.c_str(), &end);
            if (text.empty() || *end != '\0' || !validFov(v))
              return "'" + text + "' is not an angle in (0, 180) degrees";
            return {};
          },
          ""));
}

Camera applyCameraFlags(const CameraFlags& flags, Camera c) {
  if (!flags.json.empty()) c = applyJson(flags.json, c);
  if (flags.lookFrom) c.position = *flags.lookFrom;
  if (flags.lookAt) c.target = *flags.lookAt;
  if (flags.up) c.up = *flags.up;
  if (flags.fov) c.vfovDegrees = *flags.fov;
  const std::string named = flags.lookFrom || flags.lookAt ? "--look-from/--look-at" : "--camera";
  const Vec3f view = c.target - c.position;
  if (lengthSquared(view) == 0.f) {
    char at[96];
    std::snprintf(at, sizeof at, "(%g,%g,%g)", c.position.x, c.position.y, c.position.z);
    throw UsageError(named + ": the camera sits on the point it looks at " + at);
  }
  if (lengthSquared(cross(normalize(view), c.up)) < 1e-12f)
    throw UsageError(std::string(flags.up ? "--up" : named) +
                     ": the up direction is zero or along the view direction");
  return c;
}

void checkCameraFlags(const CameraFlags& flags) {
  if (!flags.json.empty()) applyJson(flags.json, Camera{});
  if (flags.lookFrom && flags.lookAt) applyCameraFlags(flags, Camera{});
  if (flags.up && lengthSquared(*flags.up) == 0.f)
    throw UsageError("--up: the up direction is zero");
}

}  // namespace srt
