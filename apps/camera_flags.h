// Camera flags: --look-from, --look-at, --up, --fov, and --camera with a scene file's "camera"
// object. They override the scene's camera (or the one framed automatically) field by field;
// --camera first, then the single flags.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "scenes/scene.h"

namespace srt {

struct CameraFlags {
  std::string json;  // --camera
  std::optional<Vec3f> lookFrom, lookAt, up;
  std::optional<float> fov;

  bool any() const { return !json.empty() || lookFrom || lookAt || up || fov; }
  // A camera missing from the scene is placed automatically unless these say where.
  bool placesCamera() const;
};

void addCameraFlags(CLI::App& cmd, CameraFlags& flags);

// `base` with the flags applied. Throws UsageError naming the flags when the result
// cannot be a camera (the eye on its target, up along the view direction).
Camera applyCameraFlags(const CameraFlags& flags, Camera base);
// The flags that are given checked alone, before a scene loads.
void checkCameraFlags(const CameraFlags& flags);

}  // namespace srt
