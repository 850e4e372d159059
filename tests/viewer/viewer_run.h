// Running `streamrt` from a test and comparing what it wrote: shared by the gl and gpu viewer
// tests.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "base/image_io.h"
#include "tests/test_scenes_dir.h"

namespace srt::viewtest {

// streamrt: $SRT_STREAMRT, else one beside the test binary (a bundle), else the build tree's,
// found relative to the test binary.
inline std::string streamrtPath() {
  const char* env = std::getenv("SRT_STREAMRT");
  if (env && *env) return env;
  const std::string dir = test::testBinaryDir();
  if (access((dir + "/streamrt").c_str(), X_OK) == 0) return dir + "/streamrt";
  return dir + "/" + SRT_STREAMRT_RELATIVE;
}

// xvfb-run on the PATH, or empty.
inline std::string xvfbRunPath() {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (size_t start = 0; start <= dirs.size();) {
    const size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string candidate = dirs.substr(start, end - start) + "/xvfb-run";
    if (end > start && access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

inline const std::string kStreamrt = streamrtPath();
inline const std::string kXvfbRun = xvfbRunPath();
inline const std::string kDir = test::testBinaryDir();

struct CommandResult {
  int exitCode = -1;
  std::string output;  // stdout and stderr
};

inline CommandResult runCommand(const std::string& command) {
  CommandResult r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  std::array<char, 512> buf;
  while (fgets(buf.data(), int(buf.size()), pipe)) r.output += buf.data();
  const int status = pclose(pipe);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline bool haveXvfb() {
  return !kXvfbRun.empty();
}

inline CommandResult view(const std::string& args) {
  return runCommand(kXvfbRun + " -a -s \"-screen 0 1280x1024x24\" " + kStreamrt + " view " + args);
}

// Largest relative difference, with an absolute floor for near-black pixels.
inline double maxRelativeDifference(const Image& a, const Image& b) {
  double worst = 0;
  for (size_t i = 0; i < a.pixels.size(); ++i)
    for (int c = 0; c < 3; ++c) {
      const double x = (&a.pixels[i].x)[c], y = (&b.pixels[i].x)[c];
      worst =
          std::max(worst, std::fabs(x - y) / std::max(1e-3, std::max(std::fabs(x), std::fabs(y))));
    }
  return worst;
}

inline nlohmann::json readLayout(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in, nullptr, false);
}

// The window pixels the image covers, from the viewer's --layout report: x, y, width, height.
struct PixelBox {
  double x = 0, y = 0, width = 0, height = 0;
};
inline PixelBox boxOf(const nlohmann::json& rect, const nlohmann::json& layout) {
  const double sx = layout["framebuffer_scale"][0], sy = layout["framebuffer_scale"][1];
  return {rect["x"].get<double>() * sx, rect["y"].get<double>() * sy,
          rect["width"].get<double>() * sx, rect["height"].get<double>() * sy};
}

// Every texel of the accumulated image, sampled at its centre where the viewer drew the image
// (the layout's "image" rectangle), against the image as the shader tone maps it.
inline int windowMismatches(const Image& window, const Image& shot, const PixelBox& image,
                            int* compared) {
  int bad = 0;
  *compared = 0;
  for (int ty = 0; ty < shot.height; ++ty)
    for (int tx = 0; tx < shot.width; ++tx) {
      const int wx = int(image.x + (tx + 0.5) * image.width / shot.width);
      const int wy = int(image.y + (ty + 0.5) * image.height / shot.height);
      if (wx < 0 || wy < 0 || wx >= window.width || wy >= window.height) {
        ++bad;  // the image reaches outside the window
        continue;
      }
      ++*compared;
      for (int c = 0; c < 3; ++c) {
        const float shown = linearToSrgb((&window.at(wx, wy).x)[c]);
        const float expected = linearToSrgb(std::clamp((&shot.at(tx, ty).x)[c], 0.f, 1.f));
        if (std::fabs(shown - expected) > 2.5f / 255.f) {
          ++bad;
          break;
        }
      }
    }
  return bad;
}

}  // namespace srt::viewtest
