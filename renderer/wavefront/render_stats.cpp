#include "renderer/wavefront/render_stats.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "renderer/wavefront/render_stats_json.h"

namespace srt {

StageTotals stageTotals(const RenderStats& s) {
  StageTotals t;
  if (!s.iterations.empty()) {  // the path tracer times passes (which may mix depths)
    for (const IterationStats& it : s.iterations) {
      t.traceMs += it.traceMs, t.shadeMs += it.shadeMs, t.shadowMs += it.shadowMs;
      t.compactionMs += it.compactionMs, t.transferMs += it.transferMs;
      t.regenerateMs += it.regenerateMs, t.compactionBytes += it.compactionBytes;
      t.idleMs += it.idleMs;
    }
    return t;
  }
  for (const BounceStats& b : s.bounces) {
    t.traceMs += b.traceMs, t.shadeMs += b.shadeMs, t.shadowMs += b.shadowMs;
    t.compactionMs += b.compactionMs, t.transferMs += b.transferMs;
    t.compactionBytes += b.compactionBytes;
  }
  return t;
}

uint64_t RenderStats::totalRays() const {
  uint64_t n = 0;
  for (const BounceStats& b : bounces) n += b.raysIn + b.shadowRays;
  return n;
}

BounceTimesJson bounceTimesJson(const BounceStats& b) {
  return {b.compactionMs, b.transferMs, b.traceMs, b.shadeMs, b.shadowMs};
}

nlohmann::json bounceJson(size_t depth, const BounceStats& counts, const BounceTimesJson& ms) {
  return {{"bounce", depth},
          {"rays_in", counts.raysIn},
          {"lanes", counts.lanes},
          {"rays_alive", counts.raysAlive},
          {"shadow_rays", counts.shadowRays},
          {"compaction_ms", ms.compaction},
          {"compaction_transfer_ms", ms.transfer},
          {"trace_ms", ms.trace},
          {"shade_ms", ms.shade},
          {"shadow_ms", ms.shadow},
          {"compaction_bytes", counts.compactionBytes}};
}

nlohmann::json passJson(const IterationStats& it) {
  return {{"lanes", it.lanes},
          {"alive", it.alive},
          {"regenerated", it.regenerated},
          {"idle", it.idle},
          {"trace_ms", it.traceMs},
          {"shade_ms", it.shadeMs},
          {"shadow_ms", it.shadowMs},
          {"compaction_ms", it.compactionMs},
          {"compaction_transfer_ms", it.transferMs},
          {"regenerate_ms", it.regenerateMs},
          {"idle_ms", it.idleMs},
          {"compaction_bytes", it.compactionBytes}};
}

namespace {

nlohmann::json accelJson(const AccelBuildReport& a) {
  nlohmann::json accel = {{"builder", a.builder}, {"quality", a.quality}, {"build_ms", a.buildMs}};
  // Built beside the frame before (--kd-overlap): the frame paid only the wait.
  if (a.overlapped) accel["overlapped_wait_ms"] = a.waitMs;
  if (a.treeComputed) {  // a per-frame rebuild leaves them out unless asked for
    accel["nodes"] = a.tree.nodes;
    accel["leaves"] = a.tree.leaves;
    accel["empty_leaves"] = a.tree.emptyLeaves;
    accel["max_depth"] = a.tree.maxDepth;
    accel["sah_cost"] = a.tree.sahCost;
  }
  if (a.builder == "gpu") {
    const GpuKdBuildStats& g = a.gpuStages;
    accel["stages_ms"] = {{"setup", g.setupMs},
                          {"bounds_reduction", g.boundsMs},
                          {"splitting", g.splitMs},
                          {"list_compaction", g.compactionMs},
                          {"small_node_sah", g.smallNodeMs},
                          {"finalize", g.finalizeMs}};
    accel["large_node_levels"] = g.largeNodeLevels;
  }
  return accel;
}

// The whole render's figures, and the time to image phase by phase.
nlohmann::json totalsJson(const RenderStats& s) {
  const StageTotals t = stageTotals(s);
  const TimeToImage& image = s.timeToImage;
  return {{"rays", s.totalRays()},
          {"rays_per_second", s.raysPerSecond()},
          {"samples_per_second", s.samplesPerSecond()},
          {"render_seconds", s.renderSeconds},
          {"wall_seconds", s.wallSeconds},
          {"scene_load_seconds", s.sceneLoadSeconds},
          {"accel_build_ms", s.accel.buildMs},
          {"compaction_ms", t.compactionMs},
          {"compaction_transfer_ms", t.transferMs},
          {"compaction_bytes", t.compactionBytes},
          {"trace_ms", t.traceMs},
          {"shade_ms", t.shadeMs},
          {"shadow_ms", t.shadowMs},
          {"regenerate_ms", t.regenerateMs},
          {"idle_ms", t.idleMs},
          {"passes", s.iterations.size()},
          {"startup_seconds", image.startupSeconds},
          {"device_start_seconds", image.deviceStartSeconds},
          {"device_wait_seconds", image.deviceWaitSeconds},
          {"device_select_seconds", image.deviceSelectSeconds},
          {"device_context_seconds", image.deviceContextSeconds},
          {"device_check_seconds", image.deviceCheckSeconds},
          {"flatten_seconds", image.flattenSeconds},
          {"setup_seconds", image.setupSeconds},
          {"first_pass_ms", image.firstPassSeconds * 1e3},
          {"image_readback_seconds", image.readbackSeconds},
          {"image_encode_seconds", image.encodeSeconds},
          {"image_write_seconds", image.encodeSeconds + image.writeSeconds}};
}

}  // namespace

std::string statsToJson(const RenderStats& s) {
  nlohmann::json j;
  j["scene"] = s.scene;
  j["integrator"] = toString(s.integrator);
  j["backend"] = s.backend;
  j["device"] = s.device;
  j["compaction"] = s.compaction;
  j["payload"] = toString(s.payload);
  if (!s.compactionChoice.empty()) j["compaction_choice"] = s.compactionChoice;
  if (s.poolSize > 0) {
    j["schedule"] = toString(s.schedule);
    j["pool_size"] = s.poolSize;
    j["traversal"] = toString(s.traversal);
    j["reorder"] = toString(s.reorder);
    if (s.compactEvery == 0)
      j["compact_every"] = "auto";
    else
      j["compact_every"] = s.compactEvery;
  }
  j["resolution"] = {s.width, s.height};
  j["spp"] = s.spp;
  j["samples_done"] = s.samplesDone;
  j["stopped"] = s.stopped;
  j["max_depth"] = s.maxDepth;
  j["seed"] = s.seed;
  j["triangles"] = s.triangles;
  j["time"] = s.time;
  if (!s.accel.builder.empty()) j["accel"] = accelJson(s.accel);
  nlohmann::json bounces = nlohmann::json::array();
  for (size_t d = 0; d < s.bounces.size(); ++d)
    bounces.push_back(bounceJson(d, s.bounces[d], bounceTimesJson(s.bounces[d])));
  j["bounces"] = bounces;
  if (!s.iterations.empty()) {
    nlohmann::json passes = nlohmann::json::array();
    for (const IterationStats& it : s.iterations) passes.push_back(passJson(it));
    j["passes"] = passes;
  }
  j["totals"] = totalsJson(s);
  return j.dump(2) + "\n";
}

namespace {

// One row per pass, or per run of consecutive passes when there are more than kMaxPassRows
// (counts averaged over the run, times summed), and a total.
constexpr size_t kMaxPassRows = 32;

std::string passTable(const RenderStats& s) {
  std::string out =
      "pass(es)        lanes      alive  regenerated       idle   trace ms   shade ms  shadow ms "
      " compact ms  refill ms    idle ms\n";
  char line[256];
  const size_t n = s.iterations.size();
  const size_t per = (n + kMaxPassRows - 1) / kMaxPassRows;
  IterationStats total;
  auto row = [&](const char* label, const IterationStats& sum, double passes) {
    std::snprintf(line, sizeof line,
                  "%-11s %10.0f %10.0f %12.0f %10.0f %10.2f %10.2f %10.2f %11.2f %10.2f %10.2f\n",
                  label, sum.lanes / passes, sum.alive / passes, sum.regenerated / passes,
                  sum.idle / passes, sum.traceMs, sum.shadeMs, sum.shadowMs, sum.compactionMs,
                  sum.regenerateMs, sum.idleMs);
    out += line;
  };
  for (size_t first = 0; first < n; first += per) {
    const size_t last = std::min(n, first + per) - 1;
    IterationStats sum;
    // Counts summed in doubles' stead: a run of passes may pass 2^32 lanes.
    double lanes = 0, alive = 0, regenerated = 0, idle = 0;
    for (size_t i = first; i <= last; ++i) {
      const IterationStats& it = s.iterations[i];
      lanes += it.lanes, alive += it.alive, regenerated += it.regenerated, idle += it.idle;
      sum.traceMs += it.traceMs, sum.shadeMs += it.shadeMs, sum.shadowMs += it.shadowMs;
      sum.compactionMs += it.compactionMs, sum.regenerateMs += it.regenerateMs;
      sum.idleMs += it.idleMs;
    }
    const double count = double(last - first + 1);
    IterationStats mean = sum;
    mean.lanes = uint32_t(lanes / count), mean.alive = uint32_t(alive / count);
    mean.regenerated = uint32_t(regenerated / count), mean.idle = uint32_t(idle / count);
    char label[32];
    if (first == last)
      std::snprintf(label, sizeof label, "%zu", first);
    else
      std::snprintf(label, sizeof label, "%zu-%zu", first, last);
    row(label, mean, 1.0);
    total.traceMs += sum.traceMs, total.shadeMs += sum.shadeMs, total.shadowMs += sum.shadowMs;
    total.compactionMs += sum.compactionMs, total.regenerateMs += sum.regenerateMs;
    total.idleMs += sum.idleMs;
  }
  // The total row: times summed, counts as the mean pass.
  double lanes = 0, alive = 0, regenerated = 0, idle = 0;
  for (const IterationStats& it : s.iterations)
    lanes += it.lanes, alive += it.alive, regenerated += it.regenerated, idle += it.idle;
  total.lanes = uint32_t(lanes / std::max<size_t>(n, 1));
  total.alive = uint32_t(alive / std::max<size_t>(n, 1));
  total.regenerated = uint32_t(regenerated / std::max<size_t>(n, 1));
  total.idle = uint32_t(idle / std::max<size_t>(n, 1));
  row("total/mean", total, 1.0);
  return out;
}

}  // namespace

std::string statsTable(const RenderStats& s) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%s, %dx%d, %d spp, %s on %s, compaction %s (%s)\n",
                s.scene.c_str(), s.width, s.height, s.spp, toString(s.integrator),
                s.backend.c_str(), s.compaction.c_str(), toString(s.payload));
  out += line;
  if (s.stopped)
    out += "stopped early: the image holds " + std::to_string(s.samplesDone) + " of " +
           std::to_string(s.spp) + " samples per pixel\n";
  if (!s.compactionChoice.empty())  // auto's choices, or the GL primitives' interop
    out += (s.compaction.rfind("auto", 0) == 0 ? "auto chose:\n" : "compaction: ") +
           s.compactionChoice + "\n";
  if (s.poolSize > 0) {
    // The cadence of the state compaction (--compact-every), where there is one.
    std::string cadence;
    if (s.compaction != "none" && s.payload == Payload::State)
      cadence = s.compactEvery == 0 ? ", compaction cadence auto"
                : s.compactEvery == 1
                    ? ", compaction after every pass"
                    : ", compaction every " + std::to_string(s.compactEvery) + " passes";
    std::snprintf(
        line, sizeof line, "schedule %s, pool %u paths, traversal %s, reorder %s%s, %zu passes%s\n",
        toString(s.schedule), s.poolSize, toString(s.traversal), toString(s.reorder),
        cadence.c_str(), s.iterations.size(),
        s.schedule == Schedule::Waves ? "" : " (passes mix depths: stage times are per pass)");
    out += line;
  }
  // Passes that mix depths (regenerate, and every Whitted pool) time their stages per pass:
  // the bounce table gives counts and the pass table the times.
  const bool perPass = !s.iterations.empty() &&
                       (s.schedule != Schedule::Waves || s.integrator == IntegratorKind::Whitted);
  out += perPass
             ? "bounce      rays in   rays alive  shadow rays\n"
             : "bounce      rays in   rays alive  shadow rays  compact ms  (xfer ms)   trace ms   "
               "shade ms  shadow ms\n";
  // One row: a depth's counts (and, unless per pass, its stage times), or the totals.
  auto row = [&](const std::string& label, const BounceStats& b) {
    std::snprintf(line, sizeof line, "%6s %12llu %12llu %12llu", label.c_str(),
                  (unsigned long long)b.raysIn, (unsigned long long)b.raysAlive,
                  (unsigned long long)b.shadowRays);
    out += line;
    if (!perPass) {
      std::snprintf(line, sizeof line, " %11.2f %10.2f %10.2f %10.2f %10.2f", b.compactionMs,
                    b.transferMs, b.traceMs, b.shadeMs, b.shadowMs);
      out += line;
    }
    out += "\n";
  };
  BounceStats t;
  for (size_t d = 0; d < s.bounces.size(); ++d) {
    const BounceStats& b = s.bounces[d];
    row(std::to_string(d), b);
    t.raysIn += b.raysIn, t.raysAlive += b.raysAlive, t.shadowRays += b.shadowRays;
  }
  const StageTotals tt = stageTotals(s);
  t.compactionMs = tt.compactionMs, t.transferMs = tt.transferMs, t.traceMs = tt.traceMs;
  t.shadeMs = tt.shadeMs, t.shadowMs = tt.shadowMs;
  row("total", t);
  if (perPass) out += passTable(s);
  if (!s.iterations.empty()) {
    uint64_t lanes = 0, alive = 0, regenerated = 0, idle = 0;
    for (const IterationStats& it : s.iterations)
      lanes += it.lanes, alive += it.alive, regenerated += it.regenerated, idle += it.idle;
    const double n = double(s.iterations.size()) * std::max<uint32_t>(s.poolSize, 1);
    std::snprintf(line, sizeof line,
                  "pool per pass: %.1f%% lanes launched, %.1f%% alive after the bounce, %.1f%% "
                  "regenerated, %.1f%% idle; refill %.2f ms, device idle between passes %.2f ms\n",
                  100.0 * lanes / n, 100.0 * alive / n, 100.0 * regenerated / n, 100.0 * idle / n,
                  tt.regenerateMs, tt.idleMs);
    out += line;
  }
  std::snprintf(line, sizeof line,
                "%.3g rays/s, %.3g samples/s, render %.2f s, wall %.2f s (load %.2f s, kd-tree "
                "%s %.1f ms, SAH cost %.1f)\n",
                s.raysPerSecond(), s.samplesPerSecond(), s.renderSeconds, s.wallSeconds,
                s.sceneLoadSeconds, s.accel.builder.c_str(), s.accel.buildMs, s.accel.tree.sahCost);
  out += line;
  return out;
}

}  // namespace srt
