// Materials as the device sees them: a POD copy of scenes/scene.h's Material with the roughness
// already converted, plus the host conversion.
#pragma once

#include <cstdint>
#include <vector>

#include "base/math.h"
#include "primitives/common/host_device.h"
#include "renderer/shading/texture.h"
#include "scenes/scene.h"

namespace srt {

struct DeviceMaterial {
  MaterialType type = MaterialType::Diffuse;
  Vec3f kd{0.8f, 0.8f, 0.8f};
  int kdTexture = -1;     // index into the TextureView array, -1: none
  int alphaTexture = -1;  // cut-out mask (MTL map_d), -1: opaque
  Vec3f ks{0.f, 0.f, 0.f};
  float alpha = 1.f;  // GGX roughness, sqrt(2 / (Ns + 2)), clamped to [kMinAlpha, 1]
  float ior = 1.5f;
  Vec3f ke{0.f, 0.f, 0.f};  // emitted radiance, the same from both sides
  int keTexture = -1;       // multiplies ke (MTL map_Ke), -1: none
  int bumpTexture = -1;     // heights (renderer/shading/normal_map.h), -1: none
  float bumpScale = 1.f;
  int normalTexture = -1;  // tangent-space normals, -1: none (takes precedence over bump)
};

// Below this GGX is numerically a mirror; the loader should have made such materials Mirror.
constexpr float kMinAlpha = 1e-3f;

SRT_CPU_GPU inline bool isEmissive(const DeviceMaterial& m) {
  return !isBlack(m.ke);
}

// Emitted radiance at texture coordinate uv.
SRT_CPU_GPU inline Vec3f emittedRadiance(const DeviceMaterial& m, const TextureView* textures,
                                         Vec2f uv) {
  return m.keTexture >= 0 ? m.ke * lookup(textures[m.keTexture], uv) : m.ke;
}

// Cut-outs (MTL map_d): the surface is absent where its mask reads below half of full scale in
// the file (8-bit 128, which the sRGB decoding of textures makes 0.214). A threshold rather than
// stochastic transparency: masks are binary at heart, and the bilinear lookup keeps edges smooth.
constexpr float kAlphaCutoff = 0.21404f;

SRT_CPU_GPU inline bool isCutOut(const DeviceMaterial& m, const TextureView* textures, Vec2f uv) {
  return m.alphaTexture >= 0 && lookup(textures[m.alphaTexture], uv).x < kAlphaCutoff;
}

// Throws std::invalid_argument naming the material for a Glossy one with negative Ns, a Dielectric
// one with Ni <= 0, or a negative Ke.
DeviceMaterial toDevice(const Material& m);
// Also checks every texture index (kd, alpha, ke, bump, normal) is -1 or < textureCount.
std::vector<DeviceMaterial> toDevice(const std::vector<Material>& materials, size_t textureCount);

}  // namespace srt
