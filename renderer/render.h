// One call from a loaded scene to an image and its statistics: what the CLI, the viewer and the
// tests use.
#pragma once

#include "renderer/wavefront/integrator.h"

namespace srt {

struct RenderResult {
  Image image;
  RenderStats stats;
};

// Places a camera when the scene has none, builds the scene data (kd-tree included) on the
// backend, and runs the integrator the options name. Throws std::invalid_argument for options
// that do not fit the backend, and CudaError for device failures.
RenderResult renderScene(Scene scene, const Backend& backend, const RenderOptions& options,
                         const ProgressFn& progress = {});

}  // namespace srt
