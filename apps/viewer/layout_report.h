// The viewer's layout as JSON (`streamrt view --frames N --layout FILE`): where the panel, the
// image and each plot went, the ticks each plot's axes show, and the frame count the panel
// printed. The window tests check these against a screenshot of the window.
#pragma once

#include <string>

#include "apps/viewer/layout.h"
#include "apps/viewer/panel.h"

namespace srt::viewer {

struct LayoutFacts {
  Layout layout;
  float framebufferScaleX = 1, framebufferScaleY = 1;
  int frames = 0;                // accumulated
  long long renderedFrames = 0;  // rendered since the window opened
  float time = 0;                // the scene time shown
  bool playing = false;
  FrameTimes lastFrame;
  PanelReport panel;
  std::string cameraJson;
};

std::string layoutJson(const LayoutFacts& facts);

}  // namespace srt::viewer
