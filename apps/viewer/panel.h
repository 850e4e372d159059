// The Dear ImGui panel, docked on the right of the window (layout.h) or collapsed to a strip:
// what the user can switch live (backend, compaction primitive, payload, integrator, path-pool
// schedule, depth, spp target, exposure), the animation timeline, the camera as a scene file's
// "camera" entry, the screenshot file, and the statistics with plots (panel_stats.cpp).
#pragma once

#include <string>
#include <vector>

#include "apps/viewer/frame_times.h"
#include "apps/viewer/layout.h"
#include "apps/viewer/plot.h"
#include "renderer/wavefront/integrator.h"

namespace srt::viewer {

struct ViewSettings {
  std::string backend = "cpu";  // cpu | cuda
  RenderOptions options;        // spp is always 1: one sample per frame
  int sppTarget = 0;            // stop accumulating after this many frames; 0: never stop
  float exposure = 0.f;         // stops
  std::string screenshot = "streamrt-view.png";
  bool panelCollapsed = false;
  float time = 0.f;      // the scene time shown (animated scenes)
  bool playing = false;  // the timeline runs: time follows the clock, looping
};

// What the panel knows about the session, to draw the status lines.
struct PanelStatus {
  int frames = 0;                      // accumulated so far, this frame's included
  double raysPerSecond = 0;            // of the last frame
  const RenderStats* stats = nullptr;  // the last frame's, or null before the first
  const FrameHistory* history = nullptr;
  std::string display;     // how the image reaches the window
  std::string message;     // the last error or notice, shown until the next one
  std::string cameraJson;  // the camera as a scene file's "camera" entry
  bool cudaPresent = false;
  bool glPrimitives = false;                   // the window's context runs the gl-* primitives
  float animationStart = 0, animationEnd = 0;  // equal: the scene is static
  bool animated() const { return animationEnd > animationStart; }
};

// What the user asked for this frame (by the panel or by a key).
struct PanelActions {
  bool optionsChanged = false;  // compaction, payload, integrator, schedule or depth
  bool backendChanged = false;
  bool timeChanged = false;  // the time slider moved
  bool screenshot = false;
  bool copyCamera = false;  // to the clipboard, and printed on stdout
  PanelActions& operator|=(const PanelActions& o);
};

// What the panel drew where, for the layout report.
struct PanelReport {
  int framesShown = -1;  // the frame count the panel printed
  std::vector<PlotReport> plots;
};

// Compaction primitives that can run on `backend` ("auto" first); gl-* only when `glPrimitives`.
std::vector<std::string> compactionChoices(const std::string& backend, bool glPrimitives);

// Draws the panel into layout.panel (between ImGui::NewFrame and ImGui::Render) and edits
// `settings` in place; fills `report` when given.
PanelActions drawPanel(const Layout& layout, ViewSettings& settings, const PanelStatus& status,
                       PanelReport* report = nullptr);

// The statistics part of the panel: frame time split by stage with its history, and per pass
// over the pool (or per bounce) the rays alive, compaction time and stage times.
void drawStats(const PanelStatus& status, PanelReport* report);

// Keys (GLFW key codes and modifier bits), applied when the panel does not hold the keyboard:
//   C / Shift+C  next / previous compaction primitive    I  integrator (path, whitted)
//   P            payload (state, index)                   Space  play / pause the timeline
//   Tab          collapse / expand the panel              Ctrl+C copy the camera
PanelActions applyKey(int key, int mods, ViewSettings& settings, const PanelStatus& status);
extern const char* const kKeyHelp;

}  // namespace srt::viewer
