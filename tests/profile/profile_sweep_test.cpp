// The sweep on the CPU backend: one kd-tree for every primitive and repeat, warm-up runs left out
// of the statistics, images compared bit for bit.
#include "apps/profile/profile_sweep.h"

#include <gtest/gtest.h>

#include <cstring>

#include "scenes/loader.h"

namespace srt::profile {
namespace {

TEST(ProfileSweep, OneTreeForEveryPrimitiveAndRepeat) {
  Settings s;
  s.primitives = {"cpu", "none"};
  s.options.width = 16;
  s.options.height = 16;
  s.options.spp = 1;
  s.warmup = 1;
  s.repeats = 2;
  int renders = 0;
  const Result r = runSweep(loadScene("cornell"), Backend{}, s,
                            [&](const std::string&, int, int) { ++renders; });
  EXPECT_EQ(renders, 2 * 3);
  EXPECT_TRUE(r.imagesIdentical());
  EXPECT_EQ(r.header.accel.builder, "cpu");  // the first render reports the one build
  ASSERT_EQ(r.primitives.size(), 2u);
  for (const PrimitiveProfile& p : r.primitives) {
    EXPECT_EQ(p.runs.size(), 2u);  // the warm-up render is not among the timed ones
    EXPECT_EQ(p.imageHash, r.referenceHash);
    for (const RenderStats& run : p.runs) {
      EXPECT_EQ(run.compaction, p.spec);
      EXPECT_TRUE(run.accel.builder.empty()) << "the kd-tree was rebuilt for " << p.spec;
    }
  }
  EXPECT_DOUBLE_EQ(r.speedupVsNone(r.primitives[1]), 1.0);
}

TEST(ProfileSweep, CompareImagesBitForBit) {
  Image a(4, 2), b(4, 2);
  for (size_t i = 0; i < a.pixels.size(); ++i) a.pixels[i] = b.pixels[i] = Vec3f{0.5f, 0.f, 1.f};
  ImageMismatch m = compareImages(a, b);
  EXPECT_EQ(m.differingPixels, 0u);
  EXPECT_EQ(imageHash(a), imageHash(b));
  b.pixels[3].y = -0.f;  // equal as a float, different bits
  b.pixels[5].x = std::nextafter(0.5f, 1.f);
  m = compareImages(a, b);
  EXPECT_EQ(m.differingPixels, 2u);
  EXPECT_GT(m.maxAbsDifference, 0);
  EXPECT_LT(m.maxAbsDifference, 1e-6);
  EXPECT_NE(imageHash(a), imageHash(b));
  EXPECT_TRUE(compareImages(a, Image(2, 4)).sizeDiffers);
}

TEST(ProfileSweep, RejectsAnEmptySweep) {
  Settings s;
  EXPECT_THROW(runSweep(loadScene("cornell"), Backend{}, s), std::invalid_argument);
}

}  // namespace
}  // namespace srt::profile
