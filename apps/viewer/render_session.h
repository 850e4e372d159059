// The renderer side of the viewer: one Renderer kept across frames, one sample per frame with
// RenderOptions::firstSample counting up, so N frames accumulate the same samples an N-spp
// `streamrt render` takes. Any change of camera, options or backend restarts the accumulation.
// The frames' films are summed where they are rendered (FilmAccumulator): on CUDA nothing is
// copied to the host and nothing waits for the GPU beyond what the renderer itself waits for.
#pragma once

#include <memory>
#include <string>

#include "apps/viewer/film_accumulator.h"
#include "renderer/render.h"

namespace srt::viewer {

class RenderSession {
 public:
  // Builds the scene data and kd-tree on `backendName` ("cpu" or "cuda"). Throws like Renderer.
  RenderSession(const Scene& scene, const std::string& backendName, const RenderOptions& options,
                const AccelOptions& accel = {}, float time = 0.f);
  ~RenderSession();

  // Each throws std::invalid_argument (or the renderer's error) and then keeps what it had.
  void setOptions(const RenderOptions& options);
  void setBackend(const std::string& backendName);
  void setCamera(const Camera& camera);
  // The scene time the frames show (animated scenes); a new time restarts the accumulation, and
  // the next frame rebuilds the kd-tree.
  void setTime(float time);
  // The time of the frame after the next (a timeline played in order): the next frame builds its
  // kd-tree beside its render (Renderer::setNextTime).
  void setNextTime(float time) { renderer_->setNextTime(time); }

  // Renders the next sample and adds it to the sum (queued on the backend's stream on CUDA).
  void renderFrame();

  // Frames of 1 spp summed per pixel (the film's clamp is sized for this many samples, so a
  // long accumulation cannot overflow the sums).
  static constexpr uint32_t kFilmClampFrames = 1u << 20;

  const FilmAccumulator& accumulator() const { return accumulator_; }
  const RenderStats& lastStats() const { return lastStats_; }
  double lastAccumulateMs() const { return accumulateMs_; }  // queuing the last frame's sum
  // The last frame reports the kd-tree build a new Renderer did before it (its first frame), not
  // one within the frame.
  bool lastBuildBeforeFrame() const { return buildBeforeFrame_; }
  bool hasStats() const { return accumulator_.frames() > 0; }
  const Backend& backend() const { return backend_; }
  const RenderOptions& options() const { return options_; }
  Camera camera() const { return *renderer_->scene().camera; }  // the renderer places one
  float time() const { return time_; }

 private:
  void restart();
  Scene scene_;  // kept to rebuild the renderer on another backend
  Backend backend_;
  RenderOptions options_;  // spp 1; firstSample set per frame
  AccelOptions accel_;
  std::unique_ptr<Renderer> renderer_;
  FilmAccumulator accumulator_;
  RenderStats lastStats_;
  float time_ = 0.f;
  double accumulateMs_ = 0;
  bool freshRenderer_ = true, buildBeforeFrame_ = false;
};

}  // namespace srt::viewer
