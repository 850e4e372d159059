// MTL maps through the renderer. Alpha cut-outs (map_d): a black leaf-shaped mask on a square in
// front of a uniform white environment; rays through transparent texels see the environment
// (exactly 1), rays on the leaf see black (exactly 0), and an OBJ/MTL with map_d loads the mask.
// Emission maps (map_Ke): a light whose map is white on one half lights a floor as a light made
// of that half alone. Bump maps: a height ramp turns a lit floor darker by the cosine predicted.
// Built with env_render_test.cpp for the CPU and CUDA backends.
#include <gtest/gtest.h>
#include <stb_image_write.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "primitives/common/cuda_check.h"
#include "renderer/render.h"
#include "scenes/loader.h"
#include "scenes/shapes.h"
#include "tests/shading/env_test_util.h"

namespace srt {
namespace {

const std::string kCutBackend = SRT_ENV_BACKEND;

#define REQUIRE_CUT_BACKEND()                          \
  if (kCutBackend == "cuda" && !cudaDeviceAvailable()) \
  GTEST_SKIP() << "no CUDA device: " << cudaDeviceDescription()

constexpr int kMask = 64;

// 1 inside a leaf-like ellipse (semi-axes 0.45 and 0.25 of the square), 0 outside.
bool onLeaf(double u, double v) {
  const double x = (u - 0.5) / 0.45, y = (v - 0.5) / 0.25;
  return x * x + y * y <= 1.0;
}

Texture leafMask() {
  Texture t;
  t.path = "leaf-mask";
  t.width = t.height = kMask;
  for (int y = 0; y < kMask; ++y)
    for (int x = 0; x < kMask; ++x)
      t.texels.push_back(Vec3f(onLeaf((x + 0.5) / kMask, 1.0 - (y + 0.5) / kMask) ? 1.f : 0.f));
  return t;
}

Camera facingTheSquare() {
  Camera c;
  c.position = Vec3f(0.f, 0.f, 4.f);
  c.target = Vec3f(0.f);
  c.vfovDegrees = 40.f;
  return c;
}

// The square spans [-1, 1]² at z = 0, uv (0,0) at (-1,-1).
Scene leafScene() {
  Scene s;
  Material leaf;
  leaf.name = "leaf";
  leaf.kd = Vec3f(0.f);
  leaf.alphaTexture = 0;
  s.materials.push_back(leaf);
  s.textures.push_back(leafMask());
  Mesh quad = makeQuad(Vec3f(-1.f, -1.f, 0.f), Vec3f(2.f, 0.f, 0.f), Vec3f(0.f, 2.f, 0.f));
  quad.materialIds.assign(quad.triangleCount(), 0);
  s.meshes.push_back(quad);
  s.instances.push_back({});
  s.environment = Vec3f(1.f);
  s.camera = facingTheSquare();
  return s;
}

RenderOptions leafOptions() {
  RenderOptions o;
  o.width = o.height = 64;
  o.spp = 4;
  o.maxDepth = 4;
  return o;
}

// Pixels well inside the leaf are exactly 0 and pixels well outside it exactly 1; the margin
// (in the ellipse's own radius) covers half a pixel's diagonal and the bilinear mask's soft edge.
void expectLeafImage(const Image& img) {
  const double half = 4.0 * std::tan(20.0 * kPi / 180.0);  // half the view at z = 0
  const double margin = 0.2;
  int dark = 0, bright = 0, wrong = 0;
  for (int py = 0; py < img.height; ++py)
    for (int px = 0; px < img.width; ++px) {
      const double x = (2.0 * (px + 0.5) / img.width - 1.0) * half;
      const double y = (1.0 - 2.0 * (py + 0.5) / img.height) * half;
      const double ex = ((x + 1.0) / 2.0 - 0.5) / 0.45, ey = ((y + 1.0) / 2.0 - 0.5) / 0.25;
      const double r = std::sqrt(ex * ex + ey * ey);
      const float g = img.at(px, py).y;
      if (r < 1.0 - margin) ++dark, wrong += g != 0.f;
      if (r > 1.0 + margin) ++bright, wrong += g != 1.f;
    }
  EXPECT_GT(dark, 200);
  EXPECT_GT(bright, 2000);  // the transparent corners of the square among them
  EXPECT_EQ(wrong, 0);
}

TEST(SRT_ENV_SUITE, RaysPassThroughTransparentTexels) {
  REQUIRE_CUT_BACKEND();
  const Image img = renderScene(leafScene(), selectBackend(kCutBackend), leafOptions()).image;
  expectLeafImage(img);
  // The leaf is opaque and black at the centre; the square's corners are transparent.
  EXPECT_EQ(img.at(img.width / 2, img.height / 2).y, 0.f);
  EXPECT_EQ(img.at(img.width / 2 + 20, img.height / 2 + 20).y, 1.f);
}

TEST(SRT_ENV_SUITE, ObjMapDLoadsTheMask) {
  REQUIRE_CUT_BACKEND();
  char folder[] = "/tmp/streamrt-leaf-XXXXXX";
  ASSERT_NE(mkdtemp(folder), nullptr);
  const std::string dir = folder;
  std::vector<unsigned char> grey;
  for (const Vec3f& t : leafMask().texels) grey.push_back(t.x > 0.5f ? 255 : 0);
  ASSERT_TRUE(stbi_write_png((dir + "/mask.png").c_str(), kMask, kMask, 1, grey.data(), kMask));
  std::ofstream(dir + "/leaf.mtl") << "newmtl leaf\nKd 0 0 0\nmap_d mask.png\n";
  std::ofstream(dir + "/leaf.obj") << "mtllib leaf.mtl\nv -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\n"
                                      "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nusemtl leaf\n"
                                      "f 1/1 2/2 3/3\nf 1/1 3/3 4/4\n";
  Scene s = loadScene(dir + "/leaf.obj");
  for (const char* f : {"/mask.png", "/leaf.mtl", "/leaf.obj"}) std::remove((dir + f).c_str());
  rmdir(folder);
  ASSERT_EQ(s.materials.size(), 1u);
  ASSERT_GE(s.materials[0].alphaTexture, 0);
  s.environment = Vec3f(1.f);
  s.camera = facingTheSquare();
  expectLeafImage(renderScene(s, selectBackend(kCutBackend), leafOptions()).image);
}

// A floor under a 1 × 1 ceiling light facing down (kd 0, so only its emission counts). `mapped`:
// the whole square emits through a map white for u < 1/2 and black beyond; otherwise the left
// half is an emitter without a map and the right half a black non-emitting square.
Scene halfLight(bool mapped) {
  Scene s;
  Material floor, light, dark;
  floor.name = "floor", floor.kd = Vec3f(0.5f);
  light.name = "light", light.kd = Vec3f(0.f), light.ke = Vec3f(4.f);
  dark.name = "dark", dark.kd = Vec3f(0.f);
  Mesh ground = makeQuad(Vec3f(-4.f, 0.f, 4.f), Vec3f(8.f, 0.f, 0.f), Vec3f(0.f, 0.f, -8.f), 0);
  ground.materialIds.assign(ground.triangleCount(), 0);
  s.meshes.push_back(ground);
  if (mapped) {
    Texture t;
    t.path = "half";
    t.width = t.height = 64;
    for (int y = 0; y < 64; ++y)
      for (int x = 0; x < 64; ++x) t.texels.push_back(Vec3f(x < 32 ? 1.f : 0.f));
    s.textures.push_back(t);
    light.keTexture = 0;
    Mesh sq = makeQuad(Vec3f(-0.5f, 1.f, -0.5f), Vec3f(1.f, 0.f, 0.f), Vec3f(0.f, 0.f, 1.f), 1);
    sq.materialIds.assign(sq.triangleCount(), 1);
    s.meshes.push_back(sq);
  } else {
    Mesh left = makeQuad(Vec3f(-0.5f, 1.f, -0.5f), Vec3f(0.5f, 0.f, 0.f), Vec3f(0.f, 0.f, 1.f));
    Mesh right = makeQuad(Vec3f(0.f, 1.f, -0.5f), Vec3f(0.5f, 0.f, 0.f), Vec3f(0.f, 0.f, 1.f));
    left.materialIds.assign(left.triangleCount(), 1);
    right.materialIds.assign(right.triangleCount(), 2);
    s.meshes.push_back(left);
    s.meshes.push_back(right);
  }
  s.materials = {floor, light, dark};
  for (uint32_t m = 0; m < s.meshes.size(); ++m) s.instances.push_back(Instance{m, {}, {}});
  Camera c;
  c.position = Vec3f(0.f, 2.5f, 3.5f);
  c.target = Vec3f(0.f, 0.f, 0.f);
  c.vfovDegrees = 50.f;
  s.camera = c;
  return s;
}

TEST(SRT_ENV_SUITE, EmissionMapLightsLikeItsBrightHalf) {
  REQUIRE_CUT_BACKEND();
  RenderOptions o;
  o.width = 64, o.height = 48, o.spp = 64, o.maxDepth = 3;
  const Image mapped = renderScene(halfLight(true), selectBackend(kCutBackend), o).image;
  const Image halves = renderScene(halfLight(false), selectBackend(kCutBackend), o).image;
  double a = 0, b = 0, leftA = 0, rightA = 0;
  for (int y = 0; y < o.height; ++y)
    for (int x = 0; x < o.width; ++x) {
      a += mapped.at(x, y).y, b += halves.at(x, y).y;
      (x < o.width / 2 ? leftA : rightA) += mapped.at(x, y).y;
    }
  EXPECT_GT(a, 0.0);
  EXPECT_NEAR(a, b, 0.02 * b);
  EXPECT_GT(leftA, 1.3 * rightA);  // the floor is brighter under the bright half
}

// A diffuse floor seen from above, lit by one bright texel 45° up towards +x; with `bumpScale` a
// height ramp rising 0.01 per texel along u (= +x) tilts the normal away from the light.
double bumpedFloorMean(float bumpScale, Vec3f* light) {
  Scene s;
  Material m;
  m.name = "floor";
  m.kd = Vec3f(0.5f);
  if (bumpScale > 0.f) {
    Texture ramp;
    ramp.path = "ramp";
    ramp.width = 64, ramp.height = 4;
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 64; ++x) ramp.texels.push_back(Vec3f(0.01f * x));
    s.textures.push_back(ramp);
    m.bumpTexture = 0;
    m.bumpScale = bumpScale;
  }
  s.materials.push_back(m);
  Mesh quad = makeQuad(Vec3f(-20.f, 0.f, 20.f), Vec3f(40.f, 0.f, 0.f), Vec3f(0.f, 0.f, -40.f));
  quad.materialIds.assign(quad.triangleCount(), 0);
  s.meshes.push_back(quad);
  s.instances.push_back({});
  Camera c;
  c.position = Vec3f(0.f, 1.f, 0.f);
  c.target = Vec3f(0.f);
  c.up = Vec3f(0.f, 0.f, -1.f);
  c.vfovDegrees = 20.f;
  s.camera = c;
  Image sky = test::constantImage(256, 128, Vec3f(0.f));
  sky.at(192, 32) = Vec3f(1000.f);
  *light = test::texelCentreDirection(192, 32, 256, 128);
  s.environmentMap = test::mapOf(sky, "one texel");
  RenderOptions o;
  o.width = o.height = 32, o.spp = 32, o.maxDepth = 1;
  const Image img = renderScene(s, selectBackend(kCutBackend), o).image;
  double sum = 0;
  for (const Vec3f& p : img.pixels) sum += p.y;
  return sum / double(img.pixels.size());
}

TEST(SRT_ENV_SUITE, BumpRampDarkensByTheCosine) {
  REQUIRE_CUT_BACKEND();
  Vec3f light;
  const double flat = bumpedFloorMean(0.f, &light);
  const double bumped = bumpedFloorMean(20.f, &light);
  const Vec3f tilted = normalize(Vec3f(-20.f * 0.01f, 1.f, 0.f));
  const double predicted = flat * dot(tilted, light) / light.y;
  EXPECT_NEAR(bumped, predicted, 0.02 * predicted);
  EXPECT_LT(bumped, 0.95 * flat);
}

}  // namespace
}  // namespace srt
