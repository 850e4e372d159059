// The viewer's keyboard shortcuts (panel.h: applyKey).
#include <algorithm>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "apps/viewer/panel.h"

namespace srt::viewer {
namespace {

// The entry after (or before) `value` in `choices`, wrapping; the first when `value` is not there
// (a spec given with options on the command line).
std::string cycle(const std::vector<std::string>& choices, const std::string& value, bool back) {
  if (choices.empty()) return value;
  const auto it = std::find(choices.begin(), choices.end(), value);
  if (it == choices.end()) return choices.front();
  const size_t i = size_t(it - choices.begin()), n = choices.size();
  return choices[(i + (back ? n - 1 : 1)) % n];
}

template <typename E>
void cycleEnum(E& value) {
  value = *enumFromString<E>(cycle(enumChoices<E>(), toString(value), false));
}

}  // namespace

const char* const kKeyHelp =
    "keys: C/Shift+C primitive, I integrator, P payload, Space play, Tab panel, Ctrl+C camera; "
    "left drag orbit, right drag look, WASD/QE move, wheel dolly";

PanelActions& PanelActions::operator|=(const PanelActions& o) {
  optionsChanged |= o.optionsChanged;
  backendChanged |= o.backendChanged;
  timeChanged |= o.timeChanged;
  screenshot |= o.screenshot;
  copyCamera |= o.copyCamera;
  return *this;
}

PanelActions applyKey(int key, int mods, ViewSettings& settings, const PanelStatus& status) {
  PanelActions act;
  RenderOptions& o = settings.options;
  const bool ctrl = mods & GLFW_MOD_CONTROL, shift = mods & GLFW_MOD_SHIFT;
  switch (key) {
    case GLFW_KEY_C:
      if (ctrl) {
        act.copyCamera = true;
        break;
      }
      o.compaction =
          cycle(compactionChoices(settings.backend, status.glPrimitives), o.compaction, shift);
      act.optionsChanged = true;
      break;
    case GLFW_KEY_I:
      cycleEnum(o.integrator);
      act.optionsChanged = true;
      break;
    case GLFW_KEY_P:
      cycleEnum(o.payload);
      act.optionsChanged = true;
      break;
    case GLFW_KEY_SPACE:
      if (status.animated()) settings.playing = !settings.playing;
      break;
    case GLFW_KEY_TAB:
      settings.panelCollapsed = !settings.panelCollapsed;
      break;
    default:
      break;
  }
  return act;
}

}  // namespace srt::viewer
