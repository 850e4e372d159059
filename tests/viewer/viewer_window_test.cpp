// Runs `streamrt view` in a real window under Xvfb (Mesa's software GL) and checks what it wrote:
// N frames of 1 spp equal an N-spp `streamrt render` of the same camera (firstSample makes the
// frames distinct samples), the window shows that image, and a gl-* primitive runs on the
// window's own context. Without a display the viewer fails with one clear line.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>

#include "renderer/io/image_io.h"

namespace srt {
namespace {

const std::string kStreamrt = SRT_STREAMRT;
const std::string kXvfbRun = SRT_XVFB_RUN;
const std::string kDir = SRT_VIEWER_TEST_DIR;

struct CommandResult {
  int exitCode = -1;
  std::string output;  // stdout and stderr
};

CommandResult runCommand(const std::string& command) {
  CommandResult r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  std::array<char, 512> buf;
  while (fgets(buf.data(), int(buf.size()), pipe)) r.output += buf.data();
  const int status = pclose(pipe);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

bool haveXvfb() {
  return kXvfbRun.find("NOTFOUND") == std::string::npos && !kXvfbRun.empty();
}

CommandResult view(const std::string& args) {
  return runCommand(kXvfbRun + " -a -s \"-screen 0 1280x1024x24\" " + kStreamrt + " view " + args);
}

// Largest relative difference, with an absolute floor for near-black pixels.
double maxRelativeDifference(const Image& a, const Image& b) {
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
int windowMismatches(const Image& window, const Image& shot, int* compared) {
  const float scale =
      std::min(float(window.width) / shot.width, float(window.height) / shot.height);
  const float x0 = (window.width - int(shot.width * scale)) / 2;
  const float y0 = (window.height - int(shot.height * scale)) / 2;
  int bad = 0;
  *compared = 0;
  for (int ty = 0; ty < shot.height; ++ty)
    for (int tx = shot.width / 2; tx < shot.width; ++tx) {
      const int wx = int(x0 + (tx + 0.5f) * scale), wy = int(y0 + (ty + 0.5f) * scale);
      if (wx < 420) continue;  // the panel may cover the left part of the window
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

class ViewerWindow : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (package xvfb): no window to open";
  }
};

TEST_F(ViewerWindow, FramesAccumulateToTheRenderOfTheSameSamples) {
  const std::string ref = kDir + "/view-ref.exr", shot = kDir + "/view-shot.exr",
                    png = kDir + "/view-shot.png", window = kDir + "/view-window.png";
  for (const std::string& f : {ref, shot, png, window}) std::remove(f.c_str());
  const CommandResult render = runCommand(
      kStreamrt + " render cornell --backend cpu --width 64 --height 64 " + "--spp 8 -q -o " + ref);
  ASSERT_EQ(render.exitCode, 0) << render.output;
  const CommandResult run =
      view("cornell --backend cpu --width 64 --height 64 --frames 8 --screenshot " + shot +
           " --window-screenshot " + window);
  ASSERT_EQ(run.exitCode, 0) << run.output;
  EXPECT_NE(run.output.find("8 frames of 1 spp"), std::string::npos) << run.output;

  const Image a = readImage(ref), b = readImage(shot);
  ASSERT_EQ(a.width, b.width);
  ASSERT_EQ(a.height, b.height);
  EXPECT_LT(maxRelativeDifference(a, b), 1e-4)
      << "8 viewer frames of 1 spp differ from an 8-spp render (is firstSample honoured?)";

  // What the window shows is the accumulated image, and not a blank or cleared framebuffer.
  const Image w = readImage(window);
  ASSERT_GT(w.width, 0);
  int compared = 0;
  const int bad = windowMismatches(w, b, &compared);
  EXPECT_GT(compared, 500);
  EXPECT_LT(bad, compared / 100) << bad << " of " << compared << " window pixels differ";
}

TEST_F(ViewerWindow, GlPrimitiveRunsOnTheWindowsContext) {
  const std::string ref = kDir + "/view-gl-ref.exr", shot = kDir + "/view-gl-shot.exr",
                    window = kDir + "/view-gl-window.png";
  const CommandResult render = runCommand(
      kStreamrt + " render cornell --backend cpu --width 48 --height 32 " + "--spp 2 -q -o " + ref);
  ASSERT_EQ(render.exitCode, 0) << render.output;
  const CommandResult run = view(
      "cornell --backend cpu --width 48 --height 32 --frames 2 --compaction "
      "gl-roger --screenshot " +
      shot + " --window-screenshot " + window);
  ASSERT_EQ(run.exitCode, 0) << run.output;
  // The image does not depend on the primitive, and the window still shows it: a second
  // (headless) context made current by the primitive would have left the window blank.
  EXPECT_LT(maxRelativeDifference(readImage(ref), readImage(shot)), 1e-4);
  int compared = 0;
  const Image shotImage = readImage(shot);
  const int bad = windowMismatches(readImage(window), shotImage, &compared);
  EXPECT_GT(compared, 100);
  EXPECT_LT(bad, compared / 100) << bad << " of " << compared << " window pixels differ";
}

TEST(ViewerNoDisplay, SaysWhyAndExitsWithOne) {
  const CommandResult run =
      runCommand("env -u DISPLAY -u WAYLAND_DISPLAY " + kStreamrt +
                 " view cornell --backend cpu --width 16 --height 16 --frames 1");
  EXPECT_EQ(run.exitCode, 1) << run.output;
  EXPECT_NE(run.output.find("streamrt: error: cannot open a window: "), std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("(is DISPLAY set?)"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace srt
