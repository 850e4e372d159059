#include "apps/profile/html_report.h"

#include <algorithm>
#include <cstdio>

#include "apps/profile/svg_chart.h"

namespace srt::profile {
namespace {

using svg::escapeXml;

// Stage colours stay the same in every chart, whatever the primitive.
const char* const kTraceColor = "#0072B2";
const char* const kShadeColor = "#E69F00";
const char* const kShadowColor = "#009E73";
const char* const kCompactionColor = "#D55E00";
const char* const kTransferColor = "#CC79A7";

std::vector<std::string> bounceNames(size_t n) {
  std::vector<std::string> names;
  for (size_t d = 0; d < n; ++d) names.push_back(std::to_string(d));
  return names;
}

size_t maxBounces(const Result& r) {
  size_t n = 0;
  for (const PrimitiveProfile& p : r.primitives) n = std::max(n, p.summary.bounces.size());
  return n;
}

std::string section(const std::string& title, const std::string& note, const std::string& body) {
  return "<section><h2>" + escapeXml(title) + "</h2>" +
         (note.empty() ? "" : "<p class=\"note\">" + note + "</p>") + body + "</section>\n";
}

std::string settingsTable(const Result& r) {
  const RenderStats& h = r.header;
  const RenderOptions& o = r.settings.options;
  const std::pair<std::string, std::string> rows[] = {
      {"scene", h.scene + " (" + std::to_string(h.triangles) + " triangles)"},
      {"backend", h.backend + " — " + h.device},
      {"integrator", std::string(toString(o.integrator)) + ", payload " + toString(o.payload) +
                         ", schedule " + toString(o.schedule)},
      {"image", std::to_string(o.width) + "×" + std::to_string(o.height) + ", " +
                    std::to_string(o.spp) + " spp, max depth " + std::to_string(o.maxDepth) +
                    ", seed " + std::to_string(o.seed)},
      {"kd-tree", h.accel.builder.empty() ? "–"
                                          : h.accel.builder + " build, " +
                                                fixed(h.accel.buildMs, 1) + " ms (built once)"},
      {"runs", std::to_string(r.settings.warmup) + " warm-up + " +
                   std::to_string(r.settings.repeats) + " timed per primitive"}};
  std::string s = "<table class=\"settings\">";
  for (const auto& [k, v] : rows)
    s += "<tr><th>" + escapeXml(k) + "</th><td>" + escapeXml(v) + "</td></tr>";
  return s + "</table>\n";
}

std::string verdict(const Result& r) {
  if (r.imagesIdentical())
    return "<p class=\"verdict ok\" id=\"images-identical\">Images identical: every render of "
           "every primitive matches the first one bit for bit (hash " +
           escapeXml(r.referenceHash) + ").</p>\n";
  std::string s =
      "<div class=\"verdict mismatch\" id=\"images-differ\"><strong>IMAGE MISMATCH</strong>: "
      "these renders differ from the first render of " +
      escapeXml(r.referencePrimitive) + ":<ul>";
  for (const ImageMismatch& m : r.mismatches)
    s += "<li>" + escapeXml(m.primitive) + ", run " + std::to_string(m.run) + ": " +
         (m.sizeDiffers ? std::string("different size")
                        : std::to_string(m.differingPixels) + " pixels differ, largest by " +
                              fixed(m.maxAbsDifference, 6)) +
         "</li>";
  return s + "</ul></div>\n";
}

std::string summaryTable(const Result& r) {
  std::string s =
      "<table class=\"summary\"><thead><tr><th>primitive</th><th>runs on</th>"
      "<th>render ms<br>median</th><th>min – max</th><th>IQR</th><th>speed-up<br>vs none</th>"
      "<th>compaction ms<br>median</th><th>MB moved</th><th>GB/s</th><th>image</th></tr></thead>"
      "<tbody>";
  for (const PrimitiveProfile& p : r.primitives) {
    const PrimitiveSummary& m = p.summary;
    s += "<tr><td class=\"name\">" + escapeXml(p.spec) + "</td><td>" +
         compaction::toString(p.info.device) +
         (p.info.compacts && !p.info.ordered ? ", unordered" : "") + "</td><td>" +
         fixed(m.renderMs.median, 2) + "</td><td>" + fixed(m.renderMs.min, 2) + " – " +
         fixed(m.renderMs.max, 2) + "</td><td>" + fixed(m.renderMs.q3 - m.renderMs.q1, 2) +
         "</td><td>" + fixed(r.speedupVsNone(p), 3) + "×</td><td>" +
         fixed(m.compactionMs.median, 3) + "</td><td>" +
         (m.compactionBytes ? fixed(double(m.compactionBytes) / 1e6, 2) : "–") + "</td><td>" +
         fixed(m.gbPerSecond, 1) + "</td><td class=\"" + (p.imagesIdentical ? "ok" : "bad") +
         "\">" + (p.imagesIdentical ? "identical" : "DIFFERS") + "</td></tr>";
  }
  return s + "</tbody></table>\n";
}

std::vector<std::string> primitiveNames(const Result& r) {
  std::vector<std::string> names;
  for (const PrimitiveProfile& p : r.primitives) names.push_back(p.spec);
  return names;
}

std::string speedupChart(const Result& r) {
  svg::Chart c;
  c.title = "Speed-up over none (median render time)";
  c.xLabel = "primitive";
  c.yLabel = "speed-up (×)";
  c.categories = primitiveNames(r);
  svg::Series s{"speed-up", {}, kTraceColor};
  for (const PrimitiveProfile& p : r.primitives) s.values.push_back(r.speedupVsNone(p));
  c.series = {s};
  c.referenceLine = 1;
  c.referenceLabel = "none = 1";
  c.unit = "×";
  return svg::barChart(c);
}

std::string raysChart(const Result& r) {
  svg::Chart c;
  c.title = "Rays per bounce";
  c.xLabel = "bounce";
  c.yLabel = "rays (all samples)";
  c.categories = bounceNames(maxBounces(r));
  const PrimitiveProfile* none = r.find("none");
  const PrimitiveProfile* compacted = nullptr;
  for (const PrimitiveProfile& p : r.primitives)
    if (p.info.compacts && !compacted) compacted = &p;
  const PrimitiveProfile& base = compacted ? *compacted : r.primitives.front();
  svg::Series in{"rays in", {}, ""}, alive{"rays alive after bounce", {}, ""},
      shadow{"shadow rays", {}, ""}, lanesNone{"lanes launched (none)", {}, ""},
      lanesCompacted{"lanes launched (" + base.spec + ")", {}, ""};
  for (size_t d = 0; d < c.categories.size(); ++d) {
    const auto at = [d](const PrimitiveProfile* p, uint64_t BounceSummary::*f) {
      return p && d < p->summary.bounces.size() ? double(p->summary.bounces[d].*f) : NAN;
    };
    in.values.push_back(at(&base, &BounceSummary::raysIn));
    alive.values.push_back(at(&base, &BounceSummary::raysAlive));
    shadow.values.push_back(at(&base, &BounceSummary::shadowRays));
    lanesNone.values.push_back(at(none, &BounceSummary::lanes));
    lanesCompacted.values.push_back(at(&base, &BounceSummary::lanes));
  }
  c.series = {in, alive, shadow};
  // Lanes per depth exist only when each pass is one depth (waves, Whitted); otherwise they
  // repeat the rays and would only hide that line.
  const auto differsFromRaysIn = [&in](const svg::Series& lanes) {
    for (size_t d = 0; d < lanes.values.size(); ++d)
      if (lanes.values[d] != in.values[d] && std::isfinite(lanes.values[d])) return true;
    return false;
  };
  if (differsFromRaysIn(lanesNone)) c.series.push_back(lanesNone);
  if (compacted && differsFromRaysIn(lanesCompacted)) c.series.push_back(lanesCompacted);
  return svg::lineChart(c);
}

// Median stage times of one bounce or one pass over the pool.
struct StageTimes {
  double trace = NAN, shade = NAN, shadow = NAN, compaction = NAN, transfer = NAN, regenerate = NAN;
};

// Per bounce when the render timed bounces (waves, Whitted); per pass otherwise (regenerate: a
// pass mixes depths).
bool timesPerPass(const Result& r) {
  for (const PrimitiveProfile& p : r.primitives)
    if (p.summary.bounceTimes) return false;
  for (const PrimitiveProfile& p : r.primitives)
    if (!p.summary.iterations.empty()) return true;
  return false;
}

std::vector<StageTimes> stageTimes(const PrimitiveSummary& s, bool perPass) {
  std::vector<StageTimes> out;
  if (perPass) {
    for (const IterationSummary& it : s.iterations)
      out.push_back({it.traceMs.median, it.shadeMs.median, it.shadowMs.median,
                     it.compactionMs.median, it.transferMs.median, it.regenerateMs.median});
  } else {
    for (const BounceSummary& b : s.bounces)
      out.push_back({b.traceMs.median, b.shadeMs.median, b.shadowMs.median, b.compactionMs.median,
                     b.transferMs.median, NAN});
  }
  return out;
}

const char* stepName(bool perPass) {
  return perPass ? "pass over the pool" : "bounce";
}

std::string compactionChart(const Result& r) {
  const bool perPass = timesPerPass(r);
  svg::Chart c;
  c.title = std::string("Compaction time per ") + (perPass ? "pass" : "bounce") + " (median)";
  c.xLabel = stepName(perPass);
  c.yLabel = "ms";
  c.unit = "ms";
  size_t steps = 0;
  for (const PrimitiveProfile& p : r.primitives) {
    svg::Series s{p.spec, {}, ""};
    for (const StageTimes& t : stageTimes(p.summary, perPass)) s.values.push_back(t.compaction);
    steps = std::max(steps, s.values.size());
    c.series.push_back(s);
  }
  c.categories = bounceNames(steps);
  return svg::lineChart(c);
}

std::string bytesCharts(const Result& r) {
  svg::Chart bytes, rate;
  bytes.title = "Bytes the primitive must move (all bounces)";
  rate.title = "Effective bandwidth of compaction";
  bytes.xLabel = rate.xLabel = "primitive";
  bytes.yLabel = "MB";
  bytes.unit = "MB";
  rate.yLabel = "GB/s (bytes / compaction ms)";
  rate.unit = "GB/s";
  bytes.width = rate.width = 520;
  svg::Series b{"MB", {}, kCompactionColor}, g{"GB/s", {}, kShadowColor};
  for (const PrimitiveProfile& p : r.primitives) {
    if (!p.info.compacts) continue;  // none moves nothing
    bytes.categories.push_back(p.spec);
    rate.categories.push_back(p.spec);
    b.values.push_back(p.summary.compactionBytes ? double(p.summary.compactionBytes) / 1e6 : NAN);
    g.values.push_back(p.summary.gbPerSecond);
  }
  bytes.series = {b};
  rate.series = {g};
  return "<div class=\"row\">" + svg::barChart(bytes) + svg::barChart(rate) + "</div>\n";
}

svg::Chart stackedStages(const std::string& title, std::vector<std::string> categories,
                         const std::vector<StageTimes>& times) {
  svg::Chart c;
  c.title = title;
  c.yLabel = "ms (median)";
  c.unit = "ms";
  c.categories = std::move(categories);
  svg::Series trace{"trace", {}, kTraceColor}, shade{"shade", {}, kShadeColor},
      shadow{"shadow rays", {}, kShadowColor}, comp{"compaction", {}, kCompactionColor},
      transfer{"interop transfer", {}, kTransferColor}, regen{"regenerate", {}, "#999999"};
  bool anyTransfer = false, anyRegen = false;
  for (const StageTimes& t : times) {
    const double x = std::isfinite(t.transfer) ? t.transfer : 0;
    anyTransfer = anyTransfer || x > 0;
    anyRegen = anyRegen || t.regenerate > 0;
    trace.values.push_back(t.trace);
    shade.values.push_back(t.shade);
    shadow.values.push_back(t.shadow);
    comp.values.push_back(t.compaction - x);  // compaction times include the transfer
    transfer.values.push_back(x);
    regen.values.push_back(t.regenerate);
  }
  c.series = {trace, shade, shadow, comp};
  if (anyTransfer) c.series.push_back(transfer);
  if (anyRegen) c.series.push_back(regen);
  return c;
}

std::string totalsChart(const Result& r) {
  std::vector<StageTimes> totals;
  for (const PrimitiveProfile& p : r.primitives) {
    const PrimitiveSummary& s = p.summary;
    totals.push_back({s.traceMs.median, s.shadeMs.median, s.shadowMs.median, s.compactionMs.median,
                      s.transferMs.median, s.regenerateMs.median});
  }
  svg::Chart c = stackedStages("Stage time per render (median of each stage's total)",
                               primitiveNames(r), totals);
  c.xLabel = "primitive";
  return svg::barChart(c, svg::BarLayout::Stacked);
}

std::string stageCharts(const Result& r) {
  const bool perPass = timesPerPass(r);
  std::vector<svg::Chart> charts;
  double yMax = 0;
  for (const PrimitiveProfile& p : r.primitives) {
    const std::vector<StageTimes> t = stageTimes(p.summary, perPass);
    charts.push_back(stackedStages(p.spec, bounceNames(t.size()), t));
    charts.back().xLabel = stepName(perPass);
    for (const StageTimes& s : t) {
      double sum = 0;
      for (double v : {s.trace, s.shade, s.shadow, s.compaction, s.regenerate})
        sum += std::isfinite(v) ? std::max(v, 0.0) : 0.0;
      yMax = std::max(yMax, sum);
    }
  }
  // One shared scale, so a taller stack means a slower step whichever chart it is in.
  std::string s = "<div class=\"grid\">";
  for (svg::Chart& c : charts) {
    c.width = 520;
    c.height = 280;
    c.yMax = yMax;
    s += svg::barChart(c, svg::BarLayout::Stacked);
  }
  return s + "</div>\n";
}

svg::Chart occupancy(const PrimitiveProfile& p) {
  svg::Chart c;
  c.title = "Path pool per pass (" + p.spec + ")";
  c.xLabel = "pass over the pool";
  c.yLabel = "slots";
  c.width = 520;
  svg::Series lanes{"lanes launched", {}, ""}, alive{"alive after pass", {}, ""},
      regen{"regenerated", {}, ""}, idle{"idle", {}, ""};
  for (size_t i = 0; i < p.summary.iterations.size(); ++i) {
    const IterationStats& it = p.summary.iterations[i].counts;
    c.categories.push_back(std::to_string(i));
    lanes.values.push_back(it.lanes);
    alive.values.push_back(it.alive);
    regen.values.push_back(it.regenerated);
    idle.values.push_back(it.idle);
  }
  c.series = {lanes, alive, regen, idle};
  return c;
}

// The first compacting primitive's pool beside none's: none launches its whole pool every pass.
std::string occupancyCharts(const Result& r) {
  std::string s;
  for (const PrimitiveProfile& p : r.primitives)
    if (p.info.compacts && !p.summary.iterations.empty()) {
      s += svg::lineChart(occupancy(p));
      break;
    }
  const PrimitiveProfile* none = r.find("none");
  if (none && !none->summary.iterations.empty()) s += svg::lineChart(occupancy(*none));
  return s.empty() ? s : "<div class=\"row\">" + s + "</div>\n";
}

const char* const kStyleText = R"(
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #222;
       background: #f4f5f7; margin: 0; }
main { max-width: 1160px; margin: 0 auto; padding: 24px; }
h1 { font-size: 24px; margin: 0 0 12px; }
h2 { font-size: 17px; margin: 0 0 10px; }
section { background: #fff; border: 1px solid #dde1e6; border-radius: 8px; padding: 16px 18px;
          margin: 16px 0; }
table { border-collapse: collapse; font-size: 13px; }
th, td { padding: 5px 10px; text-align: right; border-bottom: 1px solid #e6e8eb; }
th { background: #f0f2f5; font-weight: 600; }
td.name, .settings th, .settings td { text-align: left; }
.summary td.name { font-family: ui-monospace, monospace; }
.summary tbody tr:nth-child(even) { background: #fafbfc; }
.ok { color: #0a7a3a; } .bad { color: #b00020; font-weight: 700; }
.verdict { padding: 10px 14px; border-radius: 6px; font-size: 14px; margin: 12px 0; }
.verdict.ok { background: #e6f4ea; border: 1px solid #9cd3ae; }
.verdict.mismatch { background: #fde7e9; border: 2px solid #b00020; color: #6b0012; }
.note { color: #555; font-size: 13px; margin: 0 0 10px; }
.grid, .row { display: flex; flex-wrap: wrap; gap: 12px; }
svg.chart { max-width: 100%; height: auto; }
tr.differs td { background: #fff6e5; font-weight: 600; }
.faster { color: #0a7a3a; } .slower { color: #b00020; }
details summary { cursor: pointer; font-size: 13px; margin: 8px 0; }
)";

}  // namespace

const char* reportStyle() {
  return kStyleText;
}

std::string fixed(double v, int digits) {
  if (!std::isfinite(v)) return "–";
  char b[48];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

std::string htmlReport(const Result& r) {
  const std::string title = "streamrt profile: " + r.header.scene + " on " + r.header.backend;
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" +
                  escapeXml(title) + "</title>\n<style>" + reportStyle() +
                  "</style></head>\n<body><main>\n";
  h += "<h1>" + escapeXml(title) + "</h1>\n" + settingsTable(r) + verdict(r);
  h += section("Summary",
               "Medians and spreads over the timed repeats. Speed-up is none's median "
               "render time over the primitive's.",
               summaryTable(r));
  h += section("Speed-up over keeping dead lanes", "", speedupChart(r));
  h += section("Where the time goes", "Each stage's total over a render, median over the repeats.",
               totalsChart(r));
  h += section(timesPerPass(r) ? "Stage time per pass over the pool" : "Stage time per bounce",
               timesPerPass(r)
                   ? "With the regenerate schedule a pass mixes paths of every depth, so stages "
                     "are timed per pass (--schedule waves times them per bounce). Medians, "
                     "stacked; all charts share one scale."
                   : "Median stage times per bounce, stacked; all charts share one scale.",
               stageCharts(r));
  h += section("Rays per bounce",
               "Rays are the same for every primitive (same image). Where each pass is one depth "
               "(--schedule waves, Whitted) the lanes launched are drawn too: <em>none</em> "
               "launches lanes for dead paths.",
               raysChart(r));
  h += section("Compaction over the render", "", compactionChart(r));
  bool anyBytes = false;
  for (const PrimitiveProfile& p : r.primitives) anyBytes = anyBytes || p.summary.compactionBytes;
  h += section("Bytes moved and bandwidth",
               anyBytes ? "Bytes the primitive must move at least (flags read, survivors' payload "
                          "read and written), over its median compaction time."
                        : "This build of the renderer reports no compaction bytes.",
               bytesCharts(r));
  const std::string occupancy = occupancyCharts(r);
  h += section("Path pool occupancy",
               occupancy.empty() ? "This render reported no passes over a path pool." : "",
               occupancy);
  return h + "</main></body></html>\n";
}

}  // namespace srt::profile
