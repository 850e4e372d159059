#include "apps/viewer/layout_report.h"

#include <nlohmann/json.hpp>

namespace srt::viewer {
namespace {

using nlohmann::json;

json rectJson(const Rect& r) {
  return {{"x", r.x}, {"y", r.y}, {"width", r.width}, {"height", r.height}};
}

}  // namespace

std::string layoutJson(const LayoutFacts& f) {
  json plots = json::array();
  for (const PlotReport& p : f.panel.plots) {
    json labels = json::array();
    for (const Rect& r : p.tickLabels) labels.push_back(rectJson(r));
    plots.push_back({{"title", p.title},
                     {"frame", rectJson(p.frame)},
                     {"area", rectJson(p.area)},
                     {"y_ticks", p.yTicks},
                     {"x_ticks", p.xTicks},
                     {"tick_labels", labels},
                     {"values", p.values}});
  }
  const json j = {{"window", rectJson(f.layout.window)},
                  {"framebuffer_scale", {f.framebufferScaleX, f.framebufferScaleY}},
                  {"panel", rectJson(f.layout.panel)},
                  {"collapsed", f.layout.collapsed},
                  {"image_area", rectJson(f.layout.imageArea)},
                  {"image", rectJson(f.layout.image)},
                  {"frames", f.frames},
                  {"rendered_frames", f.renderedFrames},
                  {"time", f.time},
                  {"playing", f.playing},
                  {"last_frame_ms",
                   {{"frame", f.lastFrame.frameMs},
                    {"build", f.lastFrame.buildMs},
                    {"trace", f.lastFrame.traceMs},
                    {"shade", f.lastFrame.shadeMs},
                    {"shadow", f.lastFrame.shadowMs},
                    {"compaction", f.lastFrame.compactionMs},
                    {"display", f.lastFrame.displayMs},
                    {"other", f.lastFrame.otherMs}}},
                  {"panel_frames", f.panel.framesShown},
                  {"camera", json::parse(f.cameraJson)},
                  {"plots", plots}};
  return j.dump(2) + "\n";
}

}  // namespace srt::viewer
