#include "apps/profile/profile_stats.h"

#include <algorithm>

namespace srt::profile {
namespace {

double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * double(sorted.size() - 1);
  const size_t lo = size_t(std::floor(pos)), hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - double(lo));
}

// The spread of one per-depth (or per-pass) quantity over the runs that have that depth.
template <typename Item, typename Get>
Spread spreadAt(const std::vector<RenderStats>& runs, size_t index,
                const std::vector<Item> RenderStats::*items, Get get) {
  std::vector<double> v;
  for (const RenderStats& r : runs)
    if (index < (r.*items).size()) v.push_back(get((r.*items)[index]));
  return spreadOf(std::move(v));
}

}  // namespace

Spread spreadOf(std::vector<double> samples) {
  Spread s;
  samples.erase(
      std::remove_if(samples.begin(), samples.end(), [](double v) { return !std::isfinite(v); }),
      samples.end());
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.count = samples.size();
  s.min = samples.front();
  s.max = samples.back();
  s.median = quantile(samples, 0.5);
  s.q1 = quantile(samples, 0.25);
  s.q3 = quantile(samples, 0.75);
  return s;
}

PrimitiveSummary summarize(const std::vector<RenderStats>& runs) {
  PrimitiveSummary p;
  if (runs.empty()) return p;
  std::vector<double> render, compaction, transfer, trace, shade, shadow, regenerate, idle;
  size_t depths = 0, passes = 0;
  for (const RenderStats& r : runs) {
    render.push_back(r.renderSeconds * 1e3);
    const StageTotals t = stageTotals(r);
    compaction.push_back(t.compactionMs), transfer.push_back(t.transferMs);
    trace.push_back(t.traceMs), shade.push_back(t.shadeMs), shadow.push_back(t.shadowMs);
    regenerate.push_back(t.regenerateMs);
    idle.push_back(t.idleMs);
    depths = std::max(depths, r.bounces.size());
    passes = std::max(passes, r.iterations.size());
    for (const BounceStats& b : r.bounces)
      p.bounceTimes = p.bounceTimes || b.traceMs > 0 || b.shadeMs > 0 || b.compactionMs > 0;
  }
  p.renderMs = spreadOf(render);
  p.compactionMs = spreadOf(compaction), p.transferMs = spreadOf(transfer);
  p.traceMs = spreadOf(trace), p.shadeMs = spreadOf(shade), p.shadowMs = spreadOf(shadow);
  p.regenerateMs = spreadOf(regenerate);
  p.idleMs = spreadOf(idle);
  p.compactionBytes = stageTotals(runs.front()).compactionBytes;

  const RenderStats& first = runs.front();
  for (size_t d = 0; d < depths; ++d) {
    BounceSummary b;
    if (d < first.bounces.size()) {
      const BounceStats& f = first.bounces[d];
      b.raysIn = f.raysIn, b.lanes = f.lanes, b.raysAlive = f.raysAlive;
      b.shadowRays = f.shadowRays, b.compactionBytes = f.compactionBytes;
    }
    const auto at = [&](double BounceStats::*field) {
      return spreadAt(runs, d, &RenderStats::bounces,
                      [field](const BounceStats& s) { return s.*field; });
    };
    if (p.bounceTimes) {
      b.compactionMs = at(&BounceStats::compactionMs);
      b.transferMs = at(&BounceStats::transferMs);
      b.traceMs = at(&BounceStats::traceMs);
      b.shadeMs = at(&BounceStats::shadeMs);
      b.shadowMs = at(&BounceStats::shadowMs);
    }
    p.bounces.push_back(b);
  }
  for (size_t i = 0; i < passes; ++i) {
    IterationSummary it;
    if (i < first.iterations.size()) it.counts = first.iterations[i];
    const auto at = [&](double IterationStats::*field) {
      return spreadAt(runs, i, &RenderStats::iterations,
                      [field](const IterationStats& s) { return s.*field; });
    };
    it.traceMs = at(&IterationStats::traceMs);
    it.shadeMs = at(&IterationStats::shadeMs);
    it.shadowMs = at(&IterationStats::shadowMs);
    it.compactionMs = at(&IterationStats::compactionMs);
    it.regenerateMs = at(&IterationStats::regenerateMs);
    it.transferMs = at(&IterationStats::transferMs);
    it.idleMs = at(&IterationStats::idleMs);
    p.iterations.push_back(it);
  }
  if (p.compactionBytes > 0 && p.compactionMs.median > 0)
    p.gbPerSecond = double(p.compactionBytes) / (p.compactionMs.median * 1e6);
  return p;
}

}  // namespace srt::profile
