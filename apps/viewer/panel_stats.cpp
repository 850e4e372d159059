// The statistics part of the viewer's panel (panel.h: drawStats).
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "apps/viewer/panel.h"

namespace srt::viewer {
namespace {

// The profile report's stage colours, so the two read alike.
const ImU32 kBuild = IM_COL32(0xCC, 0x79, 0xA7, 255);
const ImU32 kTrace = IM_COL32(0x00, 0x72, 0xB2, 255);
const ImU32 kShade = IM_COL32(0xE6, 0x9F, 0x00, 255);
const ImU32 kShadow = IM_COL32(0x00, 0x9E, 0x73, 255);
const ImU32 kCompaction = IM_COL32(0xD5, 0x5E, 0x00, 255);
const ImU32 kRegenerate = IM_COL32(0x99, 0x99, 0x99, 255);
const ImU32 kOther = IM_COL32(0x56, 0xB4, 0xE9, 255);
const ImU32 kDisplay = IM_COL32(0xBB, 0xBB, 0xBB, 255);
const ImU32 kRays = IM_COL32(0xF0, 0xE4, 0x42, 255);

constexpr float kPlotHeight = 84;

void keep(PanelReport* report, const PlotReport& plot) {
  if (report) report->plots.push_back(plot);
}

void frameTime(const PanelStatus& status, PanelReport* report) {
  if (!status.history || status.history->frames().empty()) {
    ImGui::TextDisabled("no frame yet");
    return;
  }
  // The legend carries the last frame's split, so no separate line repeats it.
  const FrameTimes& f = status.history->frames().back();
  const auto named = [](const char* stage, double ms, ImU32 color) {
    char name[48];
    std::snprintf(name, sizeof name, "%s %.3g", stage, ms);
    return PlotSeries{name, {}, color};
  };
  PlotSeries build = named("build", f.buildMs, kBuild), trace = named("trace", f.traceMs, kTrace),
             shade = named("shade", f.shadeMs, kShade),
             shadow = named("shadow", f.shadowMs, kShadow),
             comp = named("compaction", f.compactionMs, kCompaction),
             display = named("display", f.displayMs, kDisplay),
             other = named("other", f.otherMs, kOther);
  for (const FrameTimes& t : status.history->frames()) {
    build.values.push_back(float(t.buildMs));
    trace.values.push_back(float(t.traceMs));
    shade.values.push_back(float(t.shadeMs));
    shadow.values.push_back(float(t.shadowMs));
    comp.values.push_back(float(t.compactionMs));
    display.values.push_back(float(t.displayMs));
    other.values.push_back(float(t.otherMs));
  }
  char title[64];
  std::snprintf(title, sizeof title, "frame time ms per frame (last %.1f ms)", f.frameMs);
  PlotSpec spec{title, kPlotHeight, int(status.history->firstFrame())};
  keep(report, drawPlot(spec, {build, trace, shade, shadow, comp, display, other}));
}

// Per pass over the path pool (the path tracer) or per bounce (Whitted, and where a pass is one
// depth): compaction time, and every stage stacked.
template <typename T>
void perStep(const std::vector<T>& steps, const char* step, PanelReport* report,
             double T::*regenerate) {
  PlotSeries comp{"compaction", {}, kCompaction}, trace{"trace", {}, kTrace},
      shade{"shade", {}, kShade}, shadow{"shadow", {}, kShadow},
      regen{"regenerate", {}, kRegenerate};
  for (const T& s : steps) {
    comp.values.push_back(float(s.compactionMs));
    trace.values.push_back(float(s.traceMs));
    shade.values.push_back(float(s.shadeMs));
    shadow.values.push_back(float(s.shadowMs));
    regen.values.push_back(regenerate ? float(s.*regenerate) : NAN);
  }
  const std::string per = std::string(" per ") + step;
  ImGui::NextColumn();
  keep(report, drawPlot({"compaction ms" + per, kPlotHeight}, {comp}));
  ImGui::Columns(1);
  std::vector<PlotSeries> stages = {trace, shade, shadow, comp};
  if (regenerate) stages.push_back(regen);
  keep(report, drawPlot({"stage ms" + per, kPlotHeight}, stages));
}

}  // namespace

void drawStats(const PanelStatus& status, PanelReport* report) {
  ImGui::Separator();
  if (status.stats)
    ImGui::TextWrapped("%s; %s", status.stats->device.c_str(), status.display.c_str());
  if (ImGui::CollapsingHeader("Frame time", ImGuiTreeNodeFlags_DefaultOpen))
    frameTime(status, report);
  if (!status.stats) return;
  const RenderStats& s = *status.stats;
  const bool passes = !s.iterations.empty();
  if (!ImGui::CollapsingHeader(
          passes ? "Per pass over the pool (last frame)" : "Per bounce (last frame)",
          ImGuiTreeNodeFlags_DefaultOpen))
    return;
  PlotSeries alive{"alive", {}, kRays};
  ImGui::Columns(2, "alive and compaction", false);  // side by side: the panel stays one screen
  if (passes) {
    for (const IterationStats& it : s.iterations) alive.values.push_back(float(it.alive));
    keep(report, drawPlot({"rays alive per pass", kPlotHeight}, {alive}));
    perStep<IterationStats>(s.iterations, "pass", report, &IterationStats::regenerateMs);
  } else {
    for (const BounceStats& b : s.bounces) alive.values.push_back(float(b.raysAlive));
    keep(report, drawPlot({"rays alive per bounce", kPlotHeight}, {alive}));
    perStep<BounceStats>(s.bounces, "bounce", report, nullptr);
  }
}

}  // namespace srt::viewer
