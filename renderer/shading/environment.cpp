// Host construction of the environment light: the texels and the 2D sampling distribution, and the
// piecewise-constant distribution's CDFs.
#include "renderer/shading/environment.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace srt {

namespace {

// CDF of `n` non-negative weights into out[0..n]; uniform when they sum to zero. Sums in double,
// so long rows of small weights keep their precision; out[n] is exactly 1.
double fillCdf(const float* weights, int n, float* out) {
  double total = 0.0;
  for (int i = 0; i < n; ++i) total += double(weights[i]);
  double run = 0.0;
  for (int i = 0; i < n; ++i) {
    out[i] = total > 0.0 ? float(run / total) : float(double(i) / double(n));
    run += double(weights[i]);
  }
  out[n] = 1.f;
  return total;
}

// Weights along one axis of the integral of a bilinear lookup over one texel's cell: the cell
// spans half of each neighbour's tent.
constexpr float kTent[3] = {0.125f, 0.75f, 0.125f};

// Luminance of the bilinear lookup integrated over each texel's cell (wrapping in u, clamped in
// v, as lookupEquirect reads), times sin(theta) at the cell's centre. Any cell where a lookup can
// be non-zero gets weight, so sampling reaches every direction the map lights. Without importance
// sampling only sin(theta) is left: directions uniform on the sphere.
std::vector<float> samplingWeights(const EnvironmentTable& t) {
  const int w = t.width, h = t.height;
  std::vector<float> lum(size_t(w) * size_t(h));
  for (size_t i = 0; i < lum.size(); ++i)
    lum[i] = t.importanceSampled ? luminance(t.texels[i]) : 1.f;
  std::vector<float> out(lum.size());
  for (int y = 0; y < h; ++y) {
    const float sinTheta = std::sin(kPi * (float(y) + 0.5f) / float(h));
    for (int x = 0; x < w; ++x) {
      double sum = 0.0;
      for (int dy = -1; dy <= 1; ++dy) {
        const int yy = y + dy < 0 ? 0 : (y + dy >= h ? h - 1 : y + dy);
        for (int dx = -1; dx <= 1; ++dx) {
          const int xx = (x + dx + w) % w;
          sum += double(kTent[dy + 1]) * kTent[dx + 1] * lum[size_t(yy) * w + xx];
        }
      }
      out[size_t(y) * w + x] = float(sum) * sinTheta;
    }
  }
  return out;
}

}  // namespace

Distribution2D buildDistribution2D(const std::vector<float>& func, int width, int height) {
  if (width <= 0 || height <= 0 || func.size() != size_t(width) * size_t(height))
    throw std::invalid_argument("buildDistribution2D: " + std::to_string(func.size()) +
                                " values for a " + std::to_string(width) + "x" +
                                std::to_string(height) + " grid");
  for (size_t i = 0; i < func.size(); ++i)
    if (!(func[i] >= 0.f) || !std::isfinite(func[i]))
      throw std::invalid_argument("buildDistribution2D: value " + std::to_string(i) +
                                  " is negative or not finite");
  Distribution2D d;
  d.width = width;
  d.height = height;
  d.conditionalCdf.resize(size_t(height) * size_t(width + 1));
  std::vector<float> rowSums(height);
  for (int y = 0; y < height; ++y)
    rowSums[y] = float(
        fillCdf(&func[size_t(y) * width], width, &d.conditionalCdf[size_t(y) * size_t(width + 1)]));
  d.marginalCdf.resize(size_t(height) + 1);
  fillCdf(rowSums.data(), height, d.marginalCdf.data());
  return d;
}

Distribution2DView hostView(const Distribution2D& d) {
  return {d.marginalCdf.data(), d.conditionalCdf.data(), d.width, d.height};
}

EnvironmentTable buildEnvironment(const EnvironmentMap& map) {
  const std::string name = "environment map '" + map.path + "'";
  const Image& img = map.image;
  if (img.width <= 0 || img.height <= 0 ||
      img.pixels.size() != size_t(img.width) * size_t(img.height))
    throw std::invalid_argument(name + ": " + std::to_string(img.pixels.size()) + " pixels for " +
                                std::to_string(img.width) + "x" + std::to_string(img.height));
  for (const Vec3f& p : img.pixels)
    if (!(p.x >= 0.f && p.y >= 0.f && p.z >= 0.f) || !std::isfinite(p.x) || !std::isfinite(p.y) ||
        !std::isfinite(p.z))
      throw std::invalid_argument(name + ": radiance must be finite and >= 0");
  if (!(map.scale >= 0.f) || !std::isfinite(map.scale))
    throw std::invalid_argument(name + ": scale must be finite and >= 0");
  if (!std::isfinite(map.rotationDegrees))
    throw std::invalid_argument(name + ": rotation must be finite");
  EnvironmentTable t;
  t.texels = img.pixels;
  t.width = img.width;
  t.height = img.height;
  t.scale = map.scale;
  t.importanceSampled = map.importanceSampled;
  const double turns = double(map.rotationDegrees) / 360.0;
  t.uOffset = float(turns - std::floor(turns));
  t.distribution = buildDistribution2D(samplingWeights(t), t.width, t.height);
  return t;
}

EnvironmentView makeEnvironmentView(const EnvironmentTable& t, const Vec3f* texels,
                                    const float* marginalCdf, const float* conditionalCdf) {
  EnvironmentView v;
  v.texels = texels;
  v.width = t.width;
  v.height = t.height;
  v.scale = t.scale;
  v.uOffset = t.uOffset;
  v.distribution = {marginalCdf, conditionalCdf, t.distribution.width, t.distribution.height};
  return v;
}

EnvironmentView hostView(const EnvironmentTable& t) {
  return makeEnvironmentView(t, t.texels.data(), t.distribution.marginalCdf.data(),
                             t.distribution.conditionalCdf.data());
}

}  // namespace srt
