// Running `streamrt` from a test and comparing what it wrote: shared by the gl and gpu viewer
// tests.
#pragma once

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>

#include "base/image_io.h"

namespace srt::viewtest {

inline const std::string kStreamrt = SRT_STREAMRT;
inline const std::string kXvfbRun = SRT_XVFB_RUN;
inline const std::string kDir = SRT_VIEWER_TEST_DIR;

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
  return kXvfbRun.find("NOTFOUND") == std::string::npos && !kXvfbRun.empty();
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

// The viewer draws the image letterboxed and centred; sample the window at the centre of each
// texel right of the panel and compare with the accumulated image as the shader tone maps it.
inline int windowMismatches(const Image& window, const Image& shot, int* compared) {
  const float scale =
      std::min(float(window.width) / shot.width, float(window.height) / shot.height);
  const float x0 = (window.width - int(shot.width * scale)) / 2;
  const float y0 = (window.height - int(shot.height * scale)) / 2;
  int bad = 0;
  *compared = 0;
  for (int ty = 0; ty < shot.height; ++ty)
    for (int tx = shot.width / 2; tx < shot.width; ++tx) {
      const int wx = int(x0 + (tx + 0.5f) * scale), wy = int(y0 + (ty + 0.5f) * scale);
      if (wx < 560) continue;  // the panel (about 500 pixels wide) covers the left part
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
