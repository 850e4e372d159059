// The comparison report and CSV of `streamrt profile --compare` (profile_compare.h).
#include <algorithm>
#include <cstdio>

#include "apps/profile/html_report.h"
#include "apps/profile/profile_compare.h"
#include "apps/profile/profile_writers.h"
#include "apps/profile/svg_chart.h"

namespace srt::profile {
namespace {

using svg::escapeXml;

const char* const kColorA = "#999999";
const char* const kColorB = "#0072B2";

// "1.25× faster" in green, "0.80× (slower)" in red: b against a.
std::string speedupCell(double s) {
  if (!std::isfinite(s)) return "<td>–</td>";
  const char* cls = s >= 1.0 ? "faster" : "slower";
  return std::string("<td class=\"") + cls + "\">" + fixed(s, 3) + "×</td>";
}

std::string section(const std::string& title, const std::string& note, const std::string& body) {
  return "<section><h2>" + escapeXml(title) + "</h2>" +
         (note.empty() ? "" : "<p class=\"note\">" + note + "</p>") + body + "</section>\n";
}

std::string settings(const SavedProfile& a, const SavedProfile& b) {
  std::string s =
      "<table class=\"settings\"><thead><tr><th></th><th>A</th><th>B</th></tr></thead><tbody>";
  s += "<tr><th>file</th><td>" + escapeXml(a.path) + "</td><td>" + escapeXml(b.path) + "</td></tr>";
  for (const SettingDiff& d : settingsTable(a, b))
    s += std::string("<tr") + (d.a != d.b ? " class=\"differs\"" : "") + "><th>" +
         escapeXml(d.name) + "</th><td>" + escapeXml(d.a) + "</td><td>" + escapeXml(d.b) +
         "</td></tr>";
  const std::string work = std::to_string(a.width) + "×" + std::to_string(a.height) + ", " +
                           std::to_string(a.spp) + " spp, max depth " + std::to_string(a.maxDepth) +
                           ", " + a.integrator + ", " + std::to_string(a.triangles) + " triangles";
  s += "<tr><th>work (both)</th><td colspan=\"2\">" + escapeXml(work) + "</td></tr>";
  return s + "</tbody></table>\n";
}

std::string notes(const SavedProfile& a, const SavedProfile& b) {
  std::string s;
  if (a.referenceHash != b.referenceHash)
    s += "<p class=\"note\" id=\"images-changed\">The two profiles' images differ (hash " +
         escapeXml(a.referenceHash) + " vs " + escapeXml(b.referenceHash) +
         "): the renderer or its seed changed between them, so the work may differ too.</p>";
  for (const SavedProfile* p : {&a, &b})
    if (!p->imagesIdentical)
      s += "<p class=\"verdict mismatch\">" + escapeXml(p->path) +
           " recorded an IMAGE MISMATCH between its primitives.</p>";
  return s;
}

std::string summary(const SavedProfile& a, const SavedProfile& b) {
  std::string s =
      "<table class=\"summary\"><thead><tr><th>primitive</th><th>A render ms<br>median</th>"
      "<th>A min – max</th><th>B render ms<br>median</th><th>B min – max</th>"
      "<th>speed-up<br>B over A</th><th>A vs none</th><th>B vs none</th>"
      "<th>A compaction ms</th><th>B compaction ms</th><th>compaction<br>B over A</th>"
      "</tr></thead><tbody>";
  const auto row = [&](const std::string& name, const SavedPrimitive* x, const SavedPrimitive* y) {
    const auto cells = [](const SavedPrimitive* p) {
      if (!p) return std::string("<td>not run</td><td></td>");
      return "<td>" + fixed(p->renderMs, 2) + "</td><td>" + fixed(p->renderMinMs, 2) + " – " +
             fixed(p->renderMaxMs, 2) + "</td>";
    };
    const auto value = [](const SavedPrimitive* p, double SavedPrimitive::*f, int digits) {
      return "<td>" + (p ? fixed(p->*f, digits) : std::string("–")) + "</td>";
    };
    s += "<tr><td class=\"name\">" + escapeXml(name) + "</td>" + cells(x) + cells(y) +
         speedupCell(x && y ? speedup(x->renderMs, y->renderMs) : NAN) +
         value(x, &SavedPrimitive::speedupVsNone, 3) + value(y, &SavedPrimitive::speedupVsNone, 3) +
         value(x, &SavedPrimitive::compactionMs, 3) + value(y, &SavedPrimitive::compactionMs, 3) +
         speedupCell(x && y ? speedup(x->compactionMs, y->compactionMs) : NAN) + "</tr>";
  };
  for (const SavedPrimitive& p : a.primitives) row(p.name, &p, b.find(p.name));
  for (const SavedPrimitive& p : b.primitives)
    if (!a.find(p.name)) row(p.name, nullptr, &p);
  return s + "</tbody></table>\n";
}

// A bar per primitive both profiles ran; each series takes its value from the primitive in A and B.
using ValueOf = double (*)(const SavedPrimitive& x, const SavedPrimitive& y);
svg::Chart primitiveChart(const SavedProfile& a, const SavedProfile& b, std::string title,
                          std::string unit,
                          const std::vector<std::pair<svg::Series, ValueOf>>& series) {
  svg::Chart c;
  c.title = std::move(title);
  c.xLabel = "primitive";
  c.unit = std::move(unit);
  for (const auto& entry : series) c.series.push_back(entry.first);
  for (const std::string& name : commonPrimitives(a, b)) {
    c.categories.push_back(name);
    for (size_t k = 0; k < series.size(); ++k)
      c.series[k].values.push_back(series[k].second(*a.find(name), *b.find(name)));
  }
  return c;
}

std::string speedupChart(const SavedProfile& a, const SavedProfile& b) {
  svg::Chart c = primitiveChart(
      a, b, "Speed-up of B over A (A's median render time over B's)", "×",
      {{{"B over A", {}, kColorB}, [](const SavedPrimitive& x, const SavedPrimitive& y) {
          return speedup(x.renderMs, y.renderMs);
        }}});
  c.yLabel = "speed-up (×)";
  c.referenceLine = 1;
  c.referenceLabel = "A = 1";
  return svg::barChart(c);
}

std::string renderTimeChart(const SavedProfile& a, const SavedProfile& b) {
  svg::Chart c =
      primitiveChart(a, b, "Median render time", "ms",
                     {{{"A", {}, kColorA},
                       [](const SavedPrimitive& x, const SavedPrimitive&) { return x.renderMs; }},
                      {{"B", {}, kColorB},
                       [](const SavedPrimitive&, const SavedPrimitive& y) { return y.renderMs; }}});
  c.yLabel = "ms";
  return svg::barChart(c);
}

// Each primitive's stage totals, A beside B, stacked.
std::string stageChart(const SavedProfile& a, const SavedProfile& b) {
  svg::Chart c;
  c.title = "Stage time per render, A and B (median of each stage's total)";
  c.xLabel = "primitive, profile";
  c.yLabel = "ms";
  c.unit = "ms";
  svg::Series trace{"trace", {}, "#0072B2"}, shade{"shade", {}, "#E69F00"},
      shadow{"shadow rays", {}, "#009E73"}, comp{"compaction", {}, "#D55E00"},
      regen{"regenerate", {}, "#999999"};
  using Labelled = std::pair<const char*, const SavedPrimitive*>;
  for (const std::string& name : commonPrimitives(a, b))
    for (const auto& [label, p] :
         {Labelled{" (A)", a.find(name)}, Labelled{" (B)", b.find(name)}}) {
      c.categories.push_back(name + label);
      trace.values.push_back(p->traceMs);
      shade.values.push_back(p->shadeMs);
      shadow.values.push_back(p->shadowMs);
      comp.values.push_back(p->compactionMs);
      regen.values.push_back(p->regenerateMs);
    }
  c.series = {trace, shade, shadow, comp, regen};
  return svg::barChart(c, svg::BarLayout::Stacked);
}

const char* stepName(const SavedProfile& p) {
  return p.perPass ? "pass" : "bounce";
}

// One primitive's steps: A and B stage totals and compaction per step, one shared scale.
svg::Chart stepChart(const std::string& name, const SavedPrimitive& x, const SavedPrimitive& y,
                     const char* step) {
  svg::Chart c;
  c.title = name + ": time per " + step;
  c.xLabel = step;
  c.yLabel = "ms (median)";
  c.unit = "ms";
  c.width = 520;
  c.height = 280;
  const size_t n = std::max(x.steps.size(), y.steps.size());
  svg::Series at{"A, all stages", {}, kColorA}, bt{"B, all stages", {}, kColorB},
      ac{"A, compaction", {}, "#E69F00"}, bc{"B, compaction", {}, "#D55E00"};
  for (size_t i = 0; i < n; ++i) {
    c.categories.push_back(std::to_string(i));
    const auto get = [i](const SavedPrimitive& p, bool total) {
      if (i >= p.steps.size()) return double(NAN);
      return total ? p.steps[i].totalMs() : p.steps[i].compactionMs;
    };
    at.values.push_back(get(x, true));
    bt.values.push_back(get(y, true));
    ac.values.push_back(get(x, false));
    bc.values.push_back(get(y, false));
  }
  c.series = {at, bt, ac, bc};
  return c;
}

// Every step's totals and delta, folded away (a long render has hundreds of passes).
std::string stepTable(const SavedPrimitive& x, const SavedPrimitive& y, const char* step) {
  std::string s = "<details><summary>" + escapeXml(x.name) + ": every " + step +
                  "</summary><table class=\"summary\"><thead><tr><th>" + step +
                  "</th><th>A ms</th><th>B ms</th><th>B − A ms</th><th>A compaction</th>"
                  "<th>B compaction</th><th>A alive</th><th>B alive</th></tr></thead><tbody>";
  const size_t n = std::max(x.steps.size(), y.steps.size());
  for (size_t i = 0; i < n; ++i) {
    const StepTimes none;
    const StepTimes& p = i < x.steps.size() ? x.steps[i] : none;
    const StepTimes& q = i < y.steps.size() ? y.steps[i] : none;
    const double pt = i < x.steps.size() ? p.totalMs() : NAN;
    const double qt = i < y.steps.size() ? q.totalMs() : NAN;
    s += "<tr><td>" + std::to_string(i) + "</td><td>" + fixed(pt, 3) + "</td><td>" + fixed(qt, 3) +
         "</td><td class=\"" + (qt <= pt ? "faster" : "slower") + "\">" + fixed(qt - pt, 3) +
         "</td><td>" + fixed(p.compactionMs, 3) + "</td><td>" + fixed(q.compactionMs, 3) +
         "</td><td>" + fixed(p.alive, 0) + "</td><td>" + fixed(q.alive, 0) + "</td></tr>";
  }
  return s + "</tbody></table></details>";
}

std::string stepSection(const SavedProfile& a, const SavedProfile& b) {
  const std::string title = std::string("Per-") + stepName(a) + " deltas";
  if (a.perPass != b.perPass)
    return section("Per-step deltas",
                   std::string("A times each ") + stepName(a) + " and B each " + stepName(b) +
                       " (different schedules): their steps do not line up.",
                   "");
  std::vector<svg::Chart> charts;
  std::string tables;
  double yMax = 0;
  for (const std::string& name : commonPrimitives(a, b)) {
    const SavedPrimitive &x = *a.find(name), &y = *b.find(name);
    charts.push_back(stepChart(name, x, y, stepName(a)));
    for (const svg::Series& s : charts.back().series)
      for (double v : s.values)
        if (std::isfinite(v)) yMax = std::max(yMax, v);
    tables += stepTable(x, y, stepName(a));
  }
  std::string body = "<div class=\"grid\">";
  for (svg::Chart& c : charts) {
    c.yMax = yMax;
    body += svg::lineChart(c);
  }
  body += "</div>\n" + tables;
  return section(title,
                 std::string("Median stage times of each ") + stepName(a) +
                     ", A against B; all charts share one scale. The tables and compare.csv "
                     "hold every step's delta.",
                 body);
}

}  // namespace

const char* const kCompareCsvHeader = "primitive,row,index,quantity,a,b,b_minus_a,a_over_b";

std::string compareHtml(const SavedProfile& a, const SavedProfile& b) {
  const std::string title = "streamrt profile comparison: " + a.scene;
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" +
                  escapeXml(title) + "</title>\n<style>" + reportStyle() +
                  "</style></head>\n<body><main>\n<h1>" + escapeXml(title) + "</h1>\n";
  h += settings(a, b) + notes(a, b);
  h += section("Summary",
               "Speed-up B over A is A's median render time over B's: above 1, B is faster. "
               "\"vs none\" is each profile's own speed-up over keeping dead lanes.",
               summary(a, b));
  h += section("Speed-up of B over A", "", speedupChart(a, b));
  h += section("Render time", "", renderTimeChart(a, b));
  h += section("Where the time goes", "", stageChart(a, b));
  h += stepSection(a, b);
  return h + "</main></body></html>\n";
}

std::string compareCsv(const SavedProfile& a, const SavedProfile& b) {
  std::string out = std::string(kCompareCsvHeader) + "\n";
  const auto line = [&out](const std::string& name, const std::string& row,
                           const std::string& index, const char* quantity, double x, double y) {
    out += csvField(name) + "," + row + "," + index + "," + quantity + "," + csvNumber(x) + "," +
           csvNumber(y) + "," + csvNumber(y - x) + "," +
           csvNumber(std::isfinite(x) && y != 0 ? x / y : NAN) + "\n";
  };
  std::vector<std::string> names;
  for (const SavedPrimitive& p : a.primitives) names.push_back(p.name);
  for (const SavedPrimitive& p : b.primitives)
    if (!a.find(p.name)) names.push_back(p.name);
  const SavedPrimitive missing;
  for (const std::string& name : names) {
    const SavedPrimitive& x = a.find(name) ? *a.find(name) : missing;
    const SavedPrimitive& y = b.find(name) ? *b.find(name) : missing;
    line(name, "total", "", "render_ms", x.renderMs, y.renderMs);
    line(name, "total", "", "speedup_vs_none", x.speedupVsNone, y.speedupVsNone);
    line(name, "total", "", "trace_ms", x.traceMs, y.traceMs);
    line(name, "total", "", "shade_ms", x.shadeMs, y.shadeMs);
    line(name, "total", "", "shadow_ms", x.shadowMs, y.shadowMs);
    line(name, "total", "", "compaction_ms", x.compactionMs, y.compactionMs);
    line(name, "total", "", "regenerate_ms", x.regenerateMs, y.regenerateMs);
    if (a.perPass != b.perPass) continue;  // steps of different kinds do not line up
    const size_t n = std::max(x.steps.size(), y.steps.size());
    for (size_t i = 0; i < n; ++i) {
      const StepTimes none;
      const StepTimes& p = i < x.steps.size() ? x.steps[i] : none;
      const StepTimes& q = i < y.steps.size() ? y.steps[i] : none;
      const std::string index = std::to_string(i);
      const char* row = stepName(a);
      line(name, row, index, "all_stages_ms", i < x.steps.size() ? p.totalMs() : NAN,
           i < y.steps.size() ? q.totalMs() : NAN);
      line(name, row, index, "trace_ms", p.traceMs, q.traceMs);
      line(name, row, index, "shade_ms", p.shadeMs, q.shadeMs);
      line(name, row, index, "shadow_ms", p.shadowMs, q.shadowMs);
      line(name, row, index, "compaction_ms", p.compactionMs, q.compactionMs);
      line(name, row, index, "regenerate_ms", p.regenerateMs, q.regenerateMs);
      line(name, row, index, "alive", p.alive, q.alive);
    }
  }
  return out;
}

}  // namespace srt::profile
