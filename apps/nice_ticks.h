// Round axis ticks and short tick labels, shared by the profile's SVG charts and the viewer's
// plots.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace srt {

// Tick values 0, step, 2 step, ... up to the first tick >= max, with step 1, 2 or 5 times a power
// of ten: at most `target` + 1 ticks; max <= 0 or not finite gives {0, 1}.
inline std::vector<double> niceTicks(double max, int target) {
  if (!(max > 0) || !std::isfinite(max)) return {0, 1};
  const double raw = max / std::max(target, 1);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / magnitude;
  const double step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * magnitude;
  std::vector<double> ticks{0};
  while (ticks.back() < max * (1 - 1e-9)) ticks.push_back(step * double(ticks.size()));
  return ticks;
}

// A short label: 3.4k, 5.6M, 7.8G (three significant digits); below `thousandsFrom`, the plain
// number with `plainDigits` significant digits.
inline std::string shortNumber(double v, double thousandsFrom, int plainDigits) {
  char b[32];
  const double a = std::fabs(v);
  if (a >= 1e9)
    std::snprintf(b, sizeof b, "%.3gG", v / 1e9);
  else if (a >= 1e6)
    std::snprintf(b, sizeof b, "%.3gM", v / 1e6);
  else if (a >= thousandsFrom)
    std::snprintf(b, sizeof b, "%.3gk", v / 1e3);
  else
    std::snprintf(b, sizeof b, "%.*g", plainDigits, v);
  return b;
}

}  // namespace srt
