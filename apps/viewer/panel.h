// The Dear ImGui panel: what the user can switch live (backend, compaction primitive, payload,
// integrator, path-pool schedule, depth, spp target, exposure), the screenshot file, and the live
// statistics of the last frame (rays/s, per-bounce rays and per-stage time).
#pragma once

#include <string>
#include <vector>

#include "renderer/wavefront/integrator.h"

namespace srt::viewer {

struct ViewSettings {
  std::string backend = "cpu";  // cpu | cuda
  RenderOptions options;        // spp is always 1: one sample per frame
  int sppTarget = 0;            // stop accumulating after this many frames; 0: never stop
  float exposure = 0.f;         // stops
  std::string screenshot = "streamrt-view.png";
};

// What the panel knows about the session, to draw the status lines.
struct PanelStatus {
  int frames = 0;                      // accumulated so far
  double raysPerSecond = 0;            // of the last frame
  double frameMs = 0;                  // wall time of the last frame
  const RenderStats* stats = nullptr;  // the last frame's, or null before the first
  std::string display;                 // how the image reaches the window
  std::string message;                 // the last error or notice, shown until the next one
  bool cudaPresent = false;            // offer the CUDA backend
  bool glPrimitives = false;           // the window's context runs the gl-* primitives
};

// What the user asked for this frame.
struct PanelActions {
  bool optionsChanged = false;  // compaction, payload, integrator, schedule or depth
  bool backendChanged = false;
  bool screenshot = false;
};

// Compaction primitives that can run on `backend` ("auto" first); gl-* only when `glPrimitives`.
std::vector<std::string> compactionChoices(const std::string& backend, bool glPrimitives);

// Draws the panel (between ImGui::NewFrame and ImGui::Render) and edits `settings` in place.
PanelActions drawPanel(ViewSettings& settings, const PanelStatus& status);

}  // namespace srt::viewer
