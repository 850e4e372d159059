// The film as 64-bit fixed-point sums per channel. Integer addition is associative, so the image
// is the same bit for bit whatever order paths die in: across compaction primitives, schedules,
// pool sizes and backends' thread interleavings (float atomics would make it depend on all four).
#pragma once

#include <cstdint>

#include "primitives/common/host_device.h"
#include "base/math.h"

namespace srt {

// 24 fractional bits: a sample of radiance 0.5 is exactly 2^23, and rounding costs at most 2^-25,
// below float's own step near 1. The integer part keeps 39 bits: per-sample values are clamped to
// kFilmMaxSum / spp so a pixel's sum cannot overflow whatever the sample count.
constexpr double kFilmScale = 16777216.0;       // 2^24
constexpr double kFilmMaxSum = 549755813888.0;  // 2^39

struct FixedFilm {
  unsigned long long* rgb = nullptr;  // 3 per pixel
  float maxSample = 0.f;              // per-sample clamp: kFilmMaxSum / spp

  SRT_CPU_GPU static unsigned long long quantize(float v, float maxSample) {
    v = fminf(fmaxf(v, 0.f), maxSample);  // fmaxf drops NaN: a NaN sample adds nothing
    return (unsigned long long)(double(v) * kFilmScale + 0.5);
  }

  SRT_CPU_GPU void add(uint32_t pixel, const Vec3f& v) const {
    const unsigned long long q[3] = {quantize(v.x, maxSample), quantize(v.y, maxSample),
                                     quantize(v.z, maxSample)};
    for (int c = 0; c < 3; ++c) {
      if (!q[c]) continue;
#if SRT_IS_GPU_CODE
      atomicAdd(rgb + 3 * pixel + c, q[c]);
#else
#pragma omp atomic
      rgb[3 * pixel + c] += q[c];
#endif
    }
  }
};

}  // namespace srt
