// Counter-based sampler: every number is a pure function of (pixel, sample, bounce, seed,
// dimension), never of the thread or stream slot that computes it, so a path gives the same
// numbers whichever compaction reordered it, on the CPU and on the GPU (integer-only hashing, an
// exact integer -> float conversion: bit-identical on both).
#pragma once

#include <cstdint>

#include "base/math.h"
#include "primitives/common/host_device.h"
#include "primitives/common/mix.h"

namespace srt {

// SplitMix64's finaliser (Stafford's "Mix13"): a bijective 64-bit avalanche mix.
SRT_CPU_GPU SRT_INLINE uint64_t mixBits(uint64_t v) {
  return xorShiftMultiply<uint64_t, 30, 0xbf58476d1ce4e5b9ull, 27, 0x94d049bb133111ebull, 31>(v);
}

// The top 24 bits as a float in [0, 1): exact, so identical on every backend.
SRT_CPU_GPU SRT_INLINE float bitsToUnitFloat(uint64_t v) {
  return float(uint32_t(v >> 40)) * (1.0f / 16777216.0f);
}

// Suggested dimension layout, so separate wavefront stages of one bounce never reuse numbers:
// a stage recreates the sampler with Sampler::at(...) and setDimension(its first dimension).
struct SampleDims {
  static constexpr uint32_t kFilm = 0;       // 2D, bounce 0 only
  static constexpr uint32_t kLens = 2;       // 2D, bounce 0 only
  static constexpr uint32_t kLight = 4;      // 1D emitter choice + 2D point on it
  static constexpr uint32_t kBsdf = 7;       // 1D lobe choice + 2D direction
  static constexpr uint32_t kRoulette = 10;  // 1D Russian roulette
  static constexpr uint32_t kFree = 11;      // first dimension nobody above uses
};

struct Sampler {
  uint64_t key = 0;        // hash of (pixel, sample, bounce, seed)
  uint32_t dimension = 0;  // next dimension to hand out

  SRT_CPU_GPU static Sampler at(uint32_t pixel, uint32_t sample, uint32_t bounce, uint32_t seed) {
    Sampler s;
    // Two independent 64-bit words, each mixed, then mixed together: no two distinct inputs
    // share a key unless mixBits collides on the combination (it is bijective per word).
    const uint64_t a = mixBits((uint64_t(pixel) << 32) | sample);
    const uint64_t b = mixBits(((uint64_t(bounce) << 32) | seed) + 0x9e3779b97f4a7c15ull);
    s.key = mixBits(a ^ (b * 0xd1b54a32d192ed03ull + 0x632be59bd9b4e019ull));
    return s;
  }

  SRT_CPU_GPU void setDimension(uint32_t d) { dimension = d; }

  SRT_CPU_GPU float next1D() {
    const uint64_t v = mixBits(key + uint64_t(dimension) * 0x9e3779b97f4a7c15ull);
    ++dimension;
    return bitsToUnitFloat(v);
  }

  // x is dimension d, y is dimension d + 1 (two statements: the order is fixed).
  SRT_CPU_GPU Vec2f next2D() {
    Vec2f u;
    u.x = next1D();
    u.y = next1D();
    return u;
  }
};

}  // namespace srt
