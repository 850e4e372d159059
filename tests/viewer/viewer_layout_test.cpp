// The viewer's pieces that need no window: the layout keeps the image out from under the panel,
// plot ticks are round and cover the data, keys switch what they say, the printed camera reads
// back through a scene file, and a frame's time splits by stage.
#include <gtest/gtest.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>

#include "apps/nice_ticks.h"
#include "apps/viewer/camera_json.h"
#include "apps/viewer/frame_times.h"
#include "apps/viewer/layout.h"
#include "apps/viewer/panel.h"
#include "apps/viewer/plot.h"
#include "scenes/loader.h"

namespace srt::viewer {
namespace {

TEST(ViewerLayout, ImageNeverUnderThePanel) {
  // Awkward windows and images: tiny, tall, wide, odd sizes, the panel docked and collapsed.
  for (float ww : {1.f, 31.f, 200.f, 641.f, 1280.f, 2561.f})
    for (float wh : {1.f, 99.f, 800.f})
      for (int iw : {1, 7, 640, 4096})
        for (int ih : {1, 9, 480})
          for (bool collapsed : {false, true}) {
            const Layout l = computeLayout(ww, wh, iw, ih, collapsed);
            SCOPED_TRACE(testing::Message() << ww << "x" << wh << " image " << iw << "x" << ih
                                            << (collapsed ? " strip" : " docked"));
            EXPECT_FALSE(l.image.overlaps(l.panel));
            EXPECT_TRUE(l.window.contains(l.panel));
            EXPECT_TRUE(l.imageArea.contains(l.image));
            EXPECT_FALSE(l.imageArea.overlaps(l.panel));
            EXPECT_FLOAT_EQ(l.imageArea.width + l.panel.width, l.window.width);
            if (l.image.empty()) continue;
            // The aspect is kept to within the rounding to whole pixels.
            EXPECT_NEAR(l.image.width / l.image.height, float(iw) / float(ih),
                        float(iw) / float(ih) * (1 / l.image.height + 1 / l.image.width) + 1e-5f);
            // As large as fits: one side fills the area (to a pixel).
            EXPECT_TRUE(l.image.width >= l.imageArea.width - 1 ||
                        l.image.height >= l.imageArea.height - 1);
          }
}

TEST(ViewerLayout, PanelDocksRightAndCollapsesToAStrip) {
  const Layout docked = computeLayout(1280, 800, 640, 480, false);
  EXPECT_FLOAT_EQ(docked.panel.x, 1280 - kPanelWidth);
  EXPECT_FLOAT_EQ(docked.panel.height, 800);
  const Layout strip = computeLayout(1280, 800, 640, 480, true);
  EXPECT_FLOAT_EQ(strip.panel.width, kStripWidth);
  EXPECT_GT(strip.image.width * strip.image.height, docked.image.width * docked.image.height);
  // On a narrow window the panel takes at most half.
  EXPECT_FLOAT_EQ(computeLayout(500, 400, 64, 64, false).panel.width, 250);
}

TEST(ViewerLayout, FramebufferRectsFlipAndScale) {
  const PixelRect p = toFramebuffer({10, 20, 100, 50}, 200, 2, 2);
  EXPECT_EQ(p.x, 20);
  EXPECT_EQ(p.width, 200);
  EXPECT_EQ(p.height, 100);
  EXPECT_EQ(p.y, 400 - 140);  // GL counts from the bottom
}

TEST(ViewerPlot, TicksAreRoundAndCoverTheData) {
  for (double max : {1e-4, 0.3, 1.0, 7.0, 10.0, 99.0, 100.0, 12345.0, 8.65e6}) {
    const std::vector<double> t = niceTicks(max, 3);
    SCOPED_TRACE(max);
    ASSERT_GE(t.size(), 2u);
    EXPECT_EQ(t.front(), 0);
    EXPECT_GE(t.back(), max * (1 - 1e-9));
    EXPECT_LE(t.size(), 5u);
    const double step = t[1];
    const double mantissa = step / std::pow(10.0, std::floor(std::log10(step)));
    EXPECT_TRUE(std::fabs(mantissa - 1) < 1e-6 || std::fabs(mantissa - 2) < 1e-6 ||
                std::fabs(mantissa - 5) < 1e-6)
        << step;
  }
  EXPECT_EQ(niceTicks(0, 3), (std::vector<double>{0, 1}));
  EXPECT_EQ(niceTicks(NAN, 3), (std::vector<double>{0, 1}));
  EXPECT_EQ(tickLabel(0), "0");
  EXPECT_EQ(tickLabel(0.25), "0.25");
  EXPECT_EQ(tickLabel(15000), "15k");
  EXPECT_EQ(tickLabel(8.65e6), "8.65M");
}

TEST(ViewerKeys, SwitchPrimitiveIntegratorPayloadPanelAndPlay) {
  ViewSettings s;
  s.backend = "cpu";
  s.options.compaction = "auto";
  PanelStatus status;
  const std::vector<std::string> choices = compactionChoices("cpu", false);
  ASSERT_GE(choices.size(), 2u);
  PanelActions a = applyKey(GLFW_KEY_C, 0, s, status);
  EXPECT_TRUE(a.optionsChanged);
  EXPECT_EQ(s.options.compaction, choices[1]);
  applyKey(GLFW_KEY_C, GLFW_MOD_SHIFT, s, status);
  EXPECT_EQ(s.options.compaction, choices[0]);
  applyKey(GLFW_KEY_C, GLFW_MOD_SHIFT, s, status);  // wraps backwards
  EXPECT_EQ(s.options.compaction, choices.back());
  s.options.compaction = "gl-roger:block=128";  // not offered here: C starts over
  applyKey(GLFW_KEY_C, 0, s, status);
  EXPECT_EQ(s.options.compaction, choices[0]);

  EXPECT_TRUE(applyKey(GLFW_KEY_I, 0, s, status).optionsChanged);
  EXPECT_EQ(s.options.integrator, IntegratorKind::Whitted);
  applyKey(GLFW_KEY_I, 0, s, status);
  EXPECT_EQ(s.options.integrator, IntegratorKind::Path);
  applyKey(GLFW_KEY_P, 0, s, status);
  EXPECT_EQ(s.options.payload, Payload::Index);

  applyKey(GLFW_KEY_TAB, 0, s, status);
  EXPECT_TRUE(s.panelCollapsed);
  applyKey(GLFW_KEY_SPACE, 0, s, status);
  EXPECT_FALSE(s.playing) << "a static scene has no timeline to play";
  status.animationEnd = 2;
  applyKey(GLFW_KEY_SPACE, 0, s, status);
  EXPECT_TRUE(s.playing);

  const std::string before = s.options.compaction;
  a = applyKey(GLFW_KEY_C, GLFW_MOD_CONTROL, s, status);
  EXPECT_TRUE(a.copyCamera);
  EXPECT_FALSE(a.optionsChanged);
  EXPECT_EQ(s.options.compaction, before);
  EXPECT_FALSE(applyKey(GLFW_KEY_W, 0, s, status).optionsChanged);  // the camera's key
}

TEST(ViewerCamera, PrintedEntryReadsBackThroughASceneFile) {
  Camera c;
  c.position = {0.1f, -2.5e-7f, 1234.5678f};
  c.target = {1.f / 3.f, 2.f, -3.f};
  c.up = {0.f, 0.f, 1.f};
  c.vfovDegrees = 39.3077f;
  c.lensRadius = 0.05f;
  const std::string scene = R"({"include_builtin": "cornell", "camera": )" + cameraJson(c) + "}";
  const Scene s = loadSceneFromMemory("camera.json", scene);
  ASSERT_TRUE(s.camera.has_value());
  EXPECT_EQ(s.camera->position, c.position);  // bit for bit: shortest round-trip digits
  EXPECT_EQ(s.camera->target, c.target);
  EXPECT_EQ(s.camera->up, c.up);
  EXPECT_EQ(s.camera->vfovDegrees, c.vfovDegrees);
  EXPECT_EQ(s.camera->lensRadius, c.lensRadius);
  EXPECT_EQ(cameraJson(Camera{}).find("lens_radius"), std::string::npos);
}

TEST(ViewerFrameTimes, SplitByStageAndKeepTheLastFrames) {
  RenderStats s;
  s.accel.builder = "cpu";
  s.accel.buildMs = 2;
  IterationStats pass;
  pass.traceMs = 1, pass.shadeMs = 0.5, pass.shadowMs = 0.25, pass.compactionMs = 0.125;
  s.iterations = {pass, pass};
  const FrameTimes f = splitFrame(s, 10);
  EXPECT_DOUBLE_EQ(f.buildMs, 2);
  EXPECT_DOUBLE_EQ(f.traceMs, 2);
  EXPECT_DOUBLE_EQ(f.compactionMs, 0.25);
  EXPECT_DOUBLE_EQ(f.otherMs, 10 - 2 - 2 - 1 - 0.5 - 0.25);
  EXPECT_DOUBLE_EQ(splitFrame(s, 1).otherMs, 0);  // never negative
  const FrameTimes d = splitFrame(s, 10, 1.5);    // the viewer's accumulation and upload
  EXPECT_DOUBLE_EQ(d.displayMs, 1.5);
  EXPECT_DOUBLE_EQ(d.otherMs, f.otherMs - 1.5);
  s.accel.builder.clear();  // no rebuild this frame
  EXPECT_DOUBLE_EQ(splitFrame(s, 10).buildMs, 0);
  // Where "other" goes: the refill and idle columns, and what the render loop did not cover.
  s.iterations[0].regenerateMs = 0.5, s.iterations[1].idleMs = 0.25;
  s.renderSeconds = 0.0078125;  // 2^-7 s: exact in milliseconds
  const FrameTimes o = splitFrame(s, 10, 1.5);
  EXPECT_DOUBLE_EQ(o.refillMs, 0.5);
  EXPECT_DOUBLE_EQ(o.idleMs, 0.25);
  EXPECT_DOUBLE_EQ(o.outsideMs, 10 - 7.8125 - 1.5);

  FrameHistory h(3);
  for (int i = 0; i < 5; ++i) h.add({double(i)});
  ASSERT_EQ(h.frames().size(), 3u);
  EXPECT_EQ(h.firstFrame(), 2);
  EXPECT_DOUBLE_EQ(h.frames().front().frameMs, 2);
}

}  // namespace
}  // namespace srt::viewer
