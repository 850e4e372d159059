// The viewer's accumulation: 1-spp films summed where they are rendered, resolved to the mean.
// On the CPU backend always; on CUDA where a device is present (the same cases, device memory).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "apps/viewer/film_accumulator.h"
#include "apps/viewer/render_session.h"
#include "renderer/render.h"
#include "renderer/wavefront/film.h"
#include "scenes/loader.h"

namespace srt::viewer {
namespace {

// Fixed-point sums that differ per value and per frame, some far past 32 bits.
std::vector<unsigned long long> frameSums(size_t values, int frame) {
  std::vector<unsigned long long> sums(values);
  for (size_t i = 0; i < values; ++i)
    sums[i] = (unsigned long long)(i * 7919 + 13) * (unsigned long long)(frame + 1) +
              (i % 3 == 0 ? (1ull << 40) : 0);
  return sums;
}

// The mean of frames [0, n) as resolveFixedFilm divides a film holding n samples.
Image expectedMean(int width, int height, int n) {
  const size_t values = 3 * size_t(width) * height;
  std::vector<unsigned long long> total(values, 0);
  for (int f = 0; f < n; ++f) {
    const std::vector<unsigned long long> s = frameSums(values, f);
    for (size_t i = 0; i < values; ++i) total[i] += s[i];
  }
  Image image(width, height);
  const double scale = 1.0 / (kFilmScale * double(n));
  for (size_t p = 0; p < image.pixels.size(); ++p)
    image.pixels[p] =
        Vec3f(float(double(total[3 * p]) * scale), float(double(total[3 * p + 1]) * scale),
              float(double(total[3 * p + 2]) * scale));
  return image;
}

void expectSame(const Image& got, const Image& want) {
  ASSERT_EQ(got.width, want.width);
  ASSERT_EQ(got.height, want.height);
  for (size_t p = 0; p < want.pixels.size(); ++p) {
    ASSERT_EQ(got.pixels[p].x, want.pixels[p].x) << "pixel " << p;
    ASSERT_EQ(got.pixels[p].y, want.pixels[p].y) << "pixel " << p;
    ASSERT_EQ(got.pixels[p].z, want.pixels[p].z) << "pixel " << p;
  }
}

class FilmAccumulatorTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    if (std::string(GetParam()) == "cuda" && !cudaDeviceAvailable())
      GTEST_SKIP() << cudaDeviceDescription();
    backend_ = selectBackend(GetParam());
  }
  // Adds frames [0, n) of a width x height film, each uploaded to the backend's memory.
  void addFrames(FilmAccumulator& acc, int n) {
    const size_t values = 3 * size_t(acc.width()) * acc.height();
    for (int f = 0; f < n; ++f) {
      frames_.emplace_back(backend_.memory(), frameSums(values, f));
      acc.add(frames_.back().data());
    }
  }
  Backend backend_;
  std::vector<Buffer<unsigned long long>> frames_;  // alive until the queued adds have run
};

// Sizes that fill no block evenly: one pixel, 7x3, and 301x5 (4515 values).
TEST_P(FilmAccumulatorTest, MeanIsTheFilmOfAllFramesOnAwkwardSizes) {
  for (auto [w, h, n] : {std::tuple{1, 1, 1}, std::tuple{7, 3, 5}, std::tuple{301, 5, 3}}) {
    SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + ", " + std::to_string(n));
    FilmAccumulator acc(backend_);
    acc.reset(w, h);
    addFrames(acc, n);
    EXPECT_EQ(acc.frames(), n);
    expectSame(acc.mean(), expectedMean(w, h, n));
  }
}

TEST_P(FilmAccumulatorTest, NoFrameIsBlackAndResetStartsOver) {
  FilmAccumulator acc(backend_);
  acc.reset(5, 4);
  expectSame(acc.mean(), Image(5, 4));
  addFrames(acc, 3);
  acc.reset(5, 4);  // same size: the old sums must not leak into the next mean
  EXPECT_EQ(acc.frames(), 0);
  expectSame(acc.mean(), Image(5, 4));
  addFrames(acc, 1);
  expectSame(acc.mean(), expectedMean(5, 4, 1));
  acc.reset(3, 2);  // another size
  addFrames(acc, 2);
  expectSame(acc.mean(), expectedMean(3, 2, 2));
}

// N frames in the viewer are an N-spp render, bit for bit (the same clamp, integer sums).
TEST_P(FilmAccumulatorTest, SessionFramesAreTheRenderOfTheirSamples) {
  RenderOptions o;
  o.width = 19;
  o.height = 13;
  o.maxDepth = 4;
  o.compaction = backend_.isCuda() ? "lookback" : "cpu";
  const int n = 5;
  RenderSession session(loadScene("cornell"), GetParam(), o);
  for (int f = 0; f < n; ++f) session.renderFrame();
  ASSERT_EQ(session.accumulator().frames(), n);

  RenderOptions all = o;
  all.spp = n;
  all.filmSamples = RenderSession::kFilmClampFrames;
  Renderer reference(loadScene("cornell"), backend_, all);
  expectSame(session.accumulator().mean(), reference.render(0.f).image);
}

INSTANTIATE_TEST_SUITE_P(Backends, FilmAccumulatorTest, ::testing::Values("cpu", "cuda"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace srt::viewer
