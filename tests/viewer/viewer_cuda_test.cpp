// `streamrt view --backend cuda` in a window under Xvfb: N frames equal an N-spp CUDA render and
// the window shows them. The display goes through CUDA-GL interop where the window's GL driver
// is NVIDIA's; under Xvfb (Mesa) registration fails and the viewer says it shows the image
// through a host upload instead. The test prints which path ran.
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "primitives/common/cuda_check.h"
#include "tests/viewer/viewer_run.h"

namespace srt {
namespace {

using namespace viewtest;

TEST(ViewerCuda, FramesAccumulateToTheRenderAndShowInTheWindow) {
  if (!cudaDeviceAvailable()) GTEST_SKIP() << "no CUDA device: " << cudaDeviceDescription();
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (package xvfb): no window to open";
  const std::string ref = kDir + "/view-cuda-ref.exr", shot = kDir + "/view-cuda-shot.exr",
                    window = kDir + "/view-cuda-window.png",
                    layout = kDir + "/view-cuda-layout.json";
  const CommandResult render = runCommand(kStreamrt + " render cornell --backend cuda " +
                                          "--width 64 --height 64 --spp 8 -q -o " + ref);
  ASSERT_EQ(render.exitCode, 0) << render.output;
  const CommandResult run =
      view("cornell --backend cuda --width 64 --height 64 --frames 8 --screenshot " + shot +
           " --window-screenshot " + window + " --layout " + layout);
  ASSERT_EQ(run.exitCode, 0) << run.output;
  std::cout << run.output;  // the "display: ..." line says whether interop ran
  EXPECT_NE(run.output.find("display: "), std::string::npos) << run.output;
  const Image a = readImage(ref), b = readImage(shot);
  EXPECT_LT(maxRelativeDifference(a, b), 1e-4);
  int compared = 0;
  const nlohmann::json l = readLayout(layout);
  ASSERT_FALSE(l.is_discarded());
  const int bad = windowMismatches(readImage(window), b, boxOf(l["image"], l), &compared);
  EXPECT_EQ(compared, 64 * 64);
  EXPECT_LT(bad, compared / 100) << bad << " of " << compared << " window pixels differ";
}

}  // namespace
}  // namespace srt
