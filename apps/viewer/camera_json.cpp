#include "apps/viewer/camera_json.h"

#include <charconv>

namespace srt::viewer {
namespace {

std::string number(float v) {
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  return std::string(buf, end);
}

std::string triple(Vec3f v) {
  return "[" + number(v.x) + ", " + number(v.y) + ", " + number(v.z) + "]";
}

}  // namespace

std::string cameraJson(const Camera& c) {
  std::string s = "{\"position\": " + triple(c.position) + ", \"target\": " + triple(c.target) +
                  ", \"up\": " + triple(c.up) + ", \"fov\": " + number(c.vfovDegrees);
  if (c.lensRadius != 0.f) s += ", \"lens_radius\": " + number(c.lensRadius);
  if (c.focusDistance != 0.f) s += ", \"focus_distance\": " + number(c.focusDistance);
  return s + "}";
}

}  // namespace srt::viewer
