// Textures as the device sees them: plain views of linear RGB texels, looked up bilinearly with
// wrap-around. Host helpers pack Scene::textures into one texel array the renderer uploads once.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "primitives/common/host_device.h"
#include "base/math.h"

namespace srt {

struct Texture;

// Row 0 is the top of the image (v = 1), as in Scene's Texture.
struct TextureView {
  const Vec3f* texels = nullptr;
  int width = 0, height = 0;
};

SRT_CPU_GPU inline int wrapIndex(int i, int n) {
  const int r = i % n;
  return r < 0 ? r + n : r;
}

// Bilinear lookup with texel centres at half-integers and repeat wrap in both directions. An empty
// view reads as white, so a missing texture leaves kd unchanged.
SRT_CPU_GPU inline Vec3f lookup(const TextureView& t, Vec2f uv) {
  if (t.texels == nullptr || t.width <= 0 || t.height <= 0) return Vec3f(1.f);
  // Reduce to [0,1) first so huge uvs keep their fractional precision.
  float u = uv.x - floorf(uv.x);
  float v = uv.y - floorf(uv.y);
  if (!(u >= 0.f && u <= 1.f)) u = 0.f;  // NaN / infinite uvs: any texel, but no bad index
  if (!(v >= 0.f && v <= 1.f)) v = 0.f;
  const float x = u * t.width - 0.5f;
  const float y = (1.f - v) * t.height - 0.5f;
  const float x0f = floorf(x), y0f = floorf(y);
  const float fx = x - x0f, fy = y - y0f;
  const int x0 = wrapIndex(int(x0f), t.width), x1 = wrapIndex(int(x0f) + 1, t.width);
  const int y0 = wrapIndex(int(y0f), t.height), y1 = wrapIndex(int(y0f) + 1, t.height);
  const Vec3f a = t.texels[y0 * t.width + x0], b = t.texels[y0 * t.width + x1];
  const Vec3f c = t.texels[y1 * t.width + x0], d = t.texels[y1 * t.width + x1];
  return lerp(fy, lerp(fx, a, b), lerp(fx, c, d));
}

// All textures' texels back to back; views are made against wherever that array lives.
struct PackedTextures {
  std::vector<Vec3f> texels;
  std::vector<size_t> offsets;  // first texel of texture i
  std::vector<int> widths, heights;
};

// Throws std::invalid_argument naming the texture when texels.size() != width * height.
PackedTextures packTextures(const std::vector<Texture>& textures);
// One view per texture, pointing into `texelBase` (host data() or a device Buffer's data()).
std::vector<TextureView> makeTextureViews(const PackedTextures& packed, const Vec3f* texelBase);

}  // namespace srt
