// Runs `streamrt view` in a real window under Xvfb (Mesa's software GL) and checks what it wrote:
// N frames of 1 spp equal an N-spp `streamrt render` of the same camera (firstSample makes the
// frames distinct samples), the window shows all of that image beside the panel (never under
// it), the plots have labelled axes, the panel's frame count is the one stderr prints, the
// printed camera gives the same image back through --camera, and a gl-* primitive runs on the
// window's own context. Without a display the viewer fails with one clear line.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "tests/test_scenes_dir.h"
#include "tests/viewer/viewer_run.h"

namespace srt {
namespace {

using namespace viewtest;

class ViewerWindow : public ::testing::Test {
 protected:
  // One tiny window first: where Xvfb runs but no GL context can be had, every test skips with
  // the viewer's own reason.
  static void SetUpTestSuite() {
    if (!haveXvfb()) return;
    const CommandResult probe = view("cornell --backend cpu --width 8 --height 8 --frames 1 -q");
    const size_t at = probe.output.find("cannot open a window");
    if (probe.exitCode != 0 && at != std::string::npos)
      noWindow_ = probe.output.substr(at, probe.output.find('\n', at) - at);
  }
  void SetUp() override {
    if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (package xvfb): no window to open";
    if (!noWindow_.empty()) GTEST_SKIP() << noWindow_;
  }
  static std::string noWindow_;
};
std::string ViewerWindow::noWindow_;

bool overlaps(const PixelBox& a, const PixelBox& b) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

bool inside(const PixelBox& outer, const PixelBox& inner) {
  return inner.x >= outer.x && inner.y >= outer.y &&
         inner.x + inner.width <= outer.x + outer.width &&
         inner.y + inner.height <= outer.y + outer.height;
}

// The accumulated image, whole, where the layout says the image is.
void expectWindowShowsImage(const std::string& window, const Image& shot,
                            const nlohmann::json& layout) {
  int compared = 0;
  const int bad =
      windowMismatches(readImage(window), shot, boxOf(layout["image"], layout), &compared);
  EXPECT_EQ(compared, shot.width * shot.height);
  EXPECT_LT(bad, compared / 100) << bad << " of " << compared << " window pixels differ";
}

TEST_F(ViewerWindow, FramesAccumulateToTheRenderOfTheSameSamples) {
  const std::string ref = kDir + "/view-ref.exr", shot = kDir + "/view-shot.exr",
                    window = kDir + "/view-window.png", layout = kDir + "/view-layout.json";
  for (const std::string& f : {ref, shot, window, layout}) std::remove(f.c_str());
  const CommandResult render = runCommand(
      kStreamrt + " render cornell --backend cpu --width 64 --height 64 " + "--spp 8 -q -o " + ref);
  ASSERT_EQ(render.exitCode, 0) << render.output;
  const CommandResult run =
      view("cornell --backend cpu --width 64 --height 64 --frames 8 --screenshot " + shot +
           " --window-screenshot " + window + " --layout " + layout);
  ASSERT_EQ(run.exitCode, 0) << run.output;
  EXPECT_NE(run.output.find("8 frames of 1 spp"), std::string::npos) << run.output;

  const Image a = readImage(ref), b = readImage(shot);
  ASSERT_EQ(a.width, b.width);
  ASSERT_EQ(a.height, b.height);
  EXPECT_LT(maxRelativeDifference(a, b), 1e-4)
      << "8 viewer frames of 1 spp differ from an 8-spp render (is firstSample honoured?)";
  const nlohmann::json l = readLayout(layout);
  ASSERT_FALSE(l.is_discarded());
  EXPECT_EQ(l["panel_frames"], 8) << "the panel shows a frame count stderr does not";
  EXPECT_EQ(l["frames"], 8);
  expectWindowShowsImage(window, b, l);
}

TEST_F(ViewerWindow, PanelLeavesTheImageUncoveredAndPlotsHaveAxes) {
  const std::string shot = kDir + "/view-axes-shot.exr", window = kDir + "/view-axes-window.png",
                    layout = kDir + "/view-axes-layout.json";
  const CommandResult run =
      view("cornell --backend cpu --width 96 --height 72 --frames 2 --screenshot " + shot +
           " --window-screenshot " + window + " --layout " + layout);
  ASSERT_EQ(run.exitCode, 0) << run.output;
  const nlohmann::json l = readLayout(layout);
  ASSERT_FALSE(l.is_discarded());
  const PixelBox win = boxOf(l["window"], l), panel = boxOf(l["panel"], l),
                 image = boxOf(l["image"], l);
  EXPECT_FALSE(l["collapsed"].get<bool>());
  EXPECT_FALSE(overlaps(image, panel)) << "the panel covers part of the image";
  EXPECT_TRUE(inside(win, image));
  EXPECT_GT(image.width * image.height, 0.3 * win.width * win.height);
  expectWindowShowsImage(window, readImage(shot), l);

  const Image w = readImage(window);
  std::vector<std::string> titles;
  for (const nlohmann::json& p : l["plots"]) {
    const std::string title = p["title"];
    titles.push_back(title);
    SCOPED_TRACE(title);
    const PixelBox frame = boxOf(p["frame"], l), area = boxOf(p["area"], l);
    EXPECT_TRUE(inside(panel, frame)) << "the plot is not in the panel";
    EXPECT_TRUE(inside(win, frame)) << "the plot is outside the window (scrolled away)";
    EXPECT_TRUE(inside(frame, area));
    ASSERT_GE(p["y_ticks"].size(), 2u);
    EXPECT_EQ(p["y_ticks"][0], "0");
    EXPECT_GE(p["x_ticks"].size(), 2u);
    EXPECT_EQ(p["values"].get<size_t>() > 0, true);
    // Labels sit outside the plotting area, so none covers a bar.
    for (const nlohmann::json& label : p["tick_labels"]) {
      const PixelBox box = boxOf(label, l);
      EXPECT_FALSE(overlaps(box, area)) << "a tick label overlaps the bars";
      EXPECT_TRUE(inside(frame, box));
    }
    // The y axis is drawn: its column is the axis grey from the top of the area to the bottom.
    const int x = int(area.x);
    int grey = 0, rows = 0;
    for (int y = int(area.y) + 1; y < int(area.y + area.height) - 1; ++y, ++rows) {
      const Vec3f c = w.at(x, y);
      grey += std::fabs(linearToSrgb(c.x) - 200 / 255.f) < 12 / 255.f &&
              std::fabs(linearToSrgb(c.z) - 205 / 255.f) < 12 / 255.f;
    }
    EXPECT_GT(grey, rows * 9 / 10) << grey << " of " << rows << " axis pixels are axis grey";
  }
  for (const char* expected : {"frame time ms per frame", "rays alive per pass",
                               "compaction ms per pass", "stage ms per pass"}) {
    bool found = false;
    for (const std::string& t : titles) found = found || t.rfind(expected, 0) == 0;
    EXPECT_TRUE(found) << "no plot '" << expected << "'";
  }
}

TEST_F(ViewerWindow, StripGivesTheImageTheWindow) {
  const std::string shot = kDir + "/view-strip-shot.exr", window = kDir + "/view-strip-window.png",
                    layout = kDir + "/view-strip-layout.json";
  const CommandResult run =
      view("cornell --backend cpu --width 64 --height 32 --frames 1 --panel strip --screenshot " +
           shot + " --window-screenshot " + window + " --layout " + layout);
  ASSERT_EQ(run.exitCode, 0) << run.output;
  const nlohmann::json l = readLayout(layout);
  ASSERT_FALSE(l.is_discarded());
  EXPECT_TRUE(l["collapsed"].get<bool>());
  const PixelBox win = boxOf(l["window"], l), panel = boxOf(l["panel"], l),
                 image = boxOf(l["image"], l);
  EXPECT_LE(panel.width, 40);
  EXPECT_FALSE(overlaps(image, panel));
  EXPECT_GE(image.width, win.width - 40);  // a wide image takes the width the strip leaves
  EXPECT_TRUE(l["plots"].empty());
  expectWindowShowsImage(window, readImage(shot), l);
}

// The camera the viewer prints is a "camera" entry that --camera reads back: the same view.
TEST_F(ViewerWindow, PrintedCameraGivesTheSameImageBack) {
  const std::string shot = kDir + "/view-cam-shot.exr", ref = kDir + "/view-cam-ref.exr";
  const std::string start =
      R"('{"position": [278, 300, -600], "target": [250, 250, 0], "fov": 45.5}')";
  const CommandResult run =
      view("cornell --backend cpu --width 32 --height 24 --frames 1 --print-camera --camera " +
           start + " --screenshot " + shot);
  ASSERT_EQ(run.exitCode, 0) << run.output;
  const size_t at = run.output.find("\"camera\": {");
  ASSERT_NE(at, std::string::npos) << run.output;
  const std::string entry = run.output.substr(at, run.output.find('\n', at) - at);
  EXPECT_NE(entry.find("\"position\": [278, 300, -600]"), std::string::npos) << entry;
  EXPECT_NE(entry.find("\"fov\": 45.5"), std::string::npos) << entry;
  const CommandResult render = runCommand(kStreamrt +
                                          " render cornell --backend cpu --width 32 --height 24 "
                                          "--spp 1 -q -o " +
                                          ref + " --camera '" + entry + "'");
  ASSERT_EQ(render.exitCode, 0) << render.output;
  EXPECT_LT(maxRelativeDifference(readImage(ref), readImage(shot)), 1e-4);
}

// --play runs the timeline: each frame shows a later time, with the kd-tree rebuilt for it and
// the build shown apart in the frame time.
TEST_F(ViewerWindow, TimelinePlaysAnAnimatedScene) {
  const std::string layout = kDir + "/view-play-layout.json";
  const CommandResult run =
      view(srt::test::testDataDir() +
           "/examples/cornell-orbit.json --backend cpu --width 32 --height 24 "
           "--frames 3 --play --layout " +
           layout);
  ASSERT_EQ(run.exitCode, 0) << run.output;
  const nlohmann::json l = readLayout(layout);
  ASSERT_FALSE(l.is_discarded());
  EXPECT_TRUE(l["playing"].get<bool>());
  EXPECT_EQ(l["rendered_frames"], 3);
  EXPECT_EQ(l["frames"], 1) << "a new time starts the accumulation over";
  EXPECT_GT(l["time"].get<double>(), 0);
  EXPECT_LE(l["time"].get<double>(), 2);
  EXPECT_GT(l["last_frame_ms"]["build"].get<double>(), 0) << "no kd-tree rebuild at the new time";
  EXPECT_GT(l["last_frame_ms"]["trace"].get<double>(), 0);
}

TEST_F(ViewerWindow, GlPrimitiveRunsOnTheWindowsContext) {
  const std::string ref = kDir + "/view-gl-ref.exr", shot = kDir + "/view-gl-shot.exr",
                    window = kDir + "/view-gl-window.png", layout = kDir + "/view-gl-layout.json";
  const CommandResult render = runCommand(
      kStreamrt + " render cornell --backend cpu --width 48 --height 32 " + "--spp 2 -q -o " + ref);
  ASSERT_EQ(render.exitCode, 0) << render.output;
  const CommandResult run = view(
      "cornell --backend cpu --width 48 --height 32 --frames 2 --compaction "
      "gl-roger --screenshot " +
      shot + " --window-screenshot " + window + " --layout " + layout);
  ASSERT_EQ(run.exitCode, 0) << run.output;
  // The image does not depend on the primitive, and the window still shows it: a second
  // (headless) context made current by the primitive would have left the window blank.
  EXPECT_LT(maxRelativeDifference(readImage(ref), readImage(shot)), 1e-4);
  const nlohmann::json l = readLayout(layout);
  ASSERT_FALSE(l.is_discarded());
  expectWindowShowsImage(window, readImage(shot), l);
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
