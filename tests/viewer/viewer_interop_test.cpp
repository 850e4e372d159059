// The viewer's CUDA display path without a window: CUDA copies an image into a GL pixel buffer
// through CUDA-GL interop (InteropUpload::write), GL copies that buffer into the display texture
// (ImageDisplay::uploadFromPixelBuffer), and the texture read back must hold the image bit for
// bit. The GL context is headless (EGL device platform) on the CUDA device's own GPU, so this
// runs on a CUDA host without an X server, where viewer_cuda_test (Xvfb, Mesa) never reaches
// interop. Only a missing CUDA device or a missing GL 4.5 context skips: on a machine with both,
// a failed registration or mapping is a failure, naming the GL context it ran on.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <iostream>
#include <memory>
#include <string>

#include "apps/viewer/film_accumulator.h"
#include "apps/viewer/image_display.h"
#include "apps/viewer/interop_upload.h"
#include "apps/viewer/mean_uploader.h"
#include "primitives/common/cuda_check.h"
#include "primitives/gl/gl_context.h"

namespace srt::viewer {
namespace {

static_assert(sizeof(Vec3f) == 3 * sizeof(float), "the pixel buffer holds packed RGB floats");

// Every pixel and channel different (so a swapped channel, a flipped or shifted row or a stale
// texel shows), with fractional and negative values; `offset` tells one write from the next.
Image pattern(int width, int height, float offset) {
  Image image(width, height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const float i = offset + float(y * width + x);
      image.at(x, y) = {i, i + 0.25f, -0.5f * i - 0.125f};
    }
  return image;
}

// The display texture as GL holds it. glGetTextureImage returns texture row 0 (t = 0, the bottom
// in GL's texture space) first; the display keeps image row 0, the top of the picture, there and
// flips v when it draws (as uploadFromHost does), so row y read back is image row y.
Image readTexture(const ImageDisplay& display) {
  GLint width = 0, height = 0;
  SRT_GL_CHECK(glGetTextureLevelParameteriv(display.texture(), 0, GL_TEXTURE_WIDTH, &width));
  SRT_GL_CHECK(glGetTextureLevelParameteriv(display.texture(), 0, GL_TEXTURE_HEIGHT, &height));
  Image image(width, height);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glPixelStorei(GL_PACK_ROW_LENGTH, 0);
  glPixelStorei(GL_PACK_SKIP_ROWS, 0);
  glPixelStorei(GL_PACK_SKIP_PIXELS, 0);
  SRT_GL_CHECK(glGetTextureImage(display.texture(), 0, GL_RGB, GL_FLOAT,
                                 GLsizei(image.pixels.size() * sizeof(Vec3f)),
                                 image.pixels.data()));
  return image;
}

::testing::AssertionResult sameImage(const Image& got, const Image& want) {
  if (got.width != want.width || got.height != want.height)
    return ::testing::AssertionFailure() << "texture is " << got.width << "x" << got.height
                                         << ", image " << want.width << "x" << want.height;
  int bad = 0;
  ::testing::AssertionResult result = ::testing::AssertionFailure();
  for (int y = 0; y < want.height; ++y)
    for (int x = 0; x < want.width; ++x) {
      const Vec3f g = got.at(x, y), w = want.at(x, y);
      if (g.x == w.x && g.y == w.y && g.z == w.z) continue;
      if (++bad <= 5)
        result << "\n  (" << x << ", " << y << "): texture (" << g.x << ", " << g.y << ", " << g.z
               << "), image (" << w.x << ", " << w.y << ", " << w.z << ")";
    }
  if (bad == 0) return ::testing::AssertionSuccess();
  return result << "\n  " << bad << " of " << want.pixels.size() << " pixels differ";
}

// A headless GL context on the CUDA device's GPU, current, standing in for the window's; null
// (with the reason in *skip) where there is no CUDA device or no GL 4.5 context.
std::unique_ptr<gl::GlContext> headlessContext(std::string* skip) {
  if (!cudaDeviceAvailable()) {
    *skip = cudaDeviceDescription();  // "no CUDA device ..."
    return nullptr;
  }
  int device = 0;
  SRT_CUDA_CHECK(cudaGetDevice(&device));
  try {
    return gl::GlContext::createHeadless(device);  // on the CUDA device's GPU where EGL says
  } catch (const gl::GlUnavailable& e) {
    *skip = e.what();
    return nullptr;
  }
}

TEST(ViewerInterop, CudaWrittenPixelBufferReachesTheDisplayTexture) {
  std::string skip;
  std::unique_ptr<gl::GlContext> context = headlessContext(&skip);
  if (!context) GTEST_SKIP() << skip;
  std::cout << "CUDA: " << cudaDeviceDescription() << "\nGL: " << context->description() << "\n";
  // As in the viewer: the application's context is current and nothing makes another one.
  gl::useExternalContext(true);
  struct Restore {
    ~Restore() { gl::useExternalContext(false); }
  } restore;
  cudaStream_t stream = nullptr;
  SRT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  struct DestroyStream {
    cudaStream_t stream;
    ~DestroyStream() { cudaStreamDestroy(stream); }
  } destroyStream{stream};

  try {
    ImageDisplay display;
    InteropUpload interop;
    // An awkward size first (rows of 37 * 12 bytes); then a larger image, past the buffer's room,
    // so the buffer is made and registered again; then the first size into that larger buffer.
    struct Step {
      int width, height;
      float offset;
      const char* what;
    };
    for (const Step& step : {Step{37, 23, 0.f, "first write: registers the buffer"},
                             Step{129, 67, 100000.f, "larger image: re-registers the buffer"},
                             Step{37, 23, 300000.f, "smaller again: the larger buffer kept"}}) {
      SCOPED_TRACE(std::to_string(step.width) + "x" + std::to_string(step.height) + ", " +
                   step.what);
      const Image image = pattern(step.width, step.height, step.offset);
      display.resize(image.width, image.height);
      display.uploadFromPixelBuffer(interop.write(image, stream));
      EXPECT_TRUE(sameImage(readTexture(display), image));
    }
  } catch (const CudaError& e) {
    FAIL() << "CUDA-GL interop failed with GL context " << context->description() << ": "
           << e.what();
  }
}

// The viewer's own path on CUDA: frames summed on the device, the mean resolved by a kernel
// straight into the mapped pixel buffer, GL copying it into the texture. The texture must hold
// what the accumulator resolves to the host, bit for bit, on an awkward size.
TEST(ViewerInterop, DeviceSumIsResolvedIntoTheDisplayTexture) {
  std::string skip;
  std::unique_ptr<gl::GlContext> context = headlessContext(&skip);
  if (!context) GTEST_SKIP() << skip;
  gl::useExternalContext(true);
  struct Restore {
    ~Restore() { gl::useExternalContext(false); }
  } restore;
  const Backend cuda = selectBackend("cuda");
  const int width = 53, height = 29;
  const size_t values = 3 * size_t(width) * height;
  FilmAccumulator sum(cuda);
  sum.reset(width, height);
  std::vector<Buffer<unsigned long long>> frames;
  for (int f = 0; f < 3; ++f) {
    std::vector<unsigned long long> film(values);
    for (size_t i = 0; i < values; ++i) film[i] = (i * 2654435761ull + f * 977ull) % (1ull << 36);
    frames.emplace_back(MemorySpace::Cuda, film);
    sum.add(frames.back().data());
  }
  try {
    ImageDisplay display;
    MeanUploader uploader(display);
    uploader.setBackend(cuda, true);
    uploader.upload(sum);
    EXPECT_EQ(uploader.line().find("failed"), std::string::npos) << uploader.line();
    EXPECT_TRUE(sameImage(readTexture(display), sum.mean()));
  } catch (const CudaError& e) {
    FAIL() << "CUDA-GL interop failed with GL context " << context->description() << ": "
           << e.what();
  }
}

}  // namespace
}  // namespace srt::viewer
