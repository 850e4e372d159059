// Median and spread of repeated renders: the numbers `streamrt profile` reports per primitive.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "renderer/wavefront/render_stats.h"

namespace srt::profile {

// Quartiles by linear interpolation between order statistics (R's type 7), so two samples give
// q1 and q3 between them; an empty sample gives NaN everywhere and count 0.
struct Spread {
  double median = NAN, min = NAN, max = NAN, q1 = NAN, q3 = NAN;
  size_t count = 0;
};
Spread spreadOf(std::vector<double> samples);

// One depth over the repeats: counts from the first run (the image, and so every count, is the
// same in every run), times as spreads over the runs that reached this depth.
struct BounceSummary {
  uint64_t raysIn = 0, lanes = 0, raysAlive = 0, shadowRays = 0, compactionBytes = 0;
  Spread compactionMs, transferMs, traceMs, shadeMs, shadowMs;
};

// One pass over the path pool: occupancy and bytes from the first run, stage times as spreads
// over the runs that reached this pass.
struct IterationSummary {
  IterationStats counts;  // lanes, alive, regenerated, idle, compactionBytes (times unused)
  Spread traceMs, shadeMs, shadowMs, compactionMs, regenerateMs, transferMs;
  Spread idleMs;  // device time between the previous pass's end and this one's start
};

struct PrimitiveSummary {
  Spread renderMs;  // the sample loop of each timed run
  // Each run's stage totals (stageTotals(): from the passes when there are any, else bounces).
  Spread compactionMs, transferMs, traceMs, shadeMs, shadowMs, regenerateMs, idleMs;
  uint64_t compactionBytes = 0;  // the first run's total
  double gbPerSecond = NAN;      // compactionBytes / median compaction time; NaN when either is 0
  // With the "regenerate" schedule a pass mixes depths and stage times exist only per pass; then
  // the per-bounce times are NaN (not measured), not 0.
  bool bounceTimes = false;
  std::vector<BounceSummary> bounces;
  std::vector<IterationSummary> iterations;
};

PrimitiveSummary summarize(const std::vector<RenderStats>& runs);

}  // namespace srt::profile
