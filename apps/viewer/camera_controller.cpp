#include "apps/viewer/camera_controller.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cmath>

namespace srt::viewer {
namespace {

// Rodrigues: v rotated by `angle` around the unit axis k.
Vec3f rotateAround(Vec3f v, Vec3f k, float angle) {
  const float c = std::cos(angle), s = std::sin(angle);
  return v * c + cross(k, v) * s + k * (dot(k, v) * (1.f - c));
}

constexpr float kRadiansPerPixel = 0.005f;

}  // namespace

CameraController::CameraController(const Camera& start)
    : camera_(start),
      worldUp_(normalize(start.up)),
      distance_(std::max(length(start.target - start.position), 1e-3f)) {}

void CameraController::rotate(float yaw, float pitch, bool aroundTarget) {
  const Vec3f pivot = camera_.target;
  Vec3f forward = normalize(camera_.target - camera_.position);
  forward = rotateAround(forward, worldUp_, yaw);
  const Vec3f right = normalize(cross(forward, worldUp_));
  const Vec3f pitched = rotateAround(forward, right, pitch);
  // Stop short of looking straight along the up axis, where the frame would flip.
  if (std::fabs(dot(pitched, worldUp_)) < 0.98f) forward = normalize(pitched);
  if (aroundTarget) {
    camera_.position = pivot - forward * distance_;
    camera_.target = pivot;
  } else {
    camera_.target = camera_.position + forward * distance_;
  }
}

void CameraController::move(Vec3f along) {
  const Vec3f forward = normalize(camera_.target - camera_.position);
  const Vec3f side = normalize(cross(forward, worldUp_));
  const Vec3f delta = (side * along.x + worldUp_ * along.y + forward * along.z) * distance_;
  camera_.position = camera_.position + delta;
  camera_.target = camera_.target + delta;
}

void CameraController::dolly(float fraction) {
  const Vec3f forward = normalize(camera_.target - camera_.position);
  const float step = distance_ * std::min(fraction, 0.9f);
  camera_.position = camera_.position + forward * step;
  distance_ -= step;
}

bool CameraController::update(GLFWwindow* window, double seconds, bool uiWantsMouse,
                              bool uiWantsKeyboard) {
  bool moved = false;
  double x = 0, y = 0;
  glfwGetCursorPos(window, &x, &y);
  const bool left = glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS;
  const bool right = glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_RIGHT) == GLFW_PRESS;
  // A drag belongs to the camera only if it started outside the panel.
  if ((left || right) && !dragging_ && !uiWantsMouse) {
    dragging_ = true;
    lastX_ = x;
    lastY_ = y;
  }
  if (!left && !right) dragging_ = false;
  if (dragging_ && (x != lastX_ || y != lastY_)) {
    rotate(float(lastX_ - x) * kRadiansPerPixel, float(lastY_ - y) * kRadiansPerPixel, left);
    lastX_ = x;
    lastY_ = y;
    moved = true;
  }
  if (scroll_ != 0 && !uiWantsMouse) {
    dolly(std::max(float(scroll_) * 0.1f, -1.f));  // a wheel step: 10% of the way to the target
    moved = true;
  }
  scroll_ = 0;
  if (!uiWantsKeyboard) {
    auto held = [&](int key) { return glfwGetKey(window, key) == GLFW_PRESS ? 1.f : 0.f; };
    const Vec3f along{held(GLFW_KEY_D) - held(GLFW_KEY_A), held(GLFW_KEY_E) - held(GLFW_KEY_Q),
                      held(GLFW_KEY_W) - held(GLFW_KEY_S)};
    if (lengthSquared(along) > 0.f) {
      // Half the orbit distance per second, so the speed suits the scene's size.
      const float speed = 0.5f * (held(GLFW_KEY_LEFT_SHIFT) ? 4.f : 1.f) * float(seconds);
      move(normalize(along) * speed);
      moved = true;
    }
  }
  return moved;
}

}  // namespace srt::viewer
