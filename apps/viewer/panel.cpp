#include "apps/viewer/panel.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cstdio>

#include "primitives/compaction/compaction.h"

namespace srt::viewer {
namespace {

const ImGuiWindowFlags kDocked = ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                                 ImGuiWindowFlags_NoSavedSettings;

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

// The strip the panel collapses to: one button that brings it back.
void drawStrip(const Layout& layout, ViewSettings& settings) {
  ImGui::SetNextWindowPos({layout.panel.x, layout.panel.y});
  ImGui::SetNextWindowSize({layout.panel.width, layout.panel.height});
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, {3, 6});
  ImGui::Begin("streamrt (collapsed)", nullptr, kDocked | ImGuiWindowFlags_NoScrollbar);
  if (ImGui::Button("<", {layout.panel.width - 6, 0})) settings.panelCollapsed = false;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Show the panel (Tab)");
  ImGui::End();
  ImGui::PopStyleVar();
}

PanelActions drawControls(ViewSettings& settings, const PanelStatus& status) {
  PanelActions act;
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
  return act;
}

PanelActions drawTimeline(ViewSettings& settings, const PanelStatus& status) {
  PanelActions act;
  if (!status.animated()) return act;
  if (ImGui::Button(settings.playing ? "pause" : "play", {56, 0}))
    settings.playing = !settings.playing;
  ImGui::SameLine();
  act.timeChanged = ImGui::SliderFloat("time", &settings.time, status.animationStart,
                                       status.animationEnd, "%.3f");
  if (act.timeChanged) settings.playing = false;
  return act;
}

PanelActions drawCamera(const PanelStatus& status) {
  PanelActions act;
  // One line the user can select from; the button copies and prints the whole entry.
  act.copyCamera = ImGui::Button("copy");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "Copy the \"camera\" entry and print it on stdout (Ctrl+C): paste it into "
        "a scene file or give it to --camera");
  ImGui::SameLine();
  std::string text = "\"camera\": " + status.cameraJson;
  ImGui::SetNextItemWidth(-1);
  ImGui::InputText("##camera", &text, ImGuiInputTextFlags_ReadOnly);
  return act;
}

PanelActions drawSave(ViewSettings& settings) {
  PanelActions act;
  ImGui::InputText("file", &settings.screenshot);
  ImGui::SameLine();
  act.screenshot = ImGui::Button("save");
  ImGui::TextDisabled(".png (tone mapped) or .exr/.pfm (linear)");
  return act;
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

PanelActions drawPanel(const Layout& layout, ViewSettings& settings, const PanelStatus& status,
                       PanelReport* report) {
  if (settings.panelCollapsed) {
    drawStrip(layout, settings);
    return {};
  }
  PanelActions act;
  ImGui::SetNextWindowPos({layout.panel.x, layout.panel.y});
  ImGui::SetNextWindowSize({layout.panel.width, layout.panel.height});
  ImGui::Begin("streamrt", nullptr, kDocked);
  if (ImGui::Button(">")) settings.panelCollapsed = true;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Collapse the panel to a strip (Tab)");
  ImGui::SameLine();
  ImGui::Text("frames %d   %.3g rays/s", status.frames, status.raysPerSecond);
  if (report) report->framesShown = status.frames;
  ImGui::PushItemWidth(ImGui::GetContentRegionAvail().x * 0.62f);
  if (ImGui::CollapsingHeader("Render", ImGuiTreeNodeFlags_DefaultOpen))
    act |= drawControls(settings, status);
  if (status.animated() && ImGui::CollapsingHeader("Animation", ImGuiTreeNodeFlags_DefaultOpen))
    act |= drawTimeline(settings, status);
  if (ImGui::CollapsingHeader("Camera", ImGuiTreeNodeFlags_DefaultOpen)) act |= drawCamera(status);
  if (ImGui::CollapsingHeader("Save image")) act |= drawSave(settings);
  ImGui::PopItemWidth();
  if (!status.message.empty()) {
    ImGui::Separator();
    ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(255, 190, 120, 255));
    ImGui::TextWrapped("%s", status.message.c_str());
    ImGui::PopStyleColor();
  }
  drawStats(status, report);
  ImGui::Separator();
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
  ImGui::TextWrapped("%s", kKeyHelp);
  ImGui::PopStyleColor();
  ImGui::End();
  return act;
}

}  // namespace srt::viewer
