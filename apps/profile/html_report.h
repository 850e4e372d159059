// The self-contained HTML report of `streamrt profile`: settings, the image check, a summary table
// and inline SVG charts (svg_chart.h). No scripts, fonts or style sheets from elsewhere.
#pragma once

#include <string>

#include "apps/profile/profile_sweep.h"

namespace srt::profile {

std::string htmlReport(const Result& result);
// The report's style sheet (the comparison report shares it).
const char* reportStyle();

}  // namespace srt::profile
