// From a loaded scene to images and statistics: what the CLI, the viewer and the tests use.
#pragma once

#include <memory>
#include <optional>

#include "renderer/wavefront/integrator.h"

namespace srt {

struct RenderResult {
  Image image;
  RenderStats stats;
  double imageSeconds = 0;  // the film resolved to `image` on the host (not in renderSeconds)
};

// What checkRender() found, for the callers that need to know before anything is built.
struct RenderCheck {
  compaction::Info compaction;  // the primitive as its options make it (usesGl(): needs a GL
                                // context, which the viewer takes from its window)
};

// The one check of a render's settings, run by the Renderer and by the CLI before the scene loads
// (so a typo costs nothing): the options against the backend (validateRenderOptions) and the
// kd-tree builder's settings (--kd-build, --segreduce, --kd-compaction). Builds, makes and
// allocates nothing; throws std::invalid_argument naming the flag at fault.
RenderCheck checkRender(const Backend& backend, const RenderOptions& options,
                        const AccelOptions& accel = {});
// The part of checkRender() that needs no backend: the GPU kd-tree builder's primitives by name
// (--segreduce, --kd-compaction), for a caller that checks before its device has started.
void checkAccelOptions(const AccelOptions& accel);

// Holds the scene data (geometry, kd-tree) and the integrator's streams across frames, so an
// animated scene renders frame after frame with only the kd-tree rebuilt.
class Renderer {
 public:
  // Checks the settings (checkRender, throwing std::invalid_argument naming the flag), places a
  // camera when the scene has none, builds the scene data and the integrator. `flat`, when
  // given, is flatten(scene, time) made beforehand (while the device started).
  Renderer(Scene scene, const Backend& backend, const RenderOptions& options,
           const AccelOptions& accel = {}, float time = 0.f,
           std::optional<FlatGeometry> flat = std::nullopt);
  ~Renderer();
  // Renders the scene at `time`; moves the geometry and rebuilds the kd-tree when the time
  // differs from the previous frame's. `stop` ends the render between passes with the samples
  // begun so far (see StopCondition); the stats say how many (samplesDone, stopped).
  RenderResult render(float time, const ProgressFn& progress = {}, const StopCondition& stop = {});
  // The time the render after the next one shows (frames played in order): the next render()
  // starts moving the geometry there and building its tree beside its own render
  // (SceneData::prefetch, when the kd-tree overlap is on), so that render costs only the swap.
  void setNextTime(float time) { nextTime_ = time, hasNextTime_ = true; }
  // Replaces the render options (primitive, payload, integrator, spp, resolution...), keeping the
  // scene data and its kd-tree: the viewer and `streamrt profile` switch primitives this way.
  void setOptions(const RenderOptions& options);
  // Moves the camera; the next render() shows the new view.
  void setCamera(const Camera& camera);
  const Scene& scene() const { return scene_; }
  const RenderOptions& options() const { return options_; }
  // The last render's film as fixed-point sums (Integrator::filmSums), for a split render to add.
  std::vector<unsigned long long> filmSums() const { return integrator_->filmSums(); }
  // The same where the film lives (Integrator::filmData), valid until the next render().
  const unsigned long long* filmData() const { return integrator_->filmData(); }
  // false: render() leaves RenderResult::image empty and the film where it lives (the viewer
  // on CUDA resolves it on the device, so no frame crosses to the host).
  void setImageOnHost(bool onHost) { imageOnHost_ = onHost; }

 private:
  Scene scene_;
  Backend backend_;
  RenderOptions options_;
  compaction::Info checked_;  // what validateRenderOptions() said of options_
  float time_ = 0.f;
  float nextTime_ = 0.f;  // setNextTime(), for the next render() only
  bool hasNextTime_ = false;
  bool rebuilt_ = true;  // the next frame reports the build the constructor did
  bool imageOnHost_ = true;
  std::unique_ptr<SceneData> data_;
  std::unique_ptr<Integrator> integrator_;
};

// One frame at time 0 with the CPU kd-tree builder.
RenderResult renderScene(Scene scene, const Backend& backend, const RenderOptions& options,
                         const ProgressFn& progress = {});

}  // namespace srt
