// `streamrt view SCENE [options]`: the interactive viewer (apps/viewer/).
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "apps/camera_flags.h"
#include "apps/command.h"
#include "apps/render_flags.h"
#include "apps/viewer/viewer.h"
#include "base/atomic_file.h"
#include "scenes/loader.h"

namespace srt {
namespace {

using viewer::ViewerConfig;

// The scene, the flags shared with render (the renderer, the kd-tree, --threads, the camera) and
// where the view starts: --time, --exposure, --spp.
void addSceneAndRenderFlags(CLI::App& view, ViewerConfig& cfg, int& threads, CameraFlags& camera) {
  RenderOptions& o = cfg.settings.options;
  view.add_option("scene", cfg.scene, "Built-in scene name or a scene file (as for render)")
      ->capture_default_str();
  view.add_option("--compaction", o.compaction,
                  "Compaction primitive, NAME[:key=value,...] (see `streamrt list`); gl-* run "
                  "on the window's own OpenGL context")
      ->capture_default_str();
  addRenderFlags(view, o, cfg.backend);
  addKdTreeFlags(view, cfg.accel);
  addThreadsFlag(view, threads);
  addCameraFlags(view, camera);
  view.add_option("--time", cfg.settings.time,
                  "Scene time to start at (animated scenes; Space or the panel plays)")
      ->check(kFinite);
  view.add_option("--exposure", cfg.settings.exposure, "Exposure in stops (display and PNG)")
      ->capture_default_str()
      ->check(kFinite);
  view.add_option("--spp", cfg.settings.sppTarget,
                  "Stop accumulating after this many samples per pixel (0: never)")
      ->capture_default_str()
      ->check(integerIn(0, INT32_MAX));
}

// --frames and what a run of N frames writes (--screenshot, --window-screenshot, --layout), and
// --play, which also picks the frames' times.
void addExitAfterFramesFlags(CLI::App& view, ViewerConfig& cfg) {
  view.add_option("--frames,--exit-after", cfg.exitAfterFrames,
                  "Accumulate N frames (1 spp each), write the screenshots and exit")
      ->check(integerIn(1, INT32_MAX));
  view.add_option("--screenshot", cfg.screenshot,
                  "With --frames: write the accumulated image here (.png, .exr, .pfm); in the "
                  "window: the file the panel's save button starts with")
      ->check(kFileName);
  view.add_option("--window-screenshot", cfg.windowScreenshot,
                  "With --frames: write the window as shown, panel included (read back from GL)")
      ->check(kFileName);
  view.add_flag("--play", cfg.settings.playing,
                "Play the animation as the window opens (the kd-tree is rebuilt each frame); "
                "with --frames N, N frames are rendered along the timeline");
  view.add_option("--layout", cfg.layoutReport,
                  "With --frames: write where the panel, the image and each plot went, as JSON "
                  "(for tests and scripts)")
      ->check(kFileName);
}

// The window (--panel, --print-camera, --display-hz), the headless --benchmark and -q.
void addWindowAndBenchmarkFlags(CLI::App& view, const std::shared_ptr<ViewerConfig>& cfg) {
  view.add_option_function<std::string>(
          "--panel", [cfg](const std::string& v) { cfg->settings.panelCollapsed = v == "strip"; },
          "The panel as the window opens: docked beside the image, or collapsed to a strip "
          "(Tab switches)")
      ->type_name("docked|strip")
      ->check(CLI::IsMember({"docked", "strip"}));
  view.add_flag("--print-camera", cfg->printCamera,
                "On exit, print the camera as a scene file's \"camera\" entry on stdout");
  view.add_option("--benchmark", cfg->benchmarkFrames,
                  "No window: render N frames on a headless GL context as the window would "
                  "(with --play along the timeline, the kd-tree rebuilt each frame) and print "
                  "frames/s with the frame split by stage")
      ->check(integerIn(1, INT32_MAX));
  view.add_option("--warmup", cfg->benchmarkWarmup,
                  "With --benchmark: untimed frames before the N measured ones")
      ->capture_default_str()
      ->check(integerIn(0, INT32_MAX));
  view.add_option("--display-hz", cfg->displayHz,
                  "Show the accumulating image at most N times a second (0: after every frame); "
                  "frames render as fast as they can in between")
      ->capture_default_str()
      ->check(integerIn(0, 10000));
  view.add_flag("-q,--quiet", cfg->quiet, "Print nothing but errors");
}

// Flags that contradict each other, found after parsing.
void checkViewFlagsAgree(const ViewerConfig& cfg) {
  if (cfg.benchmarkFrames > 0 && (cfg.exitAfterFrames > 0 || !cfg.screenshot.empty() ||
                                  !cfg.windowScreenshot.empty() || !cfg.layoutReport.empty()))
    throw UsageError(
        "--benchmark opens no window: not with --frames, --screenshot, "
        "--window-screenshot or --layout");
  if (!cfg.windowScreenshot.empty() && cfg.exitAfterFrames == 0)
    throw UsageError("--window-screenshot needs --frames N");
  if (!cfg.layoutReport.empty() && cfg.exitAfterFrames == 0)
    throw UsageError("--layout needs --frames N");
}

// The files a run of N frames writes, checked before the window opens: writable and distinct.
void checkExitOutputs(const ViewerConfig& cfg) {
  std::vector<std::pair<std::string, OutputFile>> outputs;
  if (!cfg.screenshot.empty())
    outputs.push_back({"--screenshot", checkOutputFile(cfg.screenshot, "--screenshot")});
  if (!cfg.windowScreenshot.empty())
    outputs.push_back(
        {"--window-screenshot", checkOutputFile(cfg.windowScreenshot, "--window-screenshot")});
  if (!cfg.layoutReport.empty())
    outputs.push_back({"--layout", checkOutputFile(cfg.layoutReport, "--layout")});
  checkDistinctOutputs(outputs);
}

// Checks the flags, then opens the viewer; its exit status.
int runView(ViewerConfig& cfg, const std::shared_ptr<CameraFlags>& camera, int threads) {
  if (!cfg.screenshot.empty()) cfg.settings.screenshot = cfg.screenshot;
  checkViewFlagsAgree(cfg);
  checkCameraFlags(*camera);
  if (camera->any()) {
    const float aspect = float(cfg.settings.options.width) / cfg.settings.options.height;
    cfg.prepareScene = [camera, aspect](Scene& scene) {
      scene.camera = applyCameraFlags(*camera, scene.camera.value_or(frameScene(scene, aspect)));
    };
  }
  if (cfg.exitAfterFrames > 0) checkExitOutputs(cfg);  // the screenshots are written: check first
  applyThreads(threads);
  return viewer::runViewer(cfg);
}

}  // namespace

Command addViewCommand(CLI::App& app) {
  auto cfg = std::make_shared<viewer::ViewerConfig>();
  cfg->settings.options.width = 640;
  cfg->settings.options.height = 480;
  auto threads = std::make_shared<int>(0);
  auto camera = std::make_shared<CameraFlags>();
  CLI::App* view = app.add_subcommand(
      "view", "Open a window that accumulates one sample per frame, with live switches");
  addSceneAndRenderFlags(*view, *cfg, *threads, *camera);
  addExitAfterFramesFlags(*view, *cfg);
  addWindowAndBenchmarkFlags(*view, cfg);
  return {view, [cfg, threads, camera] { return runView(*cfg, camera, *threads); }};
}

}  // namespace srt
