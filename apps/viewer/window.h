// The viewer's window: GLFW with an OpenGL core context made current on the calling thread.
// That context is the one the GL compaction primitives run on (gl::useExternalContext), so the
// viewer never makes a second (EGL) context.
#pragma once

#include <stdexcept>
#include <string>

struct GLFWwindow;

namespace srt::viewer {

// No window could be opened; what() is "cannot open a window: <GLFW's reason> (is DISPLAY set?)".
class WindowError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Window {
 public:
  // Asks for OpenGL 4.5 core (what the GL primitives need), else 3.3 core (display only).
  // Throws WindowError.
  Window(int width, int height, const std::string& title);
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  GLFWwindow* handle() const { return window_; }
  bool shouldClose() const;
  void requestClose();
  void swapBuffers();
  void framebufferSize(int* width, int* height) const;
  // Whether the context is 4.5 core or newer: the GL compaction primitives can run on it.
  bool runsGlPrimitives() const { return glVersion_ >= 45; }
  const std::string& description() const { return description_; }  // renderer and GL version

 private:
  GLFWwindow* window_ = nullptr;
  int glVersion_ = 0;  // major * 10 + minor
  std::string description_;
};

}  // namespace srt::viewer
