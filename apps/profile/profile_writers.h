// The machine-readable outputs of `streamrt profile`: JSON (everything) and CSV (per primitive:
// one row per bounce, one per pass over the path pool, and a "total" row).
#pragma once

#include <string>

#include "apps/profile/profile_sweep.h"

namespace srt::profile {

std::string profileJson(const Result& result);
std::string profileCsv(const Result& result);
// A CSV cell: a number in %.6g (empty when not finite), text quoted when it holds a comma, a
// quote or a newline. Shared by the profile's CSV and the comparison's.
std::string csvNumber(double v);
std::string csvField(const std::string& text);
// The CSV's first line, without the newline (tests check it).
extern const char* const kCsvHeader;

}  // namespace srt::profile
