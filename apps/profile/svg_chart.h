// Small SVG charts for the profile report: bar charts (grouped or stacked) and line charts over
// named categories, with a title, axis labels, ticks and a legend. Each call returns one
// self-contained <svg> element (no scripts, no external fonts), so the report opens anywhere.
//
// Every bar is a <rect class="bar"> and every line a <path class="line">, each carrying its value
// in data- attributes and a <title> tooltip, so tests can read the chart back.
#pragma once

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

namespace srt::svg {

struct Series {
  std::string name;
  std::vector<double> values;  // one per category; NaN: no value (a gap)
  std::string color;           // empty: the palette's colour for the series' index
};

struct Chart {
  std::string title;
  std::string xLabel, yLabel;
  std::vector<std::string> categories;
  std::vector<Series> series;
  double yMax = 0;                 // 0: from the data; charts shown side by side share a scale
  double referenceLine = NAN;      // a dashed horizontal line (speed-up 1 = the baseline)
  std::string referenceLabel;      // text beside the reference line
  std::string unit;                // appended to values in tooltips ("ms")
  int width = 1040, height = 340;  // the plot grows to fit a long legend
};

enum class BarLayout { Grouped, Stacked };

std::string barChart(const Chart& chart, BarLayout layout = BarLayout::Grouped);
std::string lineChart(const Chart& chart);

// Text for XML content and attributes: & < > " ' replaced by entities.
std::string escapeXml(std::string_view text);
// A colour-blind friendly palette, repeated past its end.
std::string paletteColor(size_t index);
// Short numbers for labels: 0.0123, 1.5, 12, 3.4k, 5.6M, 7.8G.
std::string formatNumber(double v);

}  // namespace srt::svg
