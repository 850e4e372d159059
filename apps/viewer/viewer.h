// `streamrt view`: the interactive viewer's main loop (window, panel, camera, accumulation).
#pragma once

#include <functional>
#include <string>

#include "apps/viewer/panel.h"
#include "scenes/scene.h"

namespace srt::viewer {

struct ViewerConfig {
  std::string scene = "cornell";
  std::string backend = "auto";
  ViewSettings settings;  // options, exposure, spp target, panel, time as the viewer starts
  AccelOptions accel;     // the kd-tree builder and its settings
  // Applied to the loaded scene before the first frame (the CLI's camera flags).
  std::function<void(Scene&)> prepareScene;
  int exitAfterFrames = 0;       // > 0: accumulate this many frames, save, close (tests, scripts)
  std::string screenshot;        // the accumulated image, written when the viewer exits
  std::string windowScreenshot;  // the window as shown (panel included), read back from GL
  std::string layoutReport;      // the layout as JSON (layout_report.h), written on exit
  bool printCamera = false;      // print the camera as a "camera" entry on stdout on exit
  int benchmarkFrames = 0;       // > 0: no window, time this many frames (benchmark.h)
  int benchmarkWarmup = 10;      // untimed frames before them
  // The accumulating image is shown at most this often (0: every frame), so 1-spp frames that
  // render faster than a screen refreshes are not held to the display's ~1.3 ms GPU copy.
  int displayHz = 120;
  int windowWidth = 1280, windowHeight = 800;
  bool quiet = false;
};

// Runs until the window closes (or exitAfterFrames frames). Throws on bad input (the CLI prints
// "streamrt: error: ..."): an unknown primitive, a missing scene, no display.
int runViewer(const ViewerConfig& config);

}  // namespace srt::viewer
