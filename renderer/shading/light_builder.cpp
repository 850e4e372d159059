// Host construction of the emitter table: which triangles emit, and the power CDF over them.
#include <cmath>
#include <stdexcept>
#include <string>

#include "renderer/shading/lights.h"

namespace srt {

namespace {

// Mean of an emission map over triangle t: 16 lookups at the centres of a 4×4 stratification of
// the unit square warped onto the triangle (uniform in area).
float meanOverTriangle(const TextureView& tex, const FlatGeometry& g, size_t t) {
  const Vec2f a = g.uvs[g.indices[3 * t]], b = g.uvs[g.indices[3 * t + 1]],
              c = g.uvs[g.indices[3 * t + 2]];
  double sum = 0.0;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const Vec3f w = sampleUniformTriangle(Vec2f{(i + 0.5f) / 4.f, (j + 0.5f) / 4.f});
      const Vec2f uv{a.x * w.x + b.x * w.y + c.x * w.z, a.y * w.x + b.y * w.y + c.y * w.z};
      sum += luminance(lookup(tex, uv));
    }
  return float(sum / 16.0);
}

}  // namespace

EmitterTable buildEmitters(const FlatGeometry& g, const std::vector<Material>& materials,
                           const std::vector<Texture>* textures) {
  PackedTextures packed;
  std::vector<TextureView> views;
  const bool maps = textures && g.uvs.size() == g.positions.size();
  if (maps) {
    packed = packTextures(*textures);
    views = makeTextureViews(packed, packed.texels.data());
  }
  const size_t nTri = g.triangleCount();
  if (g.indices.size() != 3 * nTri)
    throw std::invalid_argument("buildEmitters: " + std::to_string(g.indices.size()) +
                                " indices is not a multiple of 3");
  if (g.materialIds.size() != nTri)
    throw std::invalid_argument("buildEmitters: " + std::to_string(g.materialIds.size()) +
                                " material ids for " + std::to_string(nTri) + " triangles");
  EmitterTable table;
  table.triangleToEmitter.assign(nTri, -1);
  std::vector<double> power;
  for (size_t t = 0; t < nTri; ++t) {
    const uint32_t mid = g.materialIds[t];
    if (mid >= materials.size())
      throw std::invalid_argument("buildEmitters: triangle " + std::to_string(t) +
                                  " has material id " + std::to_string(mid) + " but there are " +
                                  std::to_string(materials.size()) + " materials");
    const Vec3f ke = materials[mid].ke;
    if (!(std::isfinite(ke.x) && std::isfinite(ke.y) && std::isfinite(ke.z)) || ke.x < 0.f ||
        ke.y < 0.f || ke.z < 0.f)
      throw std::invalid_argument("buildEmitters: material '" + materials[mid].name +
                                  "' has a negative or non-finite Ke");
    if (!(luminance(ke) > 0.f)) continue;
    uint32_t v[3];
    for (int k = 0; k < 3; ++k) {
      v[k] = g.indices[3 * t + k];
      if (v[k] >= g.positions.size())
        throw std::invalid_argument("buildEmitters: triangle " + std::to_string(t) +
                                    " has vertex index " + std::to_string(v[k]) +
                                    " but there are " + std::to_string(g.positions.size()) +
                                    " positions");
    }
    // The same float expression as the device code uses, so pdfs agree to the bit.
    const float area = triangleArea(g.positions[v[0]], g.positions[v[1]], g.positions[v[2]]);
    if (!(area > 0.f) || !std::isfinite(area)) continue;
    double scale = 1.0;
    const int tex = materials[mid].keTexture;
    const bool mapped = maps && tex >= 0 && size_t(tex) < views.size();
    if (mapped) scale = meanOverTriangle(views[tex], g, t);
    if (!(scale > 0.0)) continue;  // black under its map: BSDF sampling alone finds it
    table.triangleToEmitter[t] = int32_t(table.triangles.size());
    table.triangles.push_back(uint32_t(t));
    table.radiance.push_back(ke);
    table.areas.push_back(area);
    table.keTextures.push_back(mapped ? tex : -1);
    power.push_back(double(area) * double(luminance(ke)) * scale);
  }
  bool anyMap = false;
  for (int32_t tex : table.keTextures) anyMap = anyMap || tex >= 0;
  if (!anyMap) table.keTextures.clear();
  const size_t n = table.triangles.size();
  double total = 0.0;
  for (double p : power) total += p;
  table.totalPower = total;
  table.cdf.resize(n + 1);
  table.pmf.resize(n);
  double run = 0.0;
  for (size_t e = 0; e < n; ++e) {
    table.cdf[e] = float(run / total);
    run += power[e];
  }
  if (n > 0)
    table.cdf[n] = 1.f;
  else
    table.cdf[0] = 0.f;
  // pmf is the CDF's own spacing: exactly how often the binary search lands on e.
  for (size_t e = 0; e < n; ++e) table.pmf[e] = table.cdf[e + 1] - table.cdf[e];
  return table;
}

EmitterView hostView(const EmitterTable& t) {
  EmitterView v;
  v.triangles = t.triangles.data();
  v.radiance = t.radiance.data();
  v.areas = t.areas.data();
  v.cdf = t.cdf.data();
  v.pmf = t.pmf.data();
  v.triangleToEmitter = t.triangleToEmitter.data();
  v.keTextures = t.keTextures.empty() ? nullptr : t.keTextures.data();  // uvs, textures: caller's
  v.count = uint32_t(t.triangles.size());
  v.triangleCount = uint32_t(t.triangleToEmitter.size());
  return v;
}

}  // namespace srt
