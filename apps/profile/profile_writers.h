// The machine-readable outputs of `streamrt profile`: JSON (everything) and CSV (one row per
// primitive and bounce, plus a "total" row per primitive).
#pragma once

#include <string>

#include "apps/profile/profile_sweep.h"

namespace srt::profile {

std::string profileJson(const Result& result);
std::string profileCsv(const Result& result);
// The CSV's first line, without the newline (tests check it).
extern const char* const kCsvHeader;

}  // namespace srt::profile
