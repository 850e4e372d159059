// Plots with axes for the viewer's panel, drawn with Dear ImGui's draw list (Debian has no
// ImPlot): a title line with a legend, a y axis with labelled ticks from 0 to a round maximum, an
// x axis with labelled indices, bars (stacked for several series), and a tooltip with the values
// under the mouse. Tick labels sit outside the plotting area, so no label covers a bar.
#pragma once

#include <string>
#include <vector>

#include "apps/viewer/layout.h"

namespace srt::viewer {

struct PlotSeries {
  std::string name;
  std::vector<float> values;  // one per x position; NaN or < 0 draws nothing there
  unsigned color = 0;         // ImU32 (IM_COL32)
};

struct PlotSpec {
  std::string title;   // says what and per what: "compaction ms per pass"
  float height = 96;   // the frame, axes included, in pixels
  int firstIndex = 0;  // the x label of the first value (a history counts frames)
};

// Where a plot went and what its axes say: the viewer's layout report (tests read it).
struct PlotReport {
  std::string title;
  Rect frame, area;  // the whole plot; the plotting area inside the axes
  std::vector<std::string> yTicks, xTicks;
  std::vector<Rect> tickLabels;  // every tick label's box
  size_t values = 0;
};

// Draws at the cursor of the current ImGui window, as wide as the content region.
PlotReport drawPlot(const PlotSpec& spec, const std::vector<PlotSeries>& series);

// Short tick labels: 0, 0.25, 12, 3.4k, 5.6M.
std::string tickLabel(double v);

}  // namespace srt::viewer
