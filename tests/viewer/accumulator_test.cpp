#include <gtest/gtest.h>

#include <stdexcept>

#include "apps/viewer/accumulator.h"

namespace srt::viewer {
namespace {

Image filled(int w, int h, Vec3f v) {
  Image img(w, h);
  for (Vec3f& p : img.pixels) p = v;
  return img;
}

TEST(Accumulator, OneFrameIsTheFrameItself) {
  Accumulator acc;
  acc.reset(3, 2);
  Image f = filled(3, 2, {0.1f, 7.f, 1e-9f});
  f.at(2, 1) = {123.f, 0.f, 5.f};
  acc.add(f);
  EXPECT_EQ(acc.frames(), 1);
  for (size_t i = 0; i < f.pixels.size(); ++i) {
    EXPECT_EQ(acc.mean().pixels[i].x, f.pixels[i].x);
    EXPECT_EQ(acc.mean().pixels[i].y, f.pixels[i].y);
    EXPECT_EQ(acc.mean().pixels[i].z, f.pixels[i].z);
  }
}

TEST(Accumulator, MeanOfFramesAndResetStartsOver) {
  Accumulator acc;
  acc.reset(2, 2);
  const float values[] = {1.f, 2.f, 6.f, 3.f};  // mean 3
  for (float v : values) acc.add(filled(2, 2, {v, 2.f * v, 0.f}));
  EXPECT_EQ(acc.frames(), 4);
  EXPECT_NEAR(acc.mean().at(1, 1).x, 3.f, 1e-6f);
  EXPECT_NEAR(acc.mean().at(0, 1).y, 6.f, 1e-6f);
  acc.reset(2, 2);
  EXPECT_EQ(acc.frames(), 0);
  acc.add(filled(2, 2, {9.f, 9.f, 9.f}));
  EXPECT_EQ(acc.mean().at(0, 0).x, 9.f);
}

TEST(Accumulator, RejectsAFrameOfAnotherSize) {
  Accumulator acc;
  acc.reset(4, 4);
  EXPECT_THROW(acc.add(Image(4, 3)), std::invalid_argument);
}

}  // namespace
}  // namespace srt::viewer
