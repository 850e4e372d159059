// Dear ImGui on the viewer's window: the GLFW input backend and the OpenGL3 renderer backend
// (both in Debian's libimgui-dev), set up and torn down with the object.
#pragma once

struct GLFWwindow;

namespace srt::viewer {

class UiContext {
 public:
  // Installs ImGui's GLFW callbacks, which chain to those the window had before.
  explicit UiContext(GLFWwindow* window);
  ~UiContext();
  UiContext(const UiContext&) = delete;
  UiContext& operator=(const UiContext&) = delete;

  void beginFrame();
  void endFrame();  // draws the panel over what is in the framebuffer
  bool wantsMouse() const;
  bool wantsKeyboard() const;
};

}  // namespace srt::viewer
