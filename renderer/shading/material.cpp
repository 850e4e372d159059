// Host conversion of scene materials and textures into their device forms.
#include <cmath>
#include <stdexcept>
#include <string>

#include "renderer/shading/material.h"
#include "renderer/shading/texture.h"

namespace srt {

namespace {

std::string describe(const Material& m) {
  return "material '" + m.name + "'";
}

bool finiteNonNegative(Vec3f v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z) && v.x >= 0.f &&
         v.y >= 0.f && v.z >= 0.f;
}

// A material's texture slots, each the same index in both forms: checked against the scene's
// textures and copied, slot by slot.
struct TextureSlot {
  const char* name;
  int Material::*host;
  int DeviceMaterial::*device;
};
constexpr TextureSlot kTextureSlots[] = {
    {"kdTexture", &Material::kdTexture, &DeviceMaterial::kdTexture},
    {"alphaTexture", &Material::alphaTexture, &DeviceMaterial::alphaTexture},
    {"keTexture", &Material::keTexture, &DeviceMaterial::keTexture},
    {"bumpTexture", &Material::bumpTexture, &DeviceMaterial::bumpTexture},
    {"normalTexture", &Material::normalTexture, &DeviceMaterial::normalTexture}};

}  // namespace

DeviceMaterial toDevice(const Material& m) {
  if (m.type == MaterialType::Glossy && !(m.ns >= 0.f))
    throw std::invalid_argument(describe(m) + ": Glossy needs Ns >= 0, got " +
                                std::to_string(m.ns));
  if (m.type == MaterialType::Dielectric && !(m.ior > 0.f && std::isfinite(m.ior)))
    throw std::invalid_argument(describe(m) + ": Dielectric needs Ni > 0, got " +
                                std::to_string(m.ior));
  if (!finiteNonNegative(m.ke))
    throw std::invalid_argument(describe(m) + ": Ke must be finite and >= 0");
  DeviceMaterial d;
  d.type = m.type;
  d.kd = m.kd;
  d.ks = m.ks;
  for (const TextureSlot& t : kTextureSlots) d.*t.device = m.*t.host;
  d.bumpScale = std::isfinite(m.bumpScale) ? m.bumpScale : 1.f;
  const float ns = m.ns >= 0.f ? m.ns : 0.f;
  d.alpha = std::fmin(1.f, std::fmax(kMinAlpha, std::sqrt(2.f / (ns + 2.f))));
  d.ior = m.ior;
  d.ke = m.ke;
  return d;
}

std::vector<DeviceMaterial> toDevice(const std::vector<Material>& materials, size_t textureCount) {
  std::vector<DeviceMaterial> out;
  out.reserve(materials.size());
  for (size_t i = 0; i < materials.size(); ++i) {
    const Material& m = materials[i];
    for (const TextureSlot& t : kTextureSlots) {
      const int index = m.*t.host;
      if (index < -1 || (index >= 0 && size_t(index) >= textureCount))
        throw std::invalid_argument(describe(m) + " (index " + std::to_string(i) + "): " + t.name +
                                    " " + std::to_string(index) + " out of range, the scene has " +
                                    std::to_string(textureCount) + " textures");
    }
    out.push_back(toDevice(m));
  }
  return out;
}

PackedTextures packTextures(const std::vector<Texture>& textures) {
  PackedTextures p;
  size_t total = 0;
  for (const Texture& t : textures) {
    if (t.width < 0 || t.height < 0 || t.texels.size() != size_t(t.width) * size_t(t.height))
      throw std::invalid_argument("texture '" + t.path + "': " + std::to_string(t.texels.size()) +
                                  " texels for " + std::to_string(t.width) + "x" +
                                  std::to_string(t.height));
    total += t.texels.size();
  }
  p.texels.reserve(total);
  for (const Texture& t : textures) {
    p.offsets.push_back(p.texels.size());
    p.widths.push_back(t.width);
    p.heights.push_back(t.height);
    p.texels.insert(p.texels.end(), t.texels.begin(), t.texels.end());
  }
  return p;
}

std::vector<TextureView> makeTextureViews(const PackedTextures& packed, const Vec3f* texelBase) {
  std::vector<TextureView> views(packed.offsets.size());
  for (size_t i = 0; i < views.size(); ++i) {
    const bool empty = packed.widths[i] == 0 || packed.heights[i] == 0;
    views[i].texels = empty ? nullptr : texelBase + packed.offsets[i];
    views[i].width = packed.widths[i];
    views[i].height = packed.heights[i];
  }
  return views;
}

}  // namespace srt
