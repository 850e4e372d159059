#include "apps/profile/profile_writers.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "renderer/wavefront/render_stats_json.h"

namespace srt::profile {

std::string csvNumber(double v) {
  if (!std::isfinite(v)) return "";
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

namespace {

using nlohmann::json;

json number(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

json spreadJson(const Spread& s) {
  return {{"median", number(s.median)}, {"min", number(s.min)}, {"max", number(s.max)},
          {"q1", number(s.q1)},         {"q3", number(s.q3)},   {"count", s.count}};
}

json primitiveJson(const Result& result, const PrimitiveProfile& p) {
  const PrimitiveSummary& s = p.summary;
  json samples = json::array();
  for (const RenderStats& r : p.runs) samples.push_back(r.renderSeconds * 1e3);
  json bounces = json::array();
  for (size_t d = 0; d < s.bounces.size(); ++d) {
    const BounceSummary& b = s.bounces[d];
    BounceStats counts;
    counts.raysIn = b.raysIn, counts.lanes = b.lanes, counts.raysAlive = b.raysAlive;
    counts.shadowRays = b.shadowRays, counts.compactionBytes = b.compactionBytes;
    bounces.push_back(
        bounceJson(d, counts,
                   {spreadJson(b.compactionMs), spreadJson(b.transferMs), spreadJson(b.traceMs),
                    spreadJson(b.shadeMs), spreadJson(b.shadowMs)}));
  }
  // A pass's times are the medians (NaN, written null, where no run reached the pass).
  json iterations = json::array();
  for (const IterationSummary& it : s.iterations) {
    IterationStats medians = it.counts;
    medians.traceMs = it.traceMs.median, medians.shadeMs = it.shadeMs.median;
    medians.shadowMs = it.shadowMs.median, medians.compactionMs = it.compactionMs.median;
    medians.regenerateMs = it.regenerateMs.median, medians.transferMs = it.transferMs.median;
    medians.idleMs = it.idleMs.median;
    iterations.push_back(passJson(medians));
  }
  return {{"name", p.spec},
          {"runs_on", compaction::toString(p.info.device)},
          {"ordered", p.info.ordered},
          {"compacts", p.info.compacts},
          {"render_ms", spreadJson(s.renderMs)},
          {"render_ms_samples", samples},
          {"speedup_vs_none", number(result.speedupVsNone(p))},
          {"totals_ms",
           {{"compaction", spreadJson(s.compactionMs)},
            {"compaction_transfer", spreadJson(s.transferMs)},
            {"trace", spreadJson(s.traceMs)},
            {"shade", spreadJson(s.shadeMs)},
            {"shadow", spreadJson(s.shadowMs)},
            {"regenerate", spreadJson(s.regenerateMs)},
            {"idle", spreadJson(s.idleMs)}}},
          {"per_bounce_times", s.bounceTimes},
          {"compaction_bytes", s.compactionBytes},
          {"compaction_gb_per_s", number(s.gbPerSecond)},
          {"image_hash", p.imageHash},
          {"images_identical", p.imagesIdentical},
          {"bounces", bounces},
          {"iterations", iterations}};
}

std::string spreadCsv(const Spread& s) {
  return csvNumber(s.median) + "," + csvNumber(s.min) + "," + csvNumber(s.max);
}

}  // namespace

// Bounce rows carry counts per depth (and stage times where a pass is one depth: waves,
// Whitted); pass rows carry the pool's occupancy and the stage times of each pass, which is where
// the regenerate schedule times its stages; the total row sums a run.
const char* const kCsvHeader =
    "primitive,bounce,rays_in,lanes,rays_alive,shadow_rays,compaction_bytes,"
    "compaction_ms_median,compaction_ms_min,compaction_ms_max,transfer_ms_median,"
    "trace_ms_median,trace_ms_min,trace_ms_max,shade_ms_median,shade_ms_min,shade_ms_max,"
    "shadow_ms_median,shadow_ms_min,shadow_ms_max,render_ms_median,render_ms_min,render_ms_max,"
    "speedup_vs_none,images_identical,pass,regenerated,idle,regenerate_ms_median,"
    "regenerate_ms_min,regenerate_ms_max,idle_ms_median";

std::string profileJson(const Result& result) {
  const RenderStats& h = result.header;
  const Settings& st = result.settings;
  json mismatches = json::array();
  for (const ImageMismatch& m : result.mismatches)
    mismatches.push_back({{"primitive", m.primitive},
                          {"run", m.run},
                          {"size_differs", m.sizeDiffers},
                          {"differing_pixels", m.differingPixels},
                          {"max_abs_difference", m.maxAbsDifference}});
  json primitives = json::array();
  for (const PrimitiveProfile& p : result.primitives)
    primitives.push_back(primitiveJson(result, p));
  json j = {{"tool", "streamrt profile"},
            {"scene", h.scene},
            {"integrator", toString(h.integrator)},
            {"backend", h.backend},
            {"device", h.device},
            {"payload", toString(st.options.payload)},
            {"schedule", toString(st.options.schedule)},
            {"pool_size", h.poolSize},  // as the integrator sized it (0 requested: from the device)
            {"pool_size_requested", st.options.poolSize},
            {"traversal", toString(h.traversal)},  // what ran (auto resolved)
            {"resolution", {st.options.width, st.options.height}},
            {"spp", st.options.spp},
            {"max_depth", st.options.maxDepth},
            {"seed", st.options.seed},
            {"triangles", h.triangles},
            {"kd_build", h.accel.builder},
            {"kd_build_ms", h.accel.buildMs},
            {"warmup", st.warmup},
            {"repeats", st.repeats},
            {"baseline", "none"},
            {"reference_primitive", result.referencePrimitive},
            {"reference_image_hash", result.referenceHash},
            {"images_identical", result.imagesIdentical()},
            {"mismatches", mismatches},
            {"primitives", primitives}};
  return j.dump(2) + "\n";
}

std::string profileCsv(const Result& result) {
  std::string out = std::string(kCsvHeader) + "\n";
  for (const PrimitiveProfile& p : result.primitives) {
    const std::string name = csvField(p.spec);
    const std::string same = p.imagesIdentical ? "true" : "false";
    const PrimitiveSummary& m = p.summary;
    uint64_t raysIn = 0, lanes = 0, shadow = 0;
    for (size_t d = 0; d < m.bounces.size(); ++d) {
      const BounceSummary& b = m.bounces[d];
      raysIn += b.raysIn, lanes += b.lanes, shadow += b.shadowRays;
      out += name + "," + std::to_string(d) + "," + std::to_string(b.raysIn) + "," +
             std::to_string(b.lanes) + "," + std::to_string(b.raysAlive) + "," +
             std::to_string(b.shadowRays) + "," + std::to_string(b.compactionBytes) + "," +
             spreadCsv(b.compactionMs) + "," + csvNumber(b.transferMs.median) + "," +
             spreadCsv(b.traceMs) + "," + spreadCsv(b.shadeMs) + "," + spreadCsv(b.shadowMs) +
             ",,,,," + same + ",,,,,,,\n";
    }
    for (size_t i = 0; i < m.iterations.size(); ++i) {
      const IterationSummary& it = m.iterations[i];
      const IterationStats& c = it.counts;
      out += name + ",,," + std::to_string(c.lanes) + "," + std::to_string(c.alive) + ",," +
             std::to_string(c.compactionBytes) + "," + spreadCsv(it.compactionMs) + "," +
             csvNumber(it.transferMs.median) + "," + spreadCsv(it.traceMs) + "," +
             spreadCsv(it.shadeMs) + "," + spreadCsv(it.shadowMs) + ",,,,," + same + "," +
             std::to_string(i) + "," + std::to_string(c.regenerated) + "," +
             std::to_string(c.idle) + "," + spreadCsv(it.regenerateMs) + "," +
             csvNumber(it.idleMs.median) + "\n";
    }
    // Totals: the spread of each run's stage totals.
    out += name + ",total," + std::to_string(raysIn) + "," + std::to_string(lanes) + ",," +
           std::to_string(shadow) + "," + std::to_string(m.compactionBytes) + "," +
           spreadCsv(m.compactionMs) + "," + csvNumber(m.transferMs.median) + "," +
           spreadCsv(m.traceMs) + "," + spreadCsv(m.shadeMs) + "," + spreadCsv(m.shadowMs) + "," +
           spreadCsv(m.renderMs) + "," + csvNumber(result.speedupVsNone(p)) + "," + same + ",,,," +
           spreadCsv(m.regenerateMs) + "," + csvNumber(m.idleMs.median) + "\n";
  }
  return out;
}

}  // namespace srt::profile
