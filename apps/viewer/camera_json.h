// The viewer's camera as a scene file's "camera" entry, so an orbited view can be kept: pasted
// into a scene file or given back to `--camera`. Numbers are written in their shortest form that
// reads back to the same float.
#pragma once

#include <string>

#include "scenes/scene.h"

namespace srt::viewer {

// {"position": [x, y, z], "target": [...], "up": [...], "fov": f} (lens_radius and
// focus_distance only when they are not 0).
std::string cameraJson(const Camera& camera);

}  // namespace srt::viewer
