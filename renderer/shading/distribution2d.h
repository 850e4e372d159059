// A piecewise-constant density over [0,1)^2 on a width × height grid of cells (pbrt-v4's
// PiecewiseConstant2D): a marginal CDF over rows, then a CDF over the cells of the chosen row.
// Densities are the CDFs' own differences, so the density a sample is drawn with and the one
// distribution2DPdf reports agree to the bit (MIS needs both), and they integrate to exactly 1.
#pragma once

#include <cstddef>
#include <vector>

#include "base/math.h"
#include "primitives/common/host_device.h"

namespace srt {

struct Distribution2DView {
  const float* marginalCdf = nullptr;     // height + 1 entries, 0 ... 1
  const float* conditionalCdf = nullptr;  // height rows of width + 1 entries, 0 ... 1
  int width = 0, height = 0;
};

// Largest i in [0, n) with cdf[i] <= u, for cdf[0] = 0 <= u < cdf[n] = 1: cdf[i + 1] > u, so the
// cell found always has positive probability.
SRT_CPU_GPU inline int findCdfInterval(const float* cdf, int n, float u) {
  int lo = 0, hi = n;
  while (lo + 1 < hi) {
    const int mid = (lo + hi) / 2;
    if (cdf[mid] <= u)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

// A point in [0,1]^2 with density *pdf (per unit area of the square) from u in [0,1)^2.
SRT_CPU_GPU inline Vec2f sampleDistribution2D(const Distribution2DView& d, Vec2f u, float* pdf) {
  const int row = findCdfInterval(d.marginalCdf, d.height, u.y);
  const float m0 = d.marginalCdf[row], m1 = d.marginalCdf[row + 1];
  const float* c = d.conditionalCdf + size_t(row) * size_t(d.width + 1);
  const int col = findCdfInterval(c, d.width, u.x);
  const float c0 = c[col], c1 = c[col + 1];
  *pdf = (m1 - m0) * float(d.height) * (c1 - c0) * float(d.width);
  const float dv = fminf((u.y - m0) / (m1 - m0), 1.f);
  const float du = fminf((u.x - c0) / (c1 - c0), 1.f);
  return Vec2f{(float(col) + du) / float(d.width), (float(row) + dv) / float(d.height)};
}

// The density at p (outside [0,1)^2 clamps to the border cells).
SRT_CPU_GPU inline float distribution2DPdf(const Distribution2DView& d, Vec2f p) {
  int col = int(p.x * float(d.width)), row = int(p.y * float(d.height));
  col = col < 0 ? 0 : (col >= d.width ? d.width - 1 : col);
  row = row < 0 ? 0 : (row >= d.height ? d.height - 1 : row);
  const float* c = d.conditionalCdf + size_t(row) * size_t(d.width + 1);
  return (d.marginalCdf[row + 1] - d.marginalCdf[row]) * float(d.height) * (c[col + 1] - c[col]) *
         float(d.width);
}

// Host-built CDFs; the renderer copies them where the backend reads them.
struct Distribution2D {
  std::vector<float> marginalCdf, conditionalCdf;
  int width = 0, height = 0;
};

// `func` is row-major, width × height, finite and >= 0 (std::invalid_argument otherwise). A row
// (or the whole grid) that sums to zero is sampled uniformly, so sampling never fails.
Distribution2D buildDistribution2D(const std::vector<float>& func, int width, int height);
Distribution2DView hostView(const Distribution2D& d);

}  // namespace srt
