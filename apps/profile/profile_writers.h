// The machine-readable outputs of `streamrt profile`: JSON (everything) and CSV (per primitive:
// one row per bounce, one per pass over the path pool, and a "total" row).
#pragma once

#include <string>

#include "apps/profile/profile_sweep.h"

namespace srt::profile {

std::string profileJson(const Result& result);
std::string profileCsv(const Result& result);
// The CSV's first line, without the newline (tests check it).
extern const char* const kCsvHeader;

}  // namespace srt::profile
