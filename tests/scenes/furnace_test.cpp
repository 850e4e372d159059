// The white furnace: an albedo-1 diffuse sphere in a uniform environment of 0.5 reflects every
// path out to the environment with throughput exactly 1, so every pixel is 0.5 up to float
// rounding. A pixel below 0.5 means a path was lost (e.g. sent into the sphere, or slipped
// through an edge: the triangle test is not watertight). Built twice:
// SRT_FURNACE_BACKEND "cpu" (suite FurnaceCpu, label cpu) and "cuda" (FurnaceGpu, label gpu,
// skips without a device).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "primitives/common/cuda_check.h"
#include "renderer/render.h"
#include "scenes/loader.h"

namespace srt {
namespace {

const std::string kBackend = SRT_FURNACE_BACKEND;

#define REQUIRE_BACKEND()                           \
  if (kBackend == "cuda" && !cudaDeviceAvailable()) \
  GTEST_SKIP() << "no CUDA device: " << cudaDeviceDescription()

int pixelsOff(const Image& img, float expected, float* worst) {
  int off = 0;
  *worst = 0.f;
  for (const Vec3f& p : img.pixels) {
    const float d = std::fmax(std::fabs(p.x - expected),
                              std::fmax(std::fabs(p.y - expected), std::fabs(p.z - expected)));
    *worst = std::fmax(*worst, d);
    off += d >= 1e-5f;
  }
  return off;
}

// The CPU test renders a quarter of the 320x240 to stay quick; CUDA renders all of it.
RenderOptions furnaceOptions() {
  RenderOptions o;
  o.width = kBackend == "cuda" ? 320 : 160;
  o.height = kBackend == "cuda" ? 240 : 120;
  o.spp = 16, o.maxDepth = 8;
  return o;
}

TEST(SRT_FURNACE_SUITE, EveryPixelIsTheEnvironment) {
  REQUIRE_BACKEND();
  const Scene scene = loadScene("furnace");
  const RenderResult r = renderScene(scene, selectBackend(kBackend), furnaceOptions());
  float worst = 0.f;
  // Rays meet triangles by the unit-triangle test, which is not watertight: a path through an
  // edge the sphere's triangles share can slip inside (one pixel of 19200 lost a sample at 160 x
  // 120). More than one pixel in 5000 means paths are lost some other way (interpolated shading
  // normals, below, lose one pixel in 1000).
  const int off = pixelsOff(r.image, scene.environment.y, &worst);
  std::printf("furnace: %d of %zu pixels off, worst |v - 0.5| = %g\n", off, r.image.pixels.size(),
              worst);
  EXPECT_LE(off, int(r.image.pixels.size() / 5000));
  EXPECT_LE(worst, scene.environment.y / float(furnaceOptions().spp) + 1e-5f)
      << "a pixel lost more than one sample";
}

// The cause of the lost samples above, kept visible: the same sphere with interpolated normals
// sends some cosine-sampled directions below the facet they leave, and those paths end inside.
TEST(SRT_FURNACE_SUITE, ShadingNormalsLoseSomePaths) {
  REQUIRE_BACKEND();
  Scene scene = loadScene("furnace");
  for (Mesh& m : scene.meshes) m.normals = m.positions;  // unit sphere at the origin: n = p
  const RenderResult r = renderScene(scene, selectBackend(kBackend), furnaceOptions());
  float worst = 0.f;
  const int off = pixelsOff(r.image, scene.environment.y, &worst);
  EXPECT_GT(off, 0) << "shading normals no longer lose paths: the furnace could keep them";
  EXPECT_LT(off, int(r.image.pixels.size() / 100));
}

}  // namespace
}  // namespace srt
