// Bump and normal maps: the triangle's uv frame, a flat normal map leaves the normal alone, a
// tangent-space axis lands on the matching world axis (mirrored uvs too), and a height ramp tilts
// the normal against its slope by the expected angle.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "renderer/shading/normal_map.h"

namespace srt {
namespace {

// A triangle in the z = 0 plane with u along +x and v along +y (or -y when mirrored).
struct Tri {
  Vec3f p[3] = {Vec3f(0.f, 0.f, 0.f), Vec3f(2.f, 0.f, 0.f), Vec3f(0.f, 2.f, 0.f)};
  Vec2f t[3] = {Vec2f{0.f, 0.f}, Vec2f{1.f, 0.f}, Vec2f{0.f, 1.f}};
};

TextureView constantTexture(std::vector<Vec3f>& texels, int w, int h, Vec3f value) {
  texels.assign(size_t(w) * size_t(h), value);
  return TextureView{texels.data(), w, h};
}

TEST(NormalMap, UvFrameFollowsTheUvs) {
  Tri tri;
  Vec3f dpdu, dpdv;
  ASSERT_TRUE(triangleUvFrame(tri.p, tri.t, &dpdu, &dpdv));
  EXPECT_NEAR(length(dpdu - Vec3f(2.f, 0.f, 0.f)), 0.f, 1e-6f);
  EXPECT_NEAR(length(dpdv - Vec3f(0.f, 2.f, 0.f)), 0.f, 1e-6f);
  tri.t[2] = tri.t[0];  // degenerate uvs
  EXPECT_FALSE(triangleUvFrame(tri.p, tri.t, &dpdu, &dpdv));
}

TEST(NormalMap, FlatNormalMapKeepsTheNormal) {
  std::vector<Vec3f> texels;
  const TextureView tex = constantTexture(texels, 4, 3, Vec3f(0.5f, 0.5f, 1.f));
  DeviceMaterial m;
  m.normalTexture = 0;
  const Vec3f n(0.f, 0.f, 1.f);
  const Vec3f out =
      detailNormal(m, &tex, Vec2f{0.3f, 0.7f}, n, Vec3f(2.f, 0.f, 0.f), Vec3f(0.f, 2.f, 0.f));
  EXPECT_NEAR(length(out - n), 0.f, 1e-6f);
}

TEST(NormalMap, TangentAxesLandOnTheUvDirections) {
  std::vector<Vec3f> texels;
  DeviceMaterial m;
  m.normalTexture = 0;
  const Vec3f n(0.f, 0.f, 1.f);
  // Tangent-space +x (RGB 1, 0.5, 0.5) is dp/du; +y follows dp/dv, also when v runs along -y.
  TextureView tex = constantTexture(texels, 2, 2, Vec3f(1.f, 0.5f, 0.5f));
  Vec3f out =
      detailNormal(m, &tex, Vec2f{0.5f, 0.5f}, n, Vec3f(3.f, 0.f, 0.f), Vec3f(0.f, 1.f, 0.f));
  EXPECT_NEAR(out.x, 1.f, 1e-6f);
  tex = constantTexture(texels, 2, 2, Vec3f(0.5f, 1.f, 0.5f));
  out = detailNormal(m, &tex, Vec2f{0.5f, 0.5f}, n, Vec3f(3.f, 0.f, 0.f), Vec3f(0.f, -1.f, 0.f));
  EXPECT_NEAR(out.y, -1.f, 1e-6f);
}

TEST(NormalMap, BumpRampTiltsAgainstTheSlope) {
  // Heights rise by 0.01 per texel along u: the normal tilts towards -u by atan(0.01 · scale).
  constexpr int w = 64;
  std::vector<Vec3f> texels;
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < w; ++x) texels.push_back(Vec3f(0.01f * x));
  const TextureView tex{texels.data(), w, 4};
  DeviceMaterial m;
  m.bumpTexture = 0;
  m.bumpScale = 3.f;
  const Vec3f n(0.f, 0.f, 1.f);
  const Vec3f out =
      detailNormal(m, &tex, Vec2f{20.5f / w, 0.5f}, n, Vec3f(1.f, 0.f, 0.f), Vec3f(0.f, 1.f, 0.f));
  EXPECT_NEAR(std::atan2(-out.x, out.z), std::atan(0.03f), 1e-4f);
  EXPECT_NEAR(out.y, 0.f, 1e-6f);
  m.bumpScale = 0.f;  // -bm 0: no effect
  EXPECT_NEAR(length(detailNormal(m, &tex, Vec2f{0.3f, 0.5f}, n, Vec3f(1.f, 0.f, 0.f),
                                  Vec3f(0.f, 1.f, 0.f)) -
                     n),
              0.f, 1e-6f);
}

TEST(NormalMap, MaterialsWithoutMapsAreUntouched) {
  DeviceMaterial m;
  EXPECT_FALSE(hasNormalDetail(m));
  m.bumpTexture = 2;
  EXPECT_TRUE(hasNormalDetail(m));
}

}  // namespace
}  // namespace srt
