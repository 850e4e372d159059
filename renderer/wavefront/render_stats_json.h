// The JSON of a render's bounces and passes, written by --stats (one render: each stage time a
// number) and by `streamrt profile` (repeats: each a spread), so both name every field alike.
// Apart from render_stats.h so that CUDA sources, which include that, need not parse nlohmann.
#pragma once

#include <nlohmann/json.hpp>

#include "renderer/wavefront/render_stats.h"

namespace srt {

// A bounce's stage times as they are written.
struct BounceTimesJson {
  nlohmann::json compaction, transfer, trace, shade, shadow;
};
BounceTimesJson bounceTimesJson(const BounceStats& b);  // one render's: numbers

// `counts`' stage times are not read: `ms` gives them.
nlohmann::json bounceJson(size_t depth, const BounceStats& counts, const BounceTimesJson& ms);
nlohmann::json passJson(const IterationStats& pass);

}  // namespace srt
