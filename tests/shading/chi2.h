// Pearson's χ² goodness-of-fit test as pbrt-v4 and Mitsuba use it for sampling routines: bins
// whose expected count is below a floor are pooled, a bin with observations where the density
// says none can land fails outright, and the p-value comes from the χ² CDF.
#pragma once

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

namespace srt::test {

// Regularised lower incomplete gamma P(a, x) (Numerical Recipes' gser / gcf).
inline double incompleteGammaP(double a, double x) {
  if (x <= 0.0) return 0.0;
  const double lnPrefix = -x + a * std::log(x) - std::lgamma(a);
  if (x < a + 1.0) {
    double sum = 1.0 / a, term = sum, ap = a;
    for (int n = 0; n < 10000; ++n) {
      ap += 1.0;
      term *= x / ap;
      sum += term;
      if (std::fabs(term) < std::fabs(sum) * 1e-15) break;
    }
    return sum * std::exp(lnPrefix);
  }
  // Continued fraction for Q(a, x) by the modified Lentz method.
  const double tiny = 1e-300;
  double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
  for (int i = 1; i < 10000; ++i) {
    const double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1.0) < 1e-15) break;
  }
  return 1.0 - std::exp(lnPrefix) * h;
}

inline double chi2Cdf(double x, int dof) {
  return incompleteGammaP(0.5 * dof, 0.5 * x);
}

struct Chi2Result {
  double pValue = 0.0;
  int dof = 0;
  std::string failure;  // non-empty when the test failed before computing a p-value
};

inline Chi2Result chi2Test(const std::vector<double>& observed, const std::vector<double>& expected,
                           double minExpected = 5.0) {
  Chi2Result r;
  std::vector<size_t> order(observed.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return expected[a] < expected[b]; });
  double pooledObs = 0, pooledExp = 0, chsq = 0;
  int pooledBins = 0, bins = 0;
  for (size_t i : order) {
    if (expected[i] <= 0.0) {
      if (observed[i] > 0.0) {
        r.failure = "bin " + std::to_string(i) + " has " + std::to_string(observed[i]) +
                    " samples where the pdf integrates to 0";
        return r;
      }
      continue;
    }
    if (expected[i] < minExpected) {
      pooledObs += observed[i];
      pooledExp += expected[i];
      ++pooledBins;
    } else if (pooledExp > 0 && pooledExp < minExpected) {
      // Pool into this bin while the pool is still too small on its own.
      pooledObs += observed[i];
      pooledExp += expected[i];
      ++pooledBins;
    } else {
      const double d = observed[i] - expected[i];
      chsq += d * d / expected[i];
      ++bins;
    }
  }
  if (pooledExp > 0) {
    const double d = pooledObs - pooledExp;
    chsq += d * d / pooledExp;
    ++bins;
  }
  r.dof = bins - 1;
  if (r.dof <= 0) {
    r.failure = "too few bins with enough expected samples";
    return r;
  }
  r.pValue = 1.0 - chi2Cdf(chsq, r.dof);
  return r;
}

// Šidák-corrected per-test significance so that `tests` tests together keep `alpha`.
inline double sidak(double alpha, int tests) {
  return 1.0 - std::pow(1.0 - alpha, 1.0 / tests);
}

// Composite Simpson's rule over [x0,x1] x [y0,y1] with n (even) intervals per axis.
template <typename F>
double simpson2D(F f, double x0, double x1, double y0, double y1, int n) {
  const double hx = (x1 - x0) / n, hy = (y1 - y0) / n;
  double sum = 0;
  for (int i = 0; i <= n; ++i) {
    const double wx = (i == 0 || i == n) ? 1 : (i % 2 ? 4 : 2);
    for (int j = 0; j <= n; ++j) {
      const double wy = (j == 0 || j == n) ? 1 : (j % 2 ? 4 : 2);
      sum += wx * wy * f(x0 + i * hx, y0 + j * hy);
    }
  }
  return sum * hx * hy / 9.0;
}

}  // namespace srt::test
