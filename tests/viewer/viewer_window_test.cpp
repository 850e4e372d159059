// Runs `streamrt view` in a real window under Xvfb (Mesa's software GL) and checks what it wrote:
// N frames of 1 spp equal an N-spp `streamrt render` of the same camera (firstSample makes the
// frames distinct samples), the window shows that image, and a gl-* primitive runs on the
// window's own context. Without a display the viewer fails with one clear line.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "tests/viewer/viewer_run.h"

namespace srt {
namespace {

using namespace viewtest;

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
