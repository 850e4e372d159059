// Random inputs for the reduction tests, per value type. Mat2u values are unimodular shears
// ([[1 a][0 1]] or [[1 0][b 1]]), so long products never collapse to zero and stay order-sensitive.
#pragma once

#include <cmath>
#include <random>
#include <vector>

#include "primitives/reduction/operators.h"

namespace srt::reduction::test {

template <typename T>
std::vector<T> randomValues(size_t n, uint64_t seed);

template <>
inline std::vector<float> randomValues<float>(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}
template <>
inline std::vector<int> randomValues<int>(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int> v(n);
  for (int& x : v) x = int(rng() % 2001) - 1000;
  return v;
}
template <>
inline std::vector<Aabb> randomValues<Aabb>(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-100.f, 100.f), e(0.f, 2.f);
  std::vector<Aabb> v(n);
  for (Aabb& b : v)
    for (int k = 0; k < 3; ++k) {
      b.lo[k] = u(rng);
      b.hi[k] = b.lo[k] + e(rng);
    }
  return v;
}
template <>
inline std::vector<Mat2u> randomValues<Mat2u>(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Mat2u> v(n);
  for (Mat2u& m : v) {
    const uint32_t x = uint32_t(rng());
    m = (rng() & 1) ? Mat2u{1, x, 0, 1} : Mat2u{1, 0, x, 1};
  }
  return v;
}

// Exact for int, Aabb (min/max do not round) and Mat2u (wrapping integers): those carry the
// correctness checks. Float sums of up to a few million values in [0, 1) are compared within a
// relative 2e-4, a loose bound on the rounding of a sequential sum against a tree of sums.
inline bool close(float a, float b, size_t) {
  return std::fabs(a - b) <= 2e-4f * std::fmax(1.f, std::fabs(b));
}
inline bool close(int a, int b, size_t) {
  return a == b;
}
inline bool close(const Aabb& a, const Aabb& b, size_t) {
  return a == b;
}
inline bool close(const Mat2u& a, const Mat2u& b, size_t) {
  return a == b;
}

}  // namespace srt::reduction::test
