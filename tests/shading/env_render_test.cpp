// Environment maps through the whole renderer: a constant map matches the uniform environment of
// the same radiance (white furnace), one bright texel lights a diffuse plane as the closed form
// says (importance sampled and uniform), and the image does not depend on the compaction
// primitive. Built twice: SRT_ENV_BACKEND "cpu" (suite EnvRenderCpu, label cpu) and "cuda"
// (EnvRenderGpu, label gpu, skips without a device; it also compares with the CPU).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "primitives/common/cuda_check.h"
#include "primitives/compaction/compaction.h"
#include "renderer/render.h"
#include "scenes/loader.h"
#include "scenes/shapes.h"
#include "tests/shading/env_test_util.h"

namespace srt {
namespace {

const std::string kBackend = SRT_ENV_BACKEND;

#define REQUIRE_BACKEND()                           \
  if (kBackend == "cuda" && !cudaDeviceAvailable()) \
  GTEST_SKIP() << "no CUDA device: " << cudaDeviceDescription()

RenderOptions options(int w, int h, int spp, int depth = 8) {
  RenderOptions o;
  o.width = w, o.height = h, o.spp = spp, o.maxDepth = depth;
  return o;
}

double meanGreen(const Image& img) {
  double s = 0;
  for (const Vec3f& p : img.pixels) s += p.y;
  return s / double(img.pixels.size());
}

TEST(SRT_ENV_SUITE, ConstantMapMatchesTheUniformEnvironment) {
  REQUIRE_BACKEND();
  Scene uniform = loadScene("furnace");  // albedo 1 sphere, uniform 0.5: every pixel exactly 0.5
  Scene mapped = uniform;
  mapped.environment = Vec3f(0.f);
  mapped.environmentMap = test::mapOf(test::constantImage(7, 5, Vec3f(0.25f)), "constant");
  mapped.environmentMap->scale = 2.f;
  const RenderOptions o = options(64, 48, 64);
  const Image a = renderScene(uniform, selectBackend(kBackend), o).image;
  const Image b = renderScene(mapped, selectBackend(kBackend), o).image;
  // The map's light samples and BSDF samples are weighted by MIS, so pixels are noisy around 0.5
  // rather than exact; the mean and every pixel stay close.
  EXPECT_NEAR(meanGreen(a), 0.5, 1e-5);
  EXPECT_NEAR(meanGreen(b), 0.5, 2e-3);
  float worst = 0.f;
  for (size_t i = 0; i < b.pixels.size(); ++i)
    worst = std::fmax(worst, std::fabs(b.pixels[i].y - a.pixels[i].y));
  EXPECT_LT(worst, 0.1f);
}

// A large diffuse square (kd) seen from above, lit by a black map with one texel of radiance L
// at (x, y). Bilinear lookup spreads the texel as a tent of half-width h = π / H in θ and 1 / W
// in u, so the irradiance is L · 2π² / W · (1/π) · sin(2θc)/2 · sin²(h)/h and the plane's
// radiance kd/π of that.
struct BrightTexel {
  Scene scene;
  double expected = 0;
};

BrightTexel brightTexelOverPlane(int w, int h, int x, int y, bool importance) {
  BrightTexel t;
  Material m;
  m.name = "plane";
  m.kd = Vec3f(0.5f);
  t.scene.materials.push_back(m);
  Mesh quad = makeQuad(Vec3f(-20.f, 0.f, 20.f), Vec3f(40.f, 0.f, 0.f), Vec3f(0.f, 0.f, -40.f));
  quad.materialIds.assign(quad.triangleCount(), 0);
  t.scene.meshes.push_back(quad);
  t.scene.instances.push_back({});
  Camera c;
  c.position = Vec3f(0.f, 1.f, 0.f);
  c.target = Vec3f(0.f);
  c.up = Vec3f(0.f, 0.f, -1.f);
  c.vfovDegrees = 30.f;
  t.scene.camera = c;
  Image img = test::constantImage(w, h, Vec3f(0.f));
  const float L = 1000.f;
  img.at(x, y) = Vec3f(L);
  t.scene.environmentMap = test::mapOf(img, "one texel");
  t.scene.environmentMap->importanceSampled = importance;
  const double thetaC = kPi * (y + 0.5) / h, half = kPi / h;
  const double irradiance = L * 2.0 * kPi * kPi / w / kPi * std::sin(2.0 * thetaC) / 2.0 *
                            std::sin(half) * std::sin(half) / half;
  t.expected = 0.5 / kPi * irradiance;
  return t;
}

TEST(SRT_ENV_SUITE, OneBrightTexelLightsADiffusePlaneAsPredicted) {
  REQUIRE_BACKEND();
  const BrightTexel t = brightTexelOverPlane(256, 128, 77, 40, true);
  const Image img = renderScene(t.scene, selectBackend(kBackend), options(48, 48, 16)).image;
  EXPECT_NEAR(meanGreen(img), t.expected, 0.01 * t.expected);
  // Light samples spread over the texel's tent with a density constant per cell, so single
  // pixels are noisy; every 8×8 block (1024 samples) is close.
  for (int by = 0; by < img.height; by += 8)
    for (int bx = 0; bx < img.width; bx += 8) {
      double sum = 0;
      for (int y = by; y < by + 8; ++y)
        for (int x = bx; x < bx + 8; ++x) sum += img.at(x, y).y;
      EXPECT_NEAR(sum / 64.0, t.expected, 0.1 * t.expected) << "block at " << bx << ", " << by;
    }
}

// Uniform light sampling rarely finds the texel: the mean is still right, only noisier.
TEST(SRT_ENV_SUITE, UniformSamplingConvergesToTheSameValue) {
  REQUIRE_BACKEND();
  const BrightTexel t = brightTexelOverPlane(32, 16, 11, 5, false);
  const Image img = renderScene(t.scene, selectBackend(kBackend), options(48, 48, 64)).image;
  EXPECT_NEAR(meanGreen(img), t.expected, 0.05 * t.expected);
}

Scene skyScene() {
  Scene s;
  Material ground;
  ground.name = "ground";
  ground.kd = Vec3f(0.6f);
  Material gloss;
  gloss.name = "gloss";
  gloss.type = MaterialType::Glossy;
  gloss.kd = Vec3f(0.2f, 0.3f, 0.5f);
  gloss.ks = Vec3f(0.5f);
  gloss.ns = 100.f;
  s.materials = {ground, gloss};
  Mesh quad = makeQuad(Vec3f(-5.f, 0.f, 5.f), Vec3f(10.f, 0.f, 0.f), Vec3f(0.f, 0.f, -10.f), 0);
  quad.materialIds.assign(quad.triangleCount(), 0);
  Mesh ball = makeSphere(Vec3f(0.f, 1.f, 0.f), 1.f, 24, false, 1);
  ball.materialIds.assign(ball.triangleCount(), 1);
  s.meshes = {quad, ball};
  s.instances = {Instance{0, {}, {}}, Instance{1, {}, {}}};
  Camera c;
  c.position = Vec3f(0.f, 2.f, 6.f);
  c.target = Vec3f(0.f, 0.8f, 0.f);
  s.camera = c;
  s.environmentMap = test::mapOf(test::syntheticSky(64, 32, 6.f), "sky");
  s.environmentMap->rotationDegrees = 25.f;
  return s;
}

TEST(SRT_ENV_SUITE, ImageDoesNotDependOnTheCompactionPrimitive) {
  REQUIRE_BACKEND();
  const Backend backend = selectBackend(kBackend);
  const MemorySpace space = kBackend == "cuda" ? MemorySpace::Cuda : MemorySpace::Host;
  RenderOptions o = options(37, 29, 3, 6);  // sizes no block divides
  o.compaction = "none";
  const Image reference = renderScene(skyScene(), backend, o).image;
  int compared = 0;
  for (const auto& e : compaction::Registry::global().entries()) {
    if (!e.info.accepts_(space)) continue;
    for (Payload payload : {Payload::State, Payload::Index}) {
      o.compaction = e.info.name;
      o.payload = payload;
      Image img;
      try {
        img = renderScene(skyScene(), backend, o).image;
      } catch (const std::exception& ex) {
        if (e.info.device == compaction::Device::Gl) {  // needs a context; its tests say why
          std::printf("skipping %s: %s\n", e.info.name.c_str(), ex.what());
          continue;
        }
        throw;
      }
      bool same = img.pixels.size() == reference.pixels.size();
      for (size_t i = 0; same && i < img.pixels.size(); ++i)
        same = img.pixels[i] == reference.pixels[i];
      EXPECT_TRUE(same) << e.info.name << " / " << toString(payload);
      ++compared;
    }
  }
  EXPECT_GE(compared, 2);
}

// The same code runs on both backends; float maths (atan2f, sinf) may differ in the last bits,
// so the images agree in their means, not bit for bit.
TEST(SRT_ENV_SUITE, BackendsAgree) {
  REQUIRE_BACKEND();
  if (kBackend == "cpu") GTEST_SKIP() << "compared from the CUDA build";
  const RenderOptions o = options(48, 36, 64);
  const Image gpu = renderScene(skyScene(), selectBackend("cuda"), o).image;
  const Image cpu = renderScene(skyScene(), selectBackend("cpu"), o).image;
  EXPECT_NEAR(meanGreen(gpu), meanGreen(cpu), 0.01 * meanGreen(cpu));
}

}  // namespace
}  // namespace srt
