// Inside `streamrt render`: what its flags set, shared by the flags (render_command_flags.cpp)
// and the run (render_command.cpp). The command itself is addRenderCommand (apps/command.h).
#pragma once

#include <string>

#include "apps/camera_flags.h"
#include "renderer/render.h"

namespace srt {

struct RenderCommand {
  std::string scene = "cornell";
  std::string output;
  std::string stats;
  bool statsGiven = false;
  std::string backend = "auto";
  float exposure = 0.f;
  bool verbose = false;
  bool progress = false;
  bool quiet = false;
  int frames = 1;
  float time = 0.f;
  bool timeGiven = false;  // --time on the command line (it conflicts with --frames)
  std::string env;         // --env R[,G,B] or FILE.hdr|FILE.exr; empty: the scene's own
  int threads = 0;
  double timeLimit = 0;  // --time-limit: seconds a frame may render; 0: no limit
  std::string exrCompression = "none";
  std::string devices;  // --devices: empty, "all" or ordinals (apps/split_render.h)
  CameraFlags camera;
  RenderOptions options;
  AccelOptions accel;
};

// "1" -> (1, 1, 1); "0.2,0.3,0.4" -> (0.2, 0.3, 0.4). Finite and non-negative, or an error.
Vec3f parseEnvironment(const std::string& text);

// Runs the render the flags describe; its exit status.
int runRender(const RenderCommand& cmd);

}  // namespace srt
