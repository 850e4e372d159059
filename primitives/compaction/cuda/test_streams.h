// Reproducible test streams for the compaction tests and benchmark: keep-flag patterns and field
// contents that the host can recompute element by element (integer arithmetic only, so host and
// device agree bit for bit). Word 0 of every element encodes its index, so an unordered output
// can be mapped back to the input and checked.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "primitives/common/enum_names.h"
#include "primitives/common/host_device.h"
#include "primitives/common/mix.h"

namespace srt::compaction::testing {

enum class FlagPattern {
  Uniform,  // each element kept independently with probability `ratio`
  Runs,     // runs of 512 elements kept or dropped together
  Blobs     // a 1024-wide image of value noise (64-pixel cells), thresholded: spatially coherent
            // blobs standing in for the bright pixels of an image (a synthetic one, not a render)
};
constexpr EnumNames<FlagPattern, 3> enumNames(FlagPattern) {
  return {{{{FlagPattern::Uniform, "uniform"}, {FlagPattern::Runs, "runs"},
            {FlagPattern::Blobs, "blobs"}}}};
}
using srt::toString;
FlagPattern parseFlagPattern(const std::string& name);  // throws naming the known patterns

struct FlagSpec {
  FlagPattern pattern = FlagPattern::Uniform;
  double ratio = 0.5;  // target kept fraction (Blobs only approximates it)
  uint32_t seed = 1;
  bool variedValues = false;  // kept flags take values 1..255 instead of 1
};

SRT_CPU_GPU inline uint32_t hash32(uint32_t x) {  // lowbias32 (Wellons)
  return xorShiftMultiply<uint32_t, 16, 0x7feb352du, 15, 0x846ca68bu, 16>(x);
}
SRT_CPU_GPU inline uint32_t hash32(uint32_t a, uint32_t b) {
  return hash32(a ^ hash32(b + 0x9e3779b9u));
}

// The flag rule in integer form: `threshold` is ratio scaled to 2^32 (Uniform, Runs) or to 2^28
// (Blobs), computed once on the host by flagThreshold().
SRT_CPU_GPU inline uint8_t flagAt(FlagPattern p, uint64_t threshold, uint32_t seed, bool varied,
                                  uint32_t i) {
  bool kept;
  if (p == FlagPattern::Uniform) {
    kept = hash32(i, seed) < threshold;
  } else if (p == FlagPattern::Runs) {
    kept = hash32(i >> 9, seed) < threshold;
  } else {
    const uint32_t x = i & 1023, y = i >> 10, cx = x >> 6, cy = y >> 6, fx = x & 63, fy = y & 63;
    auto lattice = [&](uint32_t u, uint32_t v) { return hash32(u * 0x10001u + v, seed) >> 16; };
    const uint32_t top = lattice(cx, cy) * (64 - fx) + lattice(cx + 1, cy) * fx;
    const uint32_t bottom = lattice(cx, cy + 1) * (64 - fx) + lattice(cx + 1, cy + 1) * fx;
    const uint32_t v = top * (64 - fy) + bottom * fy;  // < 2^28
    kept = uint64_t(v) + threshold >= (uint64_t(1) << 28);
  }
  if (!kept) return 0;
  return varied ? uint8_t(1 + hash32(i, seed ^ 0x5bd1e995u) % 255) : 1;
}

uint64_t flagThreshold(const FlagSpec& s);

// Word w of element i of field `field`: word 0 is the index masked per field, the rest hashed.
SRT_CPU_GPU inline uint32_t fieldMask(uint32_t field, uint32_t seed) {
  return hash32(field * 0x68e31da4u + 1, seed);
}
SRT_CPU_GPU inline uint32_t wordAt(uint32_t field, uint32_t seed, uint32_t i, uint32_t w) {
  return w == 0 ? i ^ fieldMask(field, seed) : hash32(i * 67u + w, seed + field);
}

// Device fills (asynchronous on `stream`).
void fillFlags(uint8_t* keep, uint32_t n, const FlagSpec& s, cudaStream_t stream = nullptr);
void fillField(void* dst, uint32_t n, uint32_t bytes, uint32_t field, uint32_t seed,
               cudaStream_t stream = nullptr);

}  // namespace srt::compaction::testing
