// `streamrt view --benchmark N`: the viewer's frame loop without a window, for frame rates on a
// machine with no display (a GPU server). A headless EGL context (on the CUDA device's GPU) takes
// the window's place, so each frame does what a frame in the window does: render one sample (with
// the kd-tree rebuilt when the scene time moves), add it to the running sum, resolve the mean
// into the display texture (CUDA-GL interop on CUDA). Prints steady-state frames/s and the split.
#pragma once

#include "apps/viewer/viewer.h"
#include "scenes/scene.h"

namespace srt::viewer {

// Runs config.benchmarkFrames frames after config.benchmarkWarmup untimed ones, on config's
// backend name ("cpu" or "cuda", already selected). With --play the scene time advances by the
// animation's span / frames each frame (every frame rebuilds the kd-tree, as `render --frames`
// does); otherwise the frames accumulate a still image. Throws gl::GlUnavailable without EGL.
int runBenchmark(const ViewerConfig& config, const Scene& scene, float animationStart,
                 float animationEnd);

}  // namespace srt::viewer
