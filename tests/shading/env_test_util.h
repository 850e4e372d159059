// Environment maps made in code for the tests and the RMSE study: constant, one bright texel, and
// a synthetic sky (blue gradient, darker ground, a small very bright sun).
#pragma once

#include <cmath>
#include <string>

#include "base/image_io.h"
#include "base/math.h"
#include "scenes/scene.h"

namespace srt::test {

inline EnvironmentMap mapOf(Image image, const std::string& name) {
  EnvironmentMap m;
  m.path = name;
  m.image = std::move(image);
  return m;
}

inline Image constantImage(int w, int h, Vec3f value) {
  Image img(w, h);
  for (Vec3f& p : img.pixels) p = value;
  return img;
}

// Direction at the centre of texel (x, y) of a w × h map (no rotation): the inverse of
// directionToEquirect, written out so the tests do not lean on the code they test.
inline Vec3f texelCentreDirection(int x, int y, int w, int h) {
  const double theta = kPi * (y + 0.5) / h, phi = 2.0 * kPi * ((x + 0.5) / w - 0.5);
  return Vec3f(float(std::sin(theta) * std::sin(phi)), float(std::cos(theta)),
               float(-std::sin(theta) * std::cos(phi)));
}

// Elevation 40°, azimuth 30° from -z towards +x; sun radius 1.5° at radiance ~3000 gives about
// four times the sky's irradiance on a horizontal plane, as on a clear day. Maps too coarse for
// such a sun (texels of several degrees) take a larger one.
inline Image syntheticSky(int w, int h, float sunRadiusDegrees = 1.5f) {
  const double az = 30.0 * kPi / 180.0, el = 40.0 * kPi / 180.0;
  const Vec3f sun(float(std::cos(el) * std::sin(az)), float(std::sin(el)),
                  float(-std::cos(el) * std::cos(az)));
  const float cosSun = std::cos(sunRadiusDegrees * kPi / 180.f);
  Image img(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const Vec3f d = texelCentreDirection(x, y, w, h);
      Vec3f c =
          d.y < 0.f ? Vec3f(0.1f, 0.08f, 0.06f) : Vec3f(0.3f + 0.3f * d.y, 0.5f + 0.3f * d.y, 1.f);
      if (dot(d, sun) > cosSun) c = Vec3f(3000.f, 2800.f, 2500.f);
      img.at(x, y) = c;
    }
  return img;
}

}  // namespace srt::test
