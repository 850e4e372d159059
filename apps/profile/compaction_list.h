// The --compaction value of `streamrt profile`: a comma list of primitives, or `all`.
#pragma once

#include <string>
#include <vector>

#include "renderer/backend/backend.h"

namespace srt::profile {

// Splits "cpu,gl-roger:block=128,scan=blelloch,none" into {"cpu",
// "gl-roger:block=128,scan=blelloch", "none"}: a piece holding '=' but no ':' is one more option
// of the primitive before it. `all` stands for every registered primitive that accepts the
// backend's memory; `auto`, unless a primitive has that name, for the backend's default. Duplicates
// are dropped and `none` (the baseline of every speed-up) is appended when missing. Throws
// std::invalid_argument for an empty piece, or a spec the registry's check() refuses on the
// backend's memory (an unknown name or option, a primitive that cannot take that memory).
std::vector<std::string> parseCompactionList(const std::string& text, const Backend& backend);

}  // namespace srt::profile
