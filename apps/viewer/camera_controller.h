// Orbit and fly camera: left drag orbits around the point looked at, right drag looks around,
// W/A/S/D move, Q/E move down/up, the wheel dollies; Shift moves faster. Each change yields a new
// scene Camera, and the viewer restarts accumulation.
#pragma once

#include "scenes/scene.h"

struct GLFWwindow;

namespace srt::viewer {

class CameraController {
 public:
  explicit CameraController(const Camera& start);
  // Reads the mouse and keys (those the UI panel does not claim); returns true when the camera
  // moved. `seconds` is the time since the last call (movement speed is per second).
  bool update(GLFWwindow* window, double seconds, bool uiWantsMouse, bool uiWantsKeyboard);
  void addScroll(double offset) { scroll_ += offset; }
  const Camera& camera() const { return camera_; }

  // The moves update() maps the input to (public so tests can drive them without a window).
  // Orbit: the eye turns around the target at its distance. Look: the target turns around the
  // eye. Angles in radians about the world up axis (yaw) and the camera's right axis (pitch).
  void orbit(float yaw, float pitch) { rotate(yaw, pitch, true); }
  void look(float yaw, float pitch) { rotate(yaw, pitch, false); }
  // Moves eye and target together; `along` is (right, up, forward) in units of the orbit distance.
  void move(Vec3f along);
  // Moves the eye toward the target by `fraction` of the distance (negative: away); never
  // reaches it.
  void dolly(float fraction);

 private:
  void rotate(float yawRadians, float pitchRadians, bool aroundTarget);
  Camera camera_;
  Vec3f worldUp_;
  float distance_;  // from the eye to the point orbited around
  double scroll_ = 0;
  bool dragging_ = false;
  double lastX_ = 0, lastY_ = 0;
};

}  // namespace srt::viewer
