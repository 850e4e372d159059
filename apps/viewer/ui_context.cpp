#include "apps/viewer/ui_context.h"

#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include "primitives/gl/gl_context.h"

namespace srt::viewer {

UiContext::UiContext(GLFWwindow* window) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // write no imgui.ini into the user's folder
  ImGui::StyleColorsDark();
  // A little tighter than the default, so the docked panel fits an 800-pixel window.
  ImGui::GetStyle().ItemSpacing.y = 3;
  ImGui::GetStyle().FramePadding.y = 2;
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  if (!ImGui_ImplOpenGL3_Init("#version 330")) {
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    throw gl::GlError("Dear ImGui could not load OpenGL 3.3 functions for its panel");
  }
}

UiContext::~UiContext() {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
}

void UiContext::beginFrame() {
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
}

void UiContext::endFrame() {
  ImGui::Render();
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

bool UiContext::wantsMouse() const {
  return ImGui::GetIO().WantCaptureMouse;
}

bool UiContext::wantsKeyboard() const {
  return ImGui::GetIO().WantCaptureKeyboard;
}

}  // namespace srt::viewer
