#include "apps/viewer/panel.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cstdio>

#include "primitives/compaction/compaction.h"

namespace srt::viewer {
namespace {

// A combo over `choices`; returns true when the user picked another one.
bool comboOf(const char* label, std::string& value, const std::vector<std::string>& choices) {
  bool changed = false;
  if (ImGui::BeginCombo(label, value.c_str())) {
    for (const std::string& c : choices) {
      const bool selected = c == value;
      if (ImGui::Selectable(c.c_str(), selected) && !selected) {
        value = c;
        changed = true;
      }
      if (selected) ImGui::SetItemDefaultFocus();
    }
    ImGui::EndCombo();
  }
  return changed;
}

// A combo over an enum's names (its one name table).
template <typename E>
bool comboOf(const char* label, E& value) {
  std::string name = toString(value);
  if (!comboOf(label, name, enumChoices<E>())) return false;
  value = *enumFromString<E>(name);
  return true;
}

// One histogram per stage: bar i is bounce i (or pass i over the pool).
template <typename T>
void plotStage(const char* label, const std::vector<T>& rows, double T::*field) {
  std::vector<float> v;
  for (const T& r : rows) v.push_back(float(r.*field));
  const float top = v.empty() ? 1.f : std::max(1e-3f, *std::max_element(v.begin(), v.end()));
  char overlay[64];
  std::snprintf(overlay, sizeof overlay, "max %.3f ms", top);
  ImGui::PlotHistogram(label, v.data(), int(v.size()), 0, overlay, 0.f, top, ImVec2(0, 48));
}

template <typename T>
void plotStages(const std::vector<T>& rows) {
  plotStage("trace ms", rows, &T::traceMs);
  plotStage("shade ms", rows, &T::shadeMs);
  plotStage("shadow ms", rows, &T::shadowMs);
  plotStage("compaction ms", rows, &T::compactionMs);
}

void drawStats(const PanelStatus& status) {
  ImGui::Text("frames %d   %.1f ms/frame   %.3g rays/s", status.frames, status.frameMs,
              status.raysPerSecond);
  ImGui::TextUnformatted(status.display.c_str());
  if (!status.stats) return;
  const RenderStats& s = *status.stats;
  ImGui::Text("%s, %s, %s payload", s.device.c_str(), s.compaction.c_str(), toString(s.payload));
  if (!ImGui::CollapsingHeader("Per bounce (last frame)", ImGuiTreeNodeFlags_DefaultOpen)) return;
  std::vector<float> alive, in;
  for (const BounceStats& b : s.bounces) {
    in.push_back(float(b.raysIn));
    alive.push_back(float(b.raysAlive));
  }
  const float top = in.empty() ? 1.f : *std::max_element(in.begin(), in.end());
  ImGui::PlotLines("rays in", in.data(), int(in.size()), 0, nullptr, 0.f, top, ImVec2(0, 56));
  ImGui::PlotLines("rays alive", alive.data(), int(alive.size()), 0, nullptr, 0.f, top,
                   ImVec2(0, 56));
  // The path tracer's regenerate schedule mixes depths in one pass over the pool, so it times
  // stages per pass; the waves schedule (and Whitted) time them per bounce.
  const bool perBounce = std::any_of(s.bounces.begin(), s.bounces.end(), [](const BounceStats& b) {
    return b.traceMs + b.shadeMs + b.shadowMs + b.compactionMs > 0;
  });
  if (perBounce || s.iterations.empty()) {
    plotStages(s.bounces);
  } else {
    ImGui::TextDisabled("stage times per pass (schedule %s; waves times each bounce)",
                        toString(s.schedule));
    plotStages(s.iterations);
  }
  if (!s.iterations.empty()) {
    // The path tracer's pool passes: occupancy after each pass over the pool.
    std::vector<float> occupancy;
    for (const IterationStats& it : s.iterations) occupancy.push_back(float(it.alive));
    ImGui::PlotLines("alive per pass", occupancy.data(), int(occupancy.size()), 0, nullptr, 0.f,
                     float(s.poolSize > 0 ? s.poolSize : top), ImVec2(0, 56));
  }
}

}  // namespace

std::vector<std::string> compactionChoices(const std::string& backend, bool glPrimitives) {
  compaction::Needs needs;
  needs.memory = backend == "cuda" ? MemorySpace::Cuda : MemorySpace::Host;
  needs.gl = glPrimitives;
  std::vector<std::string> names = {"auto"};
  for (const std::string& n : compaction::Registry::global().namesMatching(needs))
    if (n != "auto") names.push_back(n);
  return names;
}

PanelActions drawPanel(ViewSettings& settings, const PanelStatus& status) {
  PanelActions act;
  ImGui::SetNextWindowPos(ImVec2(8, 8), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(380, 0), ImGuiCond_FirstUseEver);
  ImGui::Begin("streamrt", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
  std::vector<std::string> backends = {"cpu"};
  if (status.cudaPresent) backends.push_back("cuda");
  act.backendChanged = comboOf("backend", settings.backend, backends);
  RenderOptions& o = settings.options;
  // Only names for this backend are listed; a name given on the command line with options
  // ("gl-roger:block=128") shows as it was given until another is picked.
  act.optionsChanged |=
      comboOf("compaction", o.compaction, compactionChoices(settings.backend, status.glPrimitives));
  act.optionsChanged |= comboOf("payload", o.payload);
  act.optionsChanged |= comboOf("integrator", o.integrator);
  act.optionsChanged |= comboOf("schedule", o.schedule);
  int depth = o.maxDepth;
  if (ImGui::SliderInt("max depth", &depth, 0, 32) && depth != o.maxDepth) {
    o.maxDepth = depth;
    act.optionsChanged = true;
  }
  ImGui::SliderInt("spp target", &settings.sppTarget, 0, 4096, settings.sppTarget ? "%d" : "none");
  ImGui::SliderFloat("exposure", &settings.exposure, -8.f, 8.f, "%.2f EV");
  ImGui::InputText("file", &settings.screenshot);
  ImGui::SameLine();
  act.screenshot = ImGui::Button("save");
  ImGui::TextDisabled(".png (tone mapped) or .exr/.pfm (linear)");
  ImGui::Separator();
  drawStats(status);
  if (!status.message.empty()) {
    ImGui::Separator();
    ImGui::TextWrapped("%s", status.message.c_str());
  }
  ImGui::TextDisabled("left drag: orbit  right drag: look  WASD/QE: move  wheel: dolly");
  ImGui::End();
  return act;
}

}  // namespace srt::viewer
