// Small helpers for render tests: image statistics and scenes built in code.
#pragma once

#include <cmath>

#include "renderer/render.h"
#include "scenes/loader.h"
#include "scenes/shapes.h"

namespace srt::test {

// A small render: every other option at its default.
inline RenderOptions options(int width, int height, int spp, int maxDepth = 8) {
  RenderOptions o;
  o.width = width, o.height = height, o.spp = spp, o.maxDepth = maxDepth;
  return o;
}

inline Vec3f meanOf(const Image& img) {
  double r = 0, g = 0, b = 0;
  for (const Vec3f& p : img.pixels) r += p.x, g += p.y, b += p.z;
  const double n = double(img.pixels.size());
  return Vec3f(float(r / n), float(g / n), float(b / n));
}

inline bool allFinite(const Image& img) {
  for (const Vec3f& p : img.pixels)
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) return false;
  return true;
}

inline bool bitIdentical(const Image& a, const Image& b) {
  if (a.width != b.width || a.height != b.height) return false;
  for (size_t i = 0; i < a.pixels.size(); ++i)
    if (!(a.pixels[i] == b.pixels[i])) return false;
  return true;
}

// Mean over blocks of `block`×`block` pixels, so two noisy renders compare by their local means.
inline std::vector<Vec3f> blockMeans(const Image& img, int block) {
  std::vector<Vec3f> out;
  for (int by = 0; by + block <= img.height; by += block)
    for (int bx = 0; bx + block <= img.width; bx += block) {
      Vec3f s(0.f);
      for (int y = by; y < by + block; ++y)
        for (int x = bx; x < bx + block; ++x) s += img.pixels[size_t(y) * img.width + x];
      out.push_back(s / float(block * block));
    }
  return out;
}

// pbrt-v4's analytic case: a diffuse sphere (Kd = 0.5) seen from its centre, lit by a point light
// of intensity π at the centre. Direct light is Kd/π · π / r² = 0.5 and each bounce halves it, so
// the radiance everywhere is 0.5 / (1 - 0.5) = 1.
inline Scene pointLightInSphere() {
  Scene s;
  s.name = "point-light-in-sphere";
  Material m;
  m.name = "half";
  m.kd = Vec3f(0.5f);
  s.materials.push_back(m);
  Mesh sphere = makeSphere(Vec3f(0.f), 1.f, 64, /*inwardNormals=*/true);
  sphere.materialIds.assign(sphere.triangleCount(), 0);
  s.meshes.push_back(std::move(sphere));
  s.instances.push_back({});
  s.pointLights.push_back({Vec3f(0.f), Vec3f(kPi)});
  Camera c;
  c.position = Vec3f(0.f);
  c.target = Vec3f(0.f, 0.f, -1.f);
  c.vfovDegrees = 60.f;
  s.camera = c;
  return s;
}

}  // namespace srt::test
