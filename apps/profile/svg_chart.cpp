#include "apps/profile/svg_chart.h"

#include <algorithm>
#include <cstdio>

#include "apps/nice_ticks.h"

namespace srt::svg {
namespace {

constexpr double kCharWidth = 6.4;  // about one 11 px sans-serif character
constexpr double kLegendRow = 18;
constexpr int kTicks = 5;  // about as many y ticks

std::string px(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

std::string valueText(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

bool hasData(const Chart& c) {
  if (c.categories.empty()) return false;
  for (const Series& s : c.series)
    for (double v : s.values)
      if (std::isfinite(v)) return true;
  return false;
}

double valueAt(const Series& s, size_t i) {
  return i < s.values.size() && std::isfinite(s.values[i]) ? s.values[i] : NAN;
}

std::string colorOf(const Chart& c, size_t i) {
  return c.series[i].color.empty() ? paletteColor(i) : c.series[i].color;
}

// The plot area and the value -> pixel mapping, after room is made for labels and the legend.
struct Frame {
  double left = 64, right = 0, top = 40, bottom = 0;
  double yTop = 1;
  int width = 0, height = 0;
  size_t n = 1;
  bool rotateLabels = false;
  size_t labelEvery = 1;
  double band() const { return (right - left) / double(n); }
  double x(size_t i) const { return left + band() * (double(i) + 0.5); }
  double y(double v) const { return bottom - (bottom - top) * std::clamp(v / yTop, 0.0, 1.0); }
};

Frame layout(const Chart& c, double dataMax) {
  Frame f;
  f.n = std::max<size_t>(1, c.categories.size());
  f.width = std::max(c.width, 240);
  size_t longestName = 0, longestLabel = 0;
  for (const Series& s : c.series) longestName = std::max(longestName, s.name.size());
  for (const std::string& l : c.categories) longestLabel = std::max(longestLabel, l.size());
  const bool legend = c.series.size() > 1;
  const double legendWidth = legend ? std::clamp(30 + longestName * kCharWidth, 90.0, 240.0) : 0;
  f.right = f.width - 16 - legendWidth;
  const double plotWidth = f.right - f.left;
  // Labels wider than their band are turned; when even turned ones collide, only every k-th shows.
  f.rotateLabels = longestLabel * kCharWidth > f.band() * 0.9;
  if (f.rotateLabels) f.labelEvery = size_t(std::ceil(f.n * 14.0 / plotWidth));
  const double labelDepth =
      f.rotateLabels ? std::min(longestLabel * kCharWidth * 0.7, 130.0) + 8 : 16;
  const double bottomMargin = 30 + labelDepth;
  const double legendHeight = legend ? f.top + c.series.size() * kLegendRow + 8 : 0;
  f.height = int(std::max<double>({double(c.height), legendHeight + bottomMargin, 160.0}));
  f.bottom = f.height - bottomMargin;
  double top = std::max(dataMax, std::isfinite(c.referenceLine) ? c.referenceLine : 0.0);
  if (c.yMax > 0) top = c.yMax;
  f.yTop = niceTicks(top, kTicks).back();
  return f;
}

std::string open(const Chart& c, const Frame& f) {
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" +
                  std::to_string(f.width) + "\" height=\"" + std::to_string(f.height) +
                  "\" viewBox=\"0 0 " + std::to_string(f.width) + " " + std::to_string(f.height) +
                  "\" role=\"img\" font-family=\"sans-serif\" font-size=\"11\" fill=\"#333\">\n";
  s += "<title>" + escapeXml(c.title) + "</title>\n";
  s += "<rect class=\"background\" width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n";
  s += "<text class=\"chart-title\" x=\"" + px(f.width / 2.0) +
       "\" y=\"22\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\">" +
       escapeXml(c.title) + "</text>\n";
  return s;
}

// Grid, ticks, axes, axis titles, category labels and the legend.
std::string axesAndLegend(const Chart& c, const Frame& f) {
  std::string s;
  for (double t : niceTicks(f.yTop, kTicks)) {
    const std::string y = px(f.y(t));
    s += "<line x1=\"" + px(f.left) + "\" x2=\"" + px(f.right) + "\" y1=\"" + y + "\" y2=\"" + y +
         "\" stroke=\"#e4e4e4\"/>";
    s += "<text x=\"" + px(f.left - 6) + "\" y=\"" + y + "\" dy=\"0.35em\" text-anchor=\"end\">" +
         formatNumber(t) + "</text>\n";
  }
  s += "<line x1=\"" + px(f.left) + "\" x2=\"" + px(f.left) + "\" y1=\"" + px(f.top) + "\" y2=\"" +
       px(f.bottom) + "\" stroke=\"#555\"/>";
  s += "<line x1=\"" + px(f.left) + "\" x2=\"" + px(f.right) + "\" y1=\"" + px(f.bottom) +
       "\" y2=\"" + px(f.bottom) + "\" stroke=\"#555\"/>\n";
  for (size_t i = 0; i < c.categories.size(); i += f.labelEvery) {
    const std::string x = px(f.x(i)), y = px(f.bottom + 14);
    s += "<text class=\"category\" x=\"" + x + "\" y=\"" + y + "\"";
    if (f.rotateLabels)
      s += " text-anchor=\"end\" transform=\"rotate(-40 " + x + " " + y + ")\"";
    else
      s += " text-anchor=\"middle\"";
    s += ">" + escapeXml(c.categories[i]) + "</text>\n";
  }
  s += "<text class=\"x-label\" x=\"" + px((f.left + f.right) / 2) + "\" y=\"" +
       px(f.height - 8.0) + "\" text-anchor=\"middle\" font-size=\"12\">" + escapeXml(c.xLabel) +
       "</text>\n";
  const std::string yMid = px((f.top + f.bottom) / 2);
  s += "<text class=\"y-label\" x=\"16\" y=\"" + yMid + "\" transform=\"rotate(-90 16 " + yMid +
       ")\" text-anchor=\"middle\" font-size=\"12\">" + escapeXml(c.yLabel) + "</text>\n";
  if (std::isfinite(c.referenceLine)) {
    const std::string y = px(f.y(c.referenceLine));
    s += "<line class=\"reference\" x1=\"" + px(f.left) + "\" x2=\"" + px(f.right) + "\" y1=\"" +
         y + "\" y2=\"" + y + "\" stroke=\"#c00\" stroke-dasharray=\"5 4\"/>";
    s += "<text x=\"" + px(f.right - 4) + "\" y=\"" + px(f.y(c.referenceLine) - 5) +
         "\" text-anchor=\"end\" fill=\"#c00\">" + escapeXml(c.referenceLabel) + "</text>\n";
  }
  if (c.series.size() > 1) {
    for (size_t i = 0; i < c.series.size(); ++i) {
      const double y = f.top + i * kLegendRow;
      s += "<g class=\"legend-entry\"><rect x=\"" + px(f.right + 16) + "\" y=\"" + px(y) +
           "\" width=\"12\" height=\"12\" fill=\"" + colorOf(c, i) + "\"/><text x=\"" +
           px(f.right + 34) + "\" y=\"" + px(y + 10) + "\">" + escapeXml(c.series[i].name) +
           "</text></g>\n";
    }
  }
  return s;
}

std::string noData(const Chart& c) {
  Frame f = layout(c, 0);
  return open(c, f) + axesAndLegend(c, f) + "<text class=\"no-data\" x=\"" +
         px((f.left + f.right) / 2) + "\" y=\"" + px((f.top + f.bottom) / 2) +
         "\" text-anchor=\"middle\" fill=\"#888\">no data</text>\n</svg>\n";
}

std::string tooltip(const Chart& c, size_t series, size_t category, double v) {
  return "<title>" + escapeXml(c.series[series].name) + " · " + escapeXml(c.categories[category]) +
         ": " + valueText(v) + (c.unit.empty() ? "" : " " + escapeXml(c.unit)) + "</title>";
}

std::string bar(const Chart& c, size_t si, size_t ci, double v, double x, double w, double y0,
                double y1) {
  return "<rect class=\"bar\" data-series=\"" + escapeXml(c.series[si].name) +
         "\" data-category=\"" + escapeXml(c.categories[ci]) + "\" data-value=\"" + valueText(v) +
         "\" x=\"" + px(x) + "\" y=\"" + px(y1) + "\" width=\"" + px(w) + "\" height=\"" +
         px(y0 - y1) + "\" fill=\"" + colorOf(c, si) + "\">" + tooltip(c, si, ci, v) + "</rect>\n";
}

}  // namespace

std::string escapeXml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string paletteColor(size_t index) {
  // Okabe-Ito, then a few Tableau tones: distinguishable with the common colour-vision
  // deficiencies.
  static const char* colors[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7",
                                 "#56B4E9", "#F0E442", "#000000", "#8c564b", "#7f7f7f",
                                 "#bcbd22", "#17becf", "#9467bd", "#aec7e8"};
  return colors[index % (sizeof colors / sizeof colors[0])];
}

std::string formatNumber(double v) {
  return shortNumber(v, 1e3, 3);
}

std::string barChart(const Chart& c, BarLayout layout_) {
  if (!hasData(c)) return noData(c);
  double dataMax = 0;
  for (size_t i = 0; i < c.categories.size(); ++i) {
    double sum = 0;
    for (const Series& s : c.series) {
      const double v = std::max(0.0, std::isfinite(valueAt(s, i)) ? valueAt(s, i) : 0.0);
      sum += v;
      dataMax = std::max(dataMax, v);
    }
    if (layout_ == BarLayout::Stacked) dataMax = std::max(dataMax, sum);
  }
  // A single series shows each value above its bar where the label fits its band; the scale
  // gets headroom for the labels.
  const bool valueLabels = c.series.size() == 1;
  if (valueLabels) dataMax *= 1.08;
  const Frame f = layout(c, dataMax);
  std::string s = open(c, f) + axesAndLegend(c, f);
  const bool stacked = layout_ == BarLayout::Stacked;
  // Bars no wider than 72 px: a chart of three primitives should not look like three walls.
  const double groupWidth =
      std::min(f.band() * (stacked ? 0.6 : 0.8), 72.0 * (stacked ? 1.0 : double(c.series.size())));
  const double barWidth = stacked ? groupWidth : groupWidth / double(c.series.size());
  for (size_t ci = 0; ci < c.categories.size(); ++ci) {
    double base = 0;
    for (size_t si = 0; si < c.series.size(); ++si) {
      const double v = valueAt(c.series[si], ci);
      if (!std::isfinite(v)) continue;
      const double x = f.x(ci) - groupWidth / 2 + (stacked ? 0 : barWidth * double(si));
      const double top = base + std::max(v, 0.0);
      s += bar(c, si, ci, v, x, barWidth, f.y(base), f.y(top));
      const std::string label = formatNumber(v) + (c.unit.size() <= 2 ? c.unit : "");
      if (valueLabels && label.size() * kCharWidth * 0.9 <= f.band() * 0.95)
        s += "<text class=\"value\" x=\"" + px(x + barWidth / 2) + "\" y=\"" + px(f.y(top) - 4) +
             "\" text-anchor=\"middle\" font-size=\"10\">" + escapeXml(label) + "</text>\n";
      if (stacked) base = top;
    }
  }
  return s + "</svg>\n";
}

std::string lineChart(const Chart& c) {
  if (!hasData(c)) return noData(c);
  double dataMax = 0;
  for (const Series& s : c.series)
    for (double v : s.values)
      if (std::isfinite(v)) dataMax = std::max(dataMax, v);
  const Frame f = layout(c, dataMax);
  std::string s = open(c, f) + axesAndLegend(c, f);
  const bool markers = c.categories.size() <= 40;
  for (size_t si = 0; si < c.series.size(); ++si) {
    std::string d, dots;
    bool penDown = false;
    for (size_t ci = 0; ci < c.categories.size(); ++ci) {
      const double v = valueAt(c.series[si], ci);
      if (!std::isfinite(v)) {
        penDown = false;  // a gap: the next value starts a new segment
        continue;
      }
      d += (penDown ? " L" : (d.empty() ? "M" : " M")) + px(f.x(ci)) + " " + px(f.y(v));
      penDown = true;
      if (markers)
        dots += "<circle cx=\"" + px(f.x(ci)) + "\" cy=\"" + px(f.y(v)) + "\" r=\"3\" fill=\"" +
                colorOf(c, si) + "\">" + tooltip(c, si, ci, v) + "</circle>";
    }
    if (d.empty()) continue;
    s += "<path class=\"line\" data-series=\"" + escapeXml(c.series[si].name) + "\" d=\"" + d +
         "\" fill=\"none\" stroke=\"" + colorOf(c, si) + "\" stroke-width=\"2\"/>\n" + dots + "\n";
  }
  return s + "</svg>\n";
}

}  // namespace srt::svg
