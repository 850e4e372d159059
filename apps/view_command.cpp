// `streamrt view SCENE [options]`: the interactive viewer (apps/viewer/).
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "apps/command.h"
#include "apps/render_flags.h"
#include "apps/viewer/viewer.h"
#include "base/atomic_file.h"

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
  view->add_option("--compaction", o.compaction,
                   "Compaction primitive, NAME[:key=value,...] (see `streamrt list`); gl-* run "
                   "on the window's own OpenGL context")
      ->capture_default_str();
  addRenderFlags(*view, o, cfg->backend);
  auto threads = std::make_shared<int>(0);
  addThreadsFlag(*view, *threads);
  view->add_option("--exposure", cfg->settings.exposure, "Exposure in stops (display and PNG)")
      ->capture_default_str()
      ->check(kFinite);
  view->add_option("--spp", cfg->settings.sppTarget,
                   "Stop accumulating after this many samples per pixel (0: never)")
      ->capture_default_str()
      ->check(integerIn(0, INT32_MAX));
  view->add_option("--frames,--exit-after", cfg->exitAfterFrames,
                   "Accumulate N frames (1 spp each), write the screenshots and exit")
      ->check(integerIn(1, INT32_MAX));
  view->add_option("--screenshot", cfg->screenshot,
                   "With --frames: write the accumulated image here (.png, .exr, .pfm); in the "
                   "window: the file the panel's save button starts with")
      ->check(kFileName);
  view->add_option("--window-screenshot", cfg->windowScreenshot,
                   "With --frames: write the window as shown, panel included (read back from GL)")
      ->check(kFileName);
  view->add_flag("-q,--quiet", cfg->quiet, "Print nothing but errors");

  return {
      view, [cfg, threads] {
        if (!cfg->screenshot.empty()) cfg->settings.screenshot = cfg->screenshot;
        if (!cfg->windowScreenshot.empty() && cfg->exitAfterFrames == 0)
          throw UsageError("--window-screenshot needs --frames N");
        if (cfg->exitAfterFrames > 0) {  // the screenshots are written: check them first
          std::vector<std::pair<std::string, OutputFile>> outputs;
          if (!cfg->screenshot.empty())
            outputs.push_back({"--screenshot", checkOutputFile(cfg->screenshot, "--screenshot")});
          if (!cfg->windowScreenshot.empty())
            outputs.push_back({"--window-screenshot",
                               checkOutputFile(cfg->windowScreenshot, "--window-screenshot")});
          checkDistinctOutputs(outputs);
        }
        applyThreads(*threads);
        return viewer::runViewer(*cfg);
      }};
}

}  // namespace srt
