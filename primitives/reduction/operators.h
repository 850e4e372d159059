// Value types and associative operators the reductions are instantiated for. An operator is a
// functor `T operator()(const T& a, const T& b)` (associative, not assumed commutative: a is the
// earlier element) with `static T identity()`. Callable on the CPU (the reference) and the GPU.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdint>

#include "primitives/common/host_device.h"

namespace srt::reduction {

// Axis-aligned box as six floats with the layout and empty value of base/math.h Bounds3f
// (lo then hi; empty = +inf/-inf), so a kd-tree builder can pass its per-triangle bounds as is.
struct Aabb {
  float lo[3];
  float hi[3];
};

// 2x2 matrix of wrapping 32-bit integers: associative exactly (arithmetic mod 2^32) and not
// commutative, so a test compares GPU and CPU bit for bit and any reordering shows up.
struct Mat2u {
  uint32_t a, b, c, d;  // [[a b] [c d]]
};

SRT_CPU_GPU inline bool operator==(const Mat2u& x, const Mat2u& y) {
  return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d;
}
SRT_CPU_GPU inline bool operator==(const Aabb& x, const Aabb& y) {
  for (int k = 0; k < 3; ++k)
    if (x.lo[k] != y.lo[k] || x.hi[k] != y.hi[k]) return false;
  return true;
}

template <typename T>
struct Sum {
  SRT_CPU_GPU SRT_INLINE T operator()(const T& a, const T& b) const { return a + b; }
  SRT_CPU_GPU SRT_INLINE static T identity() { return T(0); }
  static constexpr const char* kName = "sum";
};

struct AabbUnion {
  SRT_CPU_GPU SRT_INLINE Aabb operator()(const Aabb& a, const Aabb& b) const {
    Aabb r;
    for (int k = 0; k < 3; ++k) {
      r.lo[k] = fminf(a.lo[k], b.lo[k]);
      r.hi[k] = fmaxf(a.hi[k], b.hi[k]);
    }
    return r;
  }
  SRT_CPU_GPU SRT_INLINE static Aabb identity() {
    return Aabb{{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
  }
  static constexpr const char* kName = "union";
};

// Matrix product a*b: (a*b)*c == a*(b*c) exactly in wrapping arithmetic, a*b != b*a in general.
struct Mat2Product {
  SRT_CPU_GPU SRT_INLINE Mat2u operator()(const Mat2u& x, const Mat2u& y) const {
    return Mat2u{x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c,
                 x.c * y.b + x.d * y.d};
  }
  SRT_CPU_GPU SRT_INLINE static Mat2u identity() { return Mat2u{1, 0, 0, 1}; }
  static constexpr const char* kName = "product";
};

}  // namespace srt::reduction
