// The self-contained HTML report of `streamrt profile`: settings, the image check, a summary table
// and inline SVG charts (svg_chart.h). No scripts, fonts or style sheets from elsewhere.
#pragma once

#include <string>

#include "apps/profile/profile_sweep.h"

namespace srt::profile {

std::string htmlReport(const Result& result);
// The report's style sheet (the comparison report shares it).
const char* reportStyle();
// A table cell's number with `digits` decimals, or "–" where it is not finite (not measured).
std::string fixed(double v, int digits);

}  // namespace srt::profile
