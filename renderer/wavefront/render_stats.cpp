#include "renderer/wavefront/render_stats.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace srt {

uint64_t RenderStats::totalRays() const {
  uint64_t n = 0;
  for (const BounceStats& b : bounces) n += b.raysIn + b.shadowRays;
  return n;
}

std::string statsToJson(const RenderStats& s) {
  nlohmann::json j;
  j["scene"] = s.scene;
  j["integrator"] = s.integrator;
  j["backend"] = s.backend;
  j["device"] = s.device;
  j["compaction"] = s.compaction;
  j["payload"] = s.payload;
  j["resolution"] = {s.width, s.height};
  j["spp"] = s.spp;
  j["max_depth"] = s.maxDepth;
  j["seed"] = s.seed;
  j["triangles"] = s.triangles;
  j["time"] = s.time;
  if (!s.accel.builder.empty()) {
    const AccelBuildReport& a = s.accel;
    nlohmann::json accel = {{"builder", a.builder},
                            {"build_ms", a.buildMs},
                            {"nodes", a.tree.nodes},
                            {"leaves", a.tree.leaves},
                            {"empty_leaves", a.tree.emptyLeaves},
                            {"max_depth", a.tree.maxDepth},
                            {"sah_cost", a.tree.sahCost}};
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
    j["accel"] = accel;
  }
  nlohmann::json bounces = nlohmann::json::array();
  for (size_t d = 0; d < s.bounces.size(); ++d) {
    const BounceStats& b = s.bounces[d];
    bounces.push_back({{"bounce", d},
                       {"rays_in", b.raysIn},
                       {"lanes", b.lanes},
                       {"rays_alive", b.raysAlive},
                       {"shadow_rays", b.shadowRays},
                       {"compaction_ms", b.compactionMs},
                       {"compaction_transfer_ms", b.transferMs},
                       {"trace_ms", b.traceMs},
                       {"shade_ms", b.shadeMs},
                       {"shadow_ms", b.shadowMs}});
  }
  j["bounces"] = bounces;
  double compaction = 0, trace = 0, shade = 0, shadow = 0;
  for (const BounceStats& b : s.bounces)
    compaction += b.compactionMs, trace += b.traceMs, shade += b.shadeMs, shadow += b.shadowMs;
  j["totals"] = {{"rays", s.totalRays()},
                 {"rays_per_second", s.raysPerSecond()},
                 {"samples_per_second", s.samplesPerSecond()},
                 {"render_seconds", s.renderSeconds},
                 {"wall_seconds", s.wallSeconds},
                 {"scene_load_seconds", s.sceneLoadSeconds},
                 {"accel_build_ms", s.accel.buildMs},
                 {"compaction_ms", compaction},
                 {"trace_ms", trace},
                 {"shade_ms", shade},
                 {"shadow_ms", shadow}};
  return j.dump(2) + "\n";
}

std::string statsTable(const RenderStats& s) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%s, %dx%d, %d spp, %s on %s, compaction %s (%s)\n",
                s.scene.c_str(), s.width, s.height, s.spp, s.integrator.c_str(), s.backend.c_str(),
                s.compaction.c_str(), s.payload.c_str());
  out += line;
  out +=
      "bounce      rays in   rays alive  shadow rays  compact ms  (xfer ms)   trace ms   "
      "shade ms  shadow ms\n";
  BounceStats t;
  for (size_t d = 0; d < s.bounces.size(); ++d) {
    const BounceStats& b = s.bounces[d];
    std::snprintf(line, sizeof line,
                  "%6zu %12llu %12llu %12llu %11.2f %10.2f %10.2f %10.2f %10.2f\n", d,
                  (unsigned long long)b.raysIn, (unsigned long long)b.raysAlive,
                  (unsigned long long)b.shadowRays, b.compactionMs, b.transferMs, b.traceMs,
                  b.shadeMs, b.shadowMs);
    out += line;
    t.raysIn += b.raysIn, t.raysAlive += b.raysAlive, t.shadowRays += b.shadowRays;
    t.compactionMs += b.compactionMs, t.transferMs += b.transferMs, t.traceMs += b.traceMs;
    t.shadeMs += b.shadeMs, t.shadowMs += b.shadowMs;
  }
  std::snprintf(line, sizeof line,
                " total %12llu %12llu %12llu %11.2f %10.2f %10.2f %10.2f %10.2f\n",
                (unsigned long long)t.raysIn, (unsigned long long)t.raysAlive,
                (unsigned long long)t.shadowRays, t.compactionMs, t.transferMs, t.traceMs,
                t.shadeMs, t.shadowMs);
  out += line;
  std::snprintf(line, sizeof line,
                "%.3g rays/s, %.3g samples/s, render %.2f s, wall %.2f s (load %.2f s, kd-tree "
                "%s %.1f ms, SAH cost %.1f)\n",
                s.raysPerSecond(), s.samplesPerSecond(), s.renderSeconds, s.wallSeconds,
                s.sceneLoadSeconds, s.accel.builder.c_str(), s.accel.buildMs, s.accel.tree.sahCost);
  out += line;
  return out;
}

}  // namespace srt
