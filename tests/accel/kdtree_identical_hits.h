// Shared by the identical-hits tests (host and CUDA): the scenes, the million rays, and the
// bit-for-bit comparison of two sets of closest hits.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "renderer/accel/kdtree.h"
#include "tests/accel/kdtree_test_util.h"

namespace srt::test {

struct ClosestResult {
  Hit h;
  uint32_t hit;  // 1 when the ray hit
};

constexpr size_t kIdenticalHitsRays = 1000000;

inline std::vector<const char*> identicalHitsScenes() {
  return {"conference-room/conference.obj", "dabrovic-sponza/sponza.obj"};
}

// n rays, split evenly over every ray family of makeRays (inside, outside, axis-parallel,
// grazing, short), seeded.
inline std::vector<Ray> identicalHitsRays(const TestMesh& mesh, size_t n) {
  std::vector<Ray> rays;
  const size_t families = sizeof(kAllRayFamilies) / sizeof(kAllRayFamilies[0]);
  for (RayFamily f : kAllRayFamilies) {
    const std::vector<Ray> r = makeRays(mesh, f, n / families, 4242 + uint64_t(f));
    rays.insert(rays.end(), r.begin(), r.end());
  }
  return rays;
}

// Closest hits of every ray through `tree` on the host, in parallel.
inline std::vector<ClosestResult> traceOnHost(const KdTreeView& tree, const std::vector<Ray>& rays) {
  std::vector<ClosestResult> out(rays.size());
  const long n = long(rays.size());
#pragma omp parallel for schedule(dynamic, 256)
  for (long i = 0; i < n; ++i) {
    ClosestResult& r = out[size_t(i)];
    r.hit = intersectClosest(tree, rays[size_t(i)], &r.h);
  }
  return out;
}

inline bool sameBits(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// Rays whose results differ in hit, triangle or the bits of t, b1, b2; the first few are reported.
inline size_t countDifferences(const std::vector<Ray>& rays, const std::vector<ClosestResult>& a,
                               const std::vector<ClosestResult>& b, const char* nameA,
                               const char* nameB) {
  size_t bad = 0;
  for (size_t i = 0; i < rays.size(); ++i) {
    const ClosestResult &x = a[i], &y = b[i];
    const bool same =
        x.hit == y.hit && (!x.hit || (x.h.triangle == y.h.triangle && sameBits(x.h.t, y.h.t) &&
                                      sameBits(x.h.b1, y.h.b1) && sameBits(x.h.b2, y.h.b2)));
    if (same) continue;
    if (bad++ < 5)
      ADD_FAILURE() << "ray " << i << ": " << nameA << " " << describe(rays[i], x.hit, x.h) << " | "
                    << nameB << " " << describe(rays[i], y.hit, y.h);
  }
  return bad;
}

}  // namespace srt::test
