#include "apps/viewer/window.h"

#include <epoxy/gl.h>
// GL comes from epoxy; GLFW must not include the system GL header as well.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "primitives/gl/gl_context.h"

namespace srt::viewer {
namespace {

// GLFW reports failures through a callback; the last message becomes the error's reason.
std::string lastGlfwError;
void onGlfwError(int, const char* description) {
  lastGlfwError = description ? description : "unknown GLFW error";
}

GLFWwindow* tryCreate(int width, int height, const std::string& title, int major, int minor) {
  glfwDefaultWindowHints();
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, major);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, minor);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  return glfwCreateWindow(width, height, title.c_str(), nullptr, nullptr);
}

}  // namespace

Window::Window(int width, int height, const std::string& title) {
  glfwSetErrorCallback(onGlfwError);
  lastGlfwError.clear();
  if (!glfwInit())
    throw WindowError("cannot open a window: " + lastGlfwError + " (is DISPLAY set?)");
  window_ = tryCreate(width, height, title, 4, 5);
  if (!window_) window_ = tryCreate(width, height, title, 3, 3);
  if (!window_) {
    const std::string why = lastGlfwError;
    glfwTerminate();
    throw WindowError("cannot open a window: " + why + " (is DISPLAY set?)");
  }
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(0);  // accumulate as fast as the renderer goes, not at the display's rate
  glVersion_ = glfwGetWindowAttrib(window_, GLFW_CONTEXT_VERSION_MAJOR) * 10 +
               glfwGetWindowAttrib(window_, GLFW_CONTEXT_VERSION_MINOR);
  description_ = gl::currentContextDescription();
}

Window::~Window() {
  if (window_) glfwDestroyWindow(window_);
  glfwTerminate();
}

bool Window::shouldClose() const {
  return glfwWindowShouldClose(window_);
}

void Window::requestClose() {
  glfwSetWindowShouldClose(window_, GLFW_TRUE);
}

void Window::swapBuffers() {
  glfwSwapBuffers(window_);
}

void Window::framebufferSize(int* width, int* height) const {
  glfwGetFramebufferSize(window_, width, height);
}

}  // namespace srt::viewer
