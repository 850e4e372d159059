// Camera rays: pinhole and thin lens, with the pixel position jittered by the path's sampler.
#pragma once

#include <cmath>

#include "base/math.h"
#include "renderer/shading/rng.h"
#include "scenes/scene.h"

namespace srt {

struct CameraView {
  Vec3f position, forward, right, up;
  float tanHalfFov = 0.f, aspect = 1.f;
  float lensRadius = 0.f, focusDistance = 1.f;
  int width = 1, height = 1;

  static CameraView from(const Camera& c, int width, int height) {
    CameraView v;
    v.position = c.position;
    v.forward = normalize(c.target - c.position);
    v.right = normalize(cross(v.forward, c.up));
    v.up = cross(v.right, v.forward);
    v.tanHalfFov = std::tan(0.5f * c.vfovDegrees * kPi / 180.f);
    v.aspect = float(width) / float(height);
    v.lensRadius = c.lensRadius;
    v.focusDistance = c.focusDistance > 0.f ? c.focusDistance : length(c.target - c.position);
    v.width = width;
    v.height = height;
    return v;
  }

  // pixelJitter and lens in [0,1)^2. Row 0 is the top of the image.
  SRT_CPU_GPU Ray generate(uint32_t pixel, Vec2f pixelJitter, Vec2f lens) const {
    const float px = float(pixel % uint32_t(width)) + pixelJitter.x;
    const float py = float(pixel / uint32_t(width)) + pixelJitter.y;
    const float sx = (2.f * px / float(width) - 1.f) * aspect * tanHalfFov;
    const float sy = (1.f - 2.f * py / float(height)) * tanHalfFov;
    Vec3f d = normalize(forward + right * sx + up * sy);
    Ray r;
    r.o = position;
    if (lensRadius > 0.f) {
      // Concentric disk sample on the lens; every ray through the pixel meets at the focus plane.
      const float ux = 2.f * lens.x - 1.f, uy = 2.f * lens.y - 1.f;
      float rad = 0.f, theta = 0.f;
      if (ux != 0.f || uy != 0.f) {
        if (fabsf(ux) > fabsf(uy))
          rad = ux, theta = 0.25f * kPi * (uy / ux);
        else
          rad = uy, theta = 0.5f * kPi - 0.25f * kPi * (ux / uy);
      }
      const Vec3f focus = position + d * (focusDistance / dot(d, forward));
      r.o = position + right * (lensRadius * rad * cosf(theta)) +
            up * (lensRadius * rad * sinf(theta));
      d = normalize(focus - r.o);
    }
    r.d = d;
    r.tMax = kInf;
    return r;
  }
};

// The camera ray of a pixel's sample: jitter and lens position from bounce 0 of its sampler.
SRT_CPU_GPU inline Ray cameraRay(const CameraView& camera, uint32_t pixel, uint32_t sample,
                                 uint32_t seed) {
  Sampler sampler = Sampler::at(pixel, sample, 0, seed);
  const Vec2f jitter = sampler.next2D();
  const Vec2f lens = sampler.next2D();
  return camera.generate(pixel, jitter, lens);
}

}  // namespace srt
