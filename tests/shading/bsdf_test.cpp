// BSDFs: energy conservation, reciprocity, the specular types' weights, Fresnel and refraction,
// and the material/texture plumbing that feeds makeBsdf.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "renderer/shading/bsdf.h"
#include "renderer/shading/rng.h"
#include "scenes/scene.h"

namespace srt {
namespace {

DeviceMaterial material(MaterialType type, Vec3f kd, Vec3f ks, float alpha, float ior = 1.5f) {
  DeviceMaterial m;
  m.type = type, m.kd = kd, m.ks = ks, m.alpha = alpha, m.ior = ior;
  return m;
}

// A tilted normal, so the world <-> local frame is exercised too.
const Vec3f kNormal = normalize(Vec3f(0.3f, -0.2f, 0.9f));

Vec3f directionAt(const Bsdf& b, float cosTheta, float phi) {
  const float s = std::sqrt(std::fmax(0.f, 1.f - cosTheta * cosTheta));
  return b.frame.toWorld(Vec3f(s * std::cos(phi), s * std::sin(phi), cosTheta));
}

// Monte Carlo albedo ∫ f |cos| dωi by BSDF sampling, per channel.
Vec3f albedo(const Bsdf& b, Vec3f wo, int n, uint32_t seed) {
  Vec3f sum(0.f);
  for (int i = 0; i < n; ++i) {
    Sampler s = Sampler::at(uint32_t(i), 0, 0, seed);
    const float uc = s.next1D();
    BsdfSample bs;
    if (!b.sample(wo, uc, s.next2D(), &bs)) continue;
    sum += bs.f * (absDot(bs.wi, b.frame.n) / bs.pdf);
  }
  return sum / float(n);
}

TEST(Bsdf, WhiteDiffuseHasAlbedoOneAndEverySampleWeighsKd) {
  const Bsdf b = makeBsdf(material(MaterialType::Diffuse, Vec3f(1.f), Vec3f(0.f), 1.f), nullptr,
                          kNormal, Vec2f{});
  EXPECT_FALSE(b.isSpecular());
  for (float c : {1.f, 0.5f, 0.05f, -0.7f}) {  // negative: seen from the back (two-sided)
    const Vec3f wo = directionAt(b, c, 0.4f);
    for (int i = 0; i < 1000; ++i) {
      Sampler s = Sampler::at(uint32_t(i), 1, 0, 0);
      BsdfSample bs;
      const float uc = s.next1D();
      ASSERT_TRUE(b.sample(wo, uc, s.next2D(), &bs));
      EXPECT_GT(dot(bs.wi, b.frame.n) * c, 0.f) << "wi must be on wo's side";
      const Vec3f w = bs.f * (absDot(bs.wi, b.frame.n) / bs.pdf);
      EXPECT_NEAR(w.x, 1.f, 1e-4f);
      EXPECT_NEAR(b.pdf(wo, bs.wi), bs.pdf, 1e-5f * bs.pdf);  // frame round trip
    }
    const Vec3f a = albedo(b, wo, 20000, 3);
    EXPECT_NEAR(a.y, 1.f, 1e-3f) << "cos " << c;
  }
}

TEST(Bsdf, GlossyAlbedoNeverExceedsOne) {
  // The worst cases are white kd with any ks, at every incidence angle and roughness.
  for (float alpha : {0.02f, 0.1f, 0.3f, 0.6f, 1.f})
    for (float ks : {0.f, 0.04f, 0.5f, 1.f})
      for (float kd : {0.f, 1.f}) {
        const Bsdf b = makeBsdf(material(MaterialType::Glossy, Vec3f(kd), Vec3f(ks), alpha),
                                nullptr, kNormal, Vec2f{});
        for (float c : {1.f, 0.8f, 0.5f, 0.2f, 0.05f, 0.01f, -0.6f}) {
          const Vec3f a = albedo(b, directionAt(b, c, 1.3f), 20000, 7);
          EXPECT_LE(maxComponent(a), 1.01f)
              << "alpha " << alpha << " ks " << ks << " kd " << kd << " cos " << c;
          EXPECT_GE(a.x, 0.f);
        }
      }
}

TEST(Bsdf, GlossySampleWeightsAgreeWithUniformIntegration) {
  // E[f cos / pdf] by the BSDF's own sampling must equal ∫ f cos integrated independently
  // (uniform hemisphere), which catches a pdf that is not the density sample() draws from.
  for (float alpha : {0.3f, 0.6f, 1.f})
    for (float c : {0.9f, 0.4f}) {
      const Bsdf b = makeBsdf(material(MaterialType::Glossy, Vec3f(0.5f), Vec3f(0.3f), alpha),
                              nullptr, kNormal, Vec2f{});
      const Vec3f wo = directionAt(b, c, 2.f);
      const Vec3f importance = albedo(b, wo, 200000, 11);
      double uniform = 0;
      constexpr int kN = 400000;
      for (int i = 0; i < kN; ++i) {
        Sampler s = Sampler::at(uint32_t(i), 2, 0, 0);
        const Vec3f wiLocal = sampleUniformHemisphere(s.next2D());
        const Vec3f wi = b.frame.toWorld(wiLocal);
        uniform += b.f(wo, wi).y * wiLocal.z / uniformHemispherePdf();
      }
      uniform /= kN;
      EXPECT_NEAR(importance.y, uniform, 0.01 * uniform + 2e-3)
          << "alpha " << alpha << " cos " << c;
    }
}

TEST(Bsdf, NonSpecularBsdfsAreReciprocal) {
  std::vector<Bsdf> bsdfs = {
      makeBsdf(material(MaterialType::Diffuse, Vec3f(0.7f, 0.5f, 0.2f), Vec3f(0.f), 1.f), nullptr,
               kNormal, Vec2f{})};
  for (float alpha : {0.05f, 0.3f, 1.f})
    bsdfs.push_back(makeBsdf(
        material(MaterialType::Glossy, Vec3f(0.6f, 0.3f, 0.1f), Vec3f(0.9f, 0.6f, 0.3f), alpha),
        nullptr, kNormal, Vec2f{}));
  for (size_t k = 0; k < bsdfs.size(); ++k) {
    const Bsdf& b = bsdfs[k];
    int nonZero = 0;
    for (int i = 0; i < 5000; ++i) {
      Sampler s = Sampler::at(uint32_t(i), 3, 0, 0);
      const Vec3f wo = normalize(sampleUniformSphere(s.next2D()));
      const Vec3f wi = normalize(sampleUniformSphere(s.next2D()));
      const Vec3f a = b.f(wo, wi), c = b.f(wi, wo);
      for (int ch = 0; ch < 3; ++ch)
        ASSERT_NEAR(a[ch], c[ch], 1e-4f * std::fmax(1.f, std::fabs(a[ch]))) << "bsdf " << k;
      nonZero += !isBlack(a);
    }
    EXPECT_GT(nonZero, 1000) << "bsdf " << k << " is almost always zero";
  }
}

TEST(Bsdf, GlossyWithRoughnessOneIsNotBlackAndSmoothOneIsPeaked) {
  const Bsdf smooth = makeBsdf(material(MaterialType::Glossy, Vec3f(0.f), Vec3f(1.f), 0.05f),
                               nullptr, Vec3f(0.f, 0.f, 1.f), Vec2f{});
  const Vec3f wo = normalize(Vec3f(0.5f, 0.f, 1.f));
  const Vec3f mirror = reflect(wo, Vec3f(0.f, 0.f, 1.f));
  const Vec3f off = normalize(Vec3f(-0.1f, 0.4f, 1.f));
  EXPECT_GT(smooth.f(wo, mirror).x, 100.f * smooth.f(wo, off).x);
  EXPECT_GT(smooth.pdf(wo, mirror), 100.f * smooth.pdf(wo, off));
}

// ---- Dielectric and Mirror ----

TEST(Fresnel, KnownValuesAndSymmetry) {
  const float eta = 1.5f;
  EXPECT_NEAR(fresnelDielectric(1.f, eta), 0.04f, 1e-6f);  // ((1.5-1)/(1.5+1))²
  EXPECT_NEAR(fresnelDielectric(-1.f, eta), 0.04f, 1e-6f);
  EXPECT_NEAR(fresnelDielectric(1e-4f, eta), 1.f, 2e-3f);  // grazing
  for (float c : {1.f, 0.7f, 0.3f, 0.01f}) EXPECT_NEAR(fresnelDielectric(c, 1.f), 0.f, 1e-6f);
  // Reciprocity across the boundary: R(θi outside) == R(θt inside).
  for (float c : {0.95f, 0.6f, 0.2f}) {
    const float sinT = std::sqrt(1.f - c * c) / eta;
    const float cosT = std::sqrt(1.f - sinT * sinT);
    EXPECT_NEAR(fresnelDielectric(c, eta), fresnelDielectric(-cosT, eta), 1e-5f);
    EXPECT_GT(fresnelDielectric(c, eta), 0.f);
    EXPECT_LT(fresnelDielectric(c, eta), 1.f);
  }
  // Total internal reflection from inside beyond the critical angle (sin θc = 1/eta).
  const float cosCritical = std::sqrt(1.f - 1.f / (eta * eta));
  EXPECT_EQ(fresnelDielectric(-(cosCritical - 0.01f), eta), 1.f);
  EXPECT_LT(fresnelDielectric(-(cosCritical + 0.01f), eta), 1.f);
}

TEST(Fresnel, RefractObeysSnellAndReverses) {
  const Vec3f n(0.f, 0.f, 1.f);
  for (float eta : {1.33f, 1.5f, 2.4f})
    for (float c : {1.f, 0.8f, 0.3f, 0.05f}) {
      const Vec3f wi = normalize(Vec3f(std::sqrt(1 - c * c), 0.f, c));
      float etap;
      Vec3f wt;
      ASSERT_TRUE(refract(wi, n, eta, &etap, &wt));
      EXPECT_EQ(etap, eta);
      EXPECT_NEAR(length(wt), 1.f, 1e-5f);
      EXPECT_LT(wt.z, 0.f);
      EXPECT_NEAR(std::sqrt(1 - c * c), eta * std::sqrt(1 - wt.z * wt.z), 1e-5f);  // Snell
      float etapBack;
      Vec3f back;
      ASSERT_TRUE(refract(wt, n, eta, &etapBack, &back));  // from inside, back out
      EXPECT_NEAR(etapBack, 1.f / eta, 1e-6f);
      EXPECT_NEAR(back.x, wi.x, 1e-4f);
      EXPECT_NEAR(back.z, wi.z, 1e-4f);
    }
  float etap;
  Vec3f wt;
  const Vec3f inside = normalize(Vec3f(0.9f, 0.f, -0.3f));  // beyond the critical angle
  EXPECT_FALSE(refract(inside, n, 1.5f, &etap, &wt));
  ASSERT_TRUE(refract(normalize(Vec3f(0.3f, 0.2f, 0.9f)), n, 1.f, &etap, &wt));  // eta 1: straight
  EXPECT_NEAR(wt.x, -normalize(Vec3f(0.3f, 0.2f, 0.9f)).x, 1e-6f);
}

TEST(Dielectric, SampleWeightsAndProbabilities) {
  const float eta = 1.5f;
  const Bsdf b = makeBsdf(material(MaterialType::Dielectric, Vec3f(0.f), Vec3f(0.f), 1.f, eta),
                          nullptr, kNormal, Vec2f{});
  EXPECT_TRUE(b.isSpecular());
  for (float c : {0.9f, 0.4f, 0.1f, -0.9f, -0.7f}) {  // negative: from inside, under θc
    const Vec3f wo = directionAt(b, c, 0.7f);
    EXPECT_EQ(b.pdf(wo, -wo), 0.f);
    EXPECT_TRUE(isBlack(b.f(wo, reflect(wo, b.frame.n))));
    const float R = fresnelDielectric(c, eta);
    const float etap = c > 0 ? eta : 1.f / eta;
    constexpr int kN = 20000;
    double weight = 0, flux = 0;
    int reflected = 0;
    for (int i = 0; i < kN; ++i) {
      Sampler s = Sampler::at(uint32_t(i), 4, 0, 0);
      const float uc = s.next1D();
      BsdfSample bs;
      ASSERT_TRUE(b.sample(wo, uc, s.next2D(), &bs));
      ASSERT_TRUE(bs.specular);
      const float cosI = dot(bs.wi, b.frame.n);
      const float w = bs.f.x * std::fabs(cosI) / bs.pdf;
      if (cosI * c > 0) {  // reflection: mirror direction, weight 1
        ++reflected;
        const Vec3f m = reflect(wo, b.frame.n);
        ASSERT_NEAR(dot(bs.wi, m), 1.f, 1e-5f);
        ASSERT_NEAR(w, 1.f, 1e-5f);
        ASSERT_NEAR(bs.pdf, R, 1e-6f);
        flux += w;
      } else {  // refraction: radiance scaled by 1/etap²
        ASSERT_NEAR(w, 1.f / (etap * etap), 1e-5f);
        ASSERT_NEAR(bs.pdf, 1.f - R, 1e-6f);
        flux += w * etap * etap;
      }
      weight += w;
    }
    EXPECT_NEAR(reflected / double(kN), R, 0.01) << "cos " << c;
    EXPECT_NEAR(weight / kN, R + (1 - R) / (etap * etap), 0.01) << "cos " << c;
    EXPECT_NEAR(flux / kN, 1.0, 1e-5) << "energy: reflected + transmitted flux";
  }
}

TEST(Dielectric, TotalInternalReflectionAlwaysReflects) {
  const Bsdf b = makeBsdf(material(MaterialType::Dielectric, Vec3f(0.f), Vec3f(0.f), 1.f, 1.5f),
                          nullptr, Vec3f(0.f, 0.f, 1.f), Vec2f{});
  const Vec3f wo = normalize(Vec3f(0.9f, 0.1f, -0.3f));  // inside, beyond the critical angle
  for (float uc : {0.f, 0.5f, 0.999f}) {
    BsdfSample bs;
    ASSERT_TRUE(b.sample(wo, uc, Vec2f{0.3f, 0.3f}, &bs));
    EXPECT_LT(bs.wi.z, 0.f);
    EXPECT_NEAR(bs.f.x * std::fabs(bs.wi.z) / bs.pdf, 1.f, 1e-5f);
  }
}

TEST(Mirror, ReflectsTintedByKs) {
  const Vec3f ks(0.9f, 0.5f, 0.1f);
  const Bsdf b =
      makeBsdf(material(MaterialType::Mirror, Vec3f(0.f), ks, 1.f), nullptr, kNormal, Vec2f{});
  EXPECT_TRUE(b.isSpecular());
  for (float c : {1.f, 0.3f, -0.5f}) {
    const Vec3f wo = directionAt(b, c, 2.5f);
    BsdfSample bs;
    ASSERT_TRUE(b.sample(wo, 0.5f, Vec2f{0.5f, 0.5f}, &bs));
    EXPECT_TRUE(bs.specular);
    EXPECT_NEAR(dot(bs.wi, reflect(wo, b.frame.n)), 1.f, 1e-5f);
    const Vec3f w = bs.f * (absDot(bs.wi, b.frame.n) / bs.pdf);
    for (int ch = 0; ch < 3; ++ch) EXPECT_NEAR(w[ch], ks[ch], 1e-5f);
    EXPECT_EQ(b.pdf(wo, bs.wi), 0.f);
  }
  const Bsdf black = makeBsdf(material(MaterialType::Mirror, Vec3f(0.f), Vec3f(0.f), 1.f), nullptr,
                              kNormal, Vec2f{});
  BsdfSample bs;
  EXPECT_FALSE(black.sample(kNormal, 0.5f, Vec2f{0.5f, 0.5f}, &bs));
}

TEST(Bsdf, GrazingAndDegenerateDirectionsDoNotProduceNans) {
  for (MaterialType t : {MaterialType::Diffuse, MaterialType::Glossy, MaterialType::Dielectric,
                         MaterialType::Mirror}) {
    const Bsdf b = makeBsdf(material(t, Vec3f(0.5f), Vec3f(0.5f), 0.2f), nullptr,
                            Vec3f(0.f, 0.f, 2.f), Vec2f{});  // unnormalised normal
    const Vec3f tangent(1.f, 0.f, 0.f);
    BsdfSample bs;
    EXPECT_FALSE(b.sample(tangent, 0.5f, Vec2f{0.5f, 0.5f}, &bs));
    EXPECT_TRUE(isBlack(b.f(tangent, Vec3f(0.f, 0.f, 1.f))));
    EXPECT_EQ(b.pdf(tangent, Vec3f(0.f, 0.f, 1.f)), 0.f);
    for (float u : {0.f, 0.99999994f}) {
      const Vec3f wo = normalize(Vec3f(0.999f, 0.f, 0.001f));
      if (b.sample(wo, u, Vec2f{u, u}, &bs)) {
        EXPECT_TRUE(std::isfinite(bs.pdf) && bs.pdf > 0.f);
        EXPECT_TRUE(std::isfinite(bs.f.x) && std::isfinite(bs.wi.x));
      }
    }
  }
}

// ---- Materials and textures ----

TEST(Material, ToDeviceConvertsRoughnessAndValidates) {
  Material m;
  m.name = "shiny";
  m.type = MaterialType::Glossy;
  m.ns = 98.f;
  EXPECT_FLOAT_EQ(toDevice(m).alpha, std::sqrt(2.f / 100.f));
  m.ns = 0.f;
  EXPECT_FLOAT_EQ(toDevice(m).alpha, 1.f);
  m.ns = 1e9f;
  EXPECT_FLOAT_EQ(toDevice(m).alpha, kMinAlpha);
  m.ns = -1.f;
  EXPECT_THROW(toDevice(m), std::invalid_argument);
  m.ns = 10.f;
  m.kdTexture = 2;
  EXPECT_THROW(toDevice(std::vector<Material>{m}, 2), std::invalid_argument);
  EXPECT_EQ(toDevice(std::vector<Material>{m}, 3).at(0).kdTexture, 2);
  Material glass;
  glass.type = MaterialType::Dielectric;
  glass.ior = 0.f;
  EXPECT_THROW(toDevice(glass), std::invalid_argument);
  Material light;
  light.ke = Vec3f(-1.f, 0.f, 0.f);
  EXPECT_THROW(toDevice(light), std::invalid_argument);
  m.ns = -2.f;
  try {
    toDevice(m);
    ADD_FAILURE() << "negative Ns accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("shiny"), std::string::npos) << e.what();
  }
}

Texture checker2x2() {
  Texture t;
  t.path = "checker";
  t.width = 2, t.height = 2;
  t.texels = {Vec3f(1, 0, 0), Vec3f(0, 1, 0),   // top row (v = 1)
              Vec3f(0, 0, 1), Vec3f(1, 1, 1)};  // bottom row
  return t;
}

TEST(Texture, BilinearLookupWithWrapAndTopRowAtVOne) {
  const Texture t = checker2x2();
  const TextureView view{t.texels.data(), 2, 2};
  auto near = [](Vec3f a, Vec3f b) {
    return std::fabs(a.x - b.x) < 1e-5f && std::fabs(a.y - b.y) < 1e-5f &&
           std::fabs(a.z - b.z) < 1e-5f;
  };
  EXPECT_TRUE(near(lookup(view, Vec2f{0.25f, 0.75f}), Vec3f(1, 0, 0)));   // texel centre, top-left
  EXPECT_TRUE(near(lookup(view, Vec2f{0.75f, 0.25f}), Vec3f(1, 1, 1)));   // bottom-right
  EXPECT_TRUE(near(lookup(view, Vec2f{3.25f, -1.25f}), Vec3f(1, 0, 0)));  // wraps
  EXPECT_TRUE(near(lookup(view, Vec2f{0.5f, 0.75f}), Vec3f(0.5f, 0.5f, 0)));  // between
  // At u = 0 the left edge blends with the right column (wrap), not a clamp.
  EXPECT_TRUE(near(lookup(view, Vec2f{0.f, 0.75f}), Vec3f(0.5f, 0.5f, 0)));
  EXPECT_TRUE(near(lookup(TextureView{}, Vec2f{0.3f, 0.3f}), Vec3f(1.f)));  // empty: white
  const Vec3f nan = lookup(view, Vec2f{NAN, INFINITY});  // must not index out of bounds
  EXPECT_TRUE(std::isfinite(nan.x) && std::isfinite(nan.y) && std::isfinite(nan.z));
}

TEST(Texture, PackedViewsAndMakeBsdfTexturing) {
  Texture one = checker2x2();
  Texture single;
  single.width = 1, single.height = 1, single.texels = {Vec3f(0.5f, 0.25f, 1.f)};
  const PackedTextures packed = packTextures({one, single});
  ASSERT_EQ(packed.texels.size(), 5u);
  const auto views = makeTextureViews(packed, packed.texels.data());
  ASSERT_EQ(views.size(), 2u);
  EXPECT_EQ(views[1].texels, packed.texels.data() + 4);
  DeviceMaterial m = material(MaterialType::Diffuse, Vec3f(0.8f), Vec3f(0.f), 1.f);
  m.kdTexture = 1;
  const Bsdf b = makeBsdf(m, views.data(), kNormal, Vec2f{0.9f, 0.1f});
  EXPECT_NEAR(b.kd.x, 0.4f, 1e-6f);
  EXPECT_NEAR(b.kd.y, 0.2f, 1e-6f);
  EXPECT_NEAR(b.kd.z, 0.8f, 1e-6f);
  Texture bad = single;
  bad.texels.push_back(Vec3f(0.f));
  EXPECT_THROW(packTextures({bad}), std::invalid_argument);
  EXPECT_TRUE(packTextures({}).texels.empty());
}

}  // namespace
}  // namespace srt
