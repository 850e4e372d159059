// `streamrt view SCENE [options]`: the interactive viewer (apps/viewer/).
#include <memory>
#include <stdexcept>

#include "apps/command.h"
#include "apps/viewer/viewer.h"

namespace srt {

Command addViewCommand(CLI::App& app) {
  auto cfg = std::make_shared<viewer::ViewerConfig>();
  RenderOptions& o = cfg->settings.options;
  o.width = 640;
  o.height = 480;
  CLI::App* view = app.add_subcommand(
      "view", "Open a window that accumulates one sample per frame, with live switches");
  view->add_option("scene", cfg->scene, "Built-in scene name or a scene file (as for render)")
      ->capture_default_str();
  view->add_option("--width", o.width, "Image width in pixels")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  view->add_option("--height", o.height, "Image height in pixels")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  view->add_option("--max-depth", o.maxDepth, "Maximum number of bounces")
      ->capture_default_str()
      ->check(CLI::Range(0, 64));
  view->add_option("--integrator", o.integrator, "path or whitted")
      ->capture_default_str()
      ->check(CLI::IsMember({"path", "whitted"}));
  view->add_option("--compaction", o.compaction,
                   "Compaction primitive, NAME[:key=value,...] (see `streamrt list`); gl-* run "
                   "on the window's own OpenGL context")
      ->capture_default_str();
  view->add_option("--payload", o.payload, "state or index")
      ->capture_default_str()
      ->check(CLI::IsMember({"state", "index"}));
  view->add_option("--schedule", o.schedule,
                   "How the path pool is fed: regenerate or waves (stage times per bounce)")
      ->capture_default_str()
      ->check(CLI::IsMember({"regenerate", "waves"}));
  view->add_option("--backend", cfg->backend, "auto, cuda or cpu")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  view->add_option("--seed", o.seed, "Random seed")->capture_default_str();
  view->add_option("--exposure", cfg->settings.exposure, "Exposure in stops (display and PNG)")
      ->capture_default_str();
  view->add_option("--spp", cfg->settings.sppTarget,
                   "Stop accumulating after this many samples per pixel (0: never)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  view->add_option("--frames,--exit-after", cfg->exitAfterFrames,
                   "Accumulate N frames (1 spp each), write the screenshots and exit")
      ->check(CLI::PositiveNumber);
  view->add_option("--screenshot", cfg->screenshot,
                   "With --frames: write the accumulated image here (.png, .exr, .pfm); in the "
                   "window: the file the panel's save button starts with");
  view->add_option("--window-screenshot", cfg->windowScreenshot,
                   "With --frames: write the window as shown, panel included (read back from GL)");
  view->add_flag("-q,--quiet", cfg->quiet, "Print nothing but errors");

  return {view, [cfg] {
            if (!cfg->screenshot.empty()) cfg->settings.screenshot = cfg->screenshot;
            if (!cfg->windowScreenshot.empty() && cfg->exitAfterFrames == 0)
              throw std::invalid_argument("--window-screenshot needs --frames N");
            return viewer::runViewer(*cfg);
          }};
}

}  // namespace srt
