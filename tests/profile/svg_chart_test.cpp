// The report's chart generator: bar heights follow the values, stacks add up, names are escaped,
// gaps and empty charts stay well-formed.
#include "apps/profile/svg_chart.h"
#include "apps/nice_ticks.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

namespace srt::svg {
namespace {

struct Rect {
  std::string series, category;
  double value, x, y, width, height;
};

// Reads back every <rect class="bar"> the generator wrote.
std::vector<Rect> bars(const std::string& svg) {
  static const std::regex re(
      "<rect class=\"bar\" data-series=\"([^\"]*)\" data-category=\"([^\"]*)\" "
      "data-value=\"([^\"]*)\" x=\"([^\"]*)\" y=\"([^\"]*)\" width=\"([^\"]*)\" "
      "height=\"([^\"]*)\"");
  std::vector<Rect> out;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator();
       ++it) {
    const std::smatch& m = *it;
    out.push_back({m[1], m[2], std::stod(m[3]), std::stod(m[4]), std::stod(m[5]), std::stod(m[6]),
                   std::stod(m[7])});
  }
  return out;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

Chart threeBars() {
  Chart c;
  c.title = "t";
  c.categories = {"a", "b", "c"};
  c.series = {{"s", {1, 2, 4}, ""}};
  return c;
}

TEST(SvgChart, BarHeightsAreProportionalToValues) {
  const std::vector<Rect> r = bars(barChart(threeBars()));
  ASSERT_EQ(r.size(), 3u);
  ASSERT_GT(r[0].height, 0);
  EXPECT_NEAR(r[1].height / r[0].height, 2.0, 0.02);
  EXPECT_NEAR(r[2].height / r[0].height, 4.0, 0.03);
  // Bars stand on one baseline and go left to right in category order.
  EXPECT_NEAR(r[0].y + r[0].height, r[2].y + r[2].height, 0.11);
  EXPECT_LT(r[0].x, r[1].x);
  EXPECT_LT(r[1].x, r[2].x);
}

TEST(SvgChart, SharedScaleKeepsEqualValuesEqualAcrossCharts) {
  Chart small = threeBars(), large = threeBars();
  large.series[0].values = {1, 2, 40};
  small.yMax = large.yMax = 40;
  EXPECT_NEAR(bars(barChart(small))[0].height, bars(barChart(large))[0].height, 1e-9);
}

TEST(SvgChart, StackedBarsSitOnEachOther) {
  Chart c;
  c.categories = {"0", "1"};
  c.series = {{"trace", {3, 1}, ""}, {"shade", {1, 1}, ""}};
  const std::vector<Rect> r = bars(barChart(c, BarLayout::Stacked));
  ASSERT_EQ(r.size(), 4u);  // category 0: trace, shade; category 1: trace, shade
  EXPECT_EQ(r[0].series, "trace");
  EXPECT_EQ(r[1].series, "shade");
  EXPECT_NEAR(r[1].y + r[1].height, r[0].y, 0.11);  // shade starts where trace ends
  EXPECT_DOUBLE_EQ(r[0].x, r[1].x);
  EXPECT_NEAR(r[0].height / r[1].height, 3.0, 0.03);
  // The tallest stack (4) fills the scale up to its top tick, not past it.
  EXPECT_GT(r[0].height + r[1].height, 2 * (r[2].height + r[3].height) - 0.2);
}

TEST(SvgChart, GroupedBarsSitSideBySide) {
  Chart c;
  c.categories = {"x"};
  c.series = {{"p", {1}, ""}, {"q", {2}, ""}};
  const std::vector<Rect> r = bars(barChart(c));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_NEAR(r[0].x + r[0].width, r[1].x, 0.11);
  EXPECT_NEAR(r[1].height, 2 * r[0].height, 0.2);
}

TEST(SvgChart, NamesAreEscaped) {
  Chart c = threeBars();
  c.title = "a <b> & \"c\"";
  c.categories[0] = "<script>alert(1)</script>";
  c.series = {{"gl-roger:scan='x'&y", {1, 2, 3}, ""}, {"<b>", {1, 1, 1}, ""}};
  for (const std::string& svg : {barChart(c), lineChart(c)}) {
    EXPECT_EQ(svg.find("<script>"), std::string::npos);
    EXPECT_EQ(svg.find("<b>"), std::string::npos);
    EXPECT_NE(svg.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
    EXPECT_NE(svg.find("a &lt;b&gt; &amp; &quot;c&quot;"), std::string::npos);
    EXPECT_NE(svg.find("gl-roger:scan=&#39;x&#39;&amp;y"), std::string::npos);
  }
  EXPECT_EQ(escapeXml("plain"), "plain");
}

TEST(SvgChart, EveryChartHasTitleAxesAndLegend) {
  Chart c = threeBars();
  c.title = "Compaction time";
  c.xLabel = "bounce";
  c.yLabel = "ms";
  c.series.push_back({"second", {2, 2, 2}, ""});
  const std::string svg = lineChart(c);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_EQ(count(svg, "<svg"), 1u);
  EXPECT_EQ(count(svg, "</svg>"), 1u);
  EXPECT_NE(svg.find(">Compaction time</text>"), std::string::npos);
  EXPECT_NE(svg.find("class=\"x-label\""), std::string::npos);
  EXPECT_NE(svg.find(">bounce</text>"), std::string::npos);
  EXPECT_NE(svg.find(">ms</text>"), std::string::npos);
  EXPECT_EQ(count(svg, "class=\"legend-entry\""), 2u);
  EXPECT_EQ(count(svg, "class=\"line\""), 2u);
}

TEST(SvgChart, LineChartBreaksAtMissingValues) {
  Chart c;
  c.categories = {"0", "1", "2", "3"};
  c.series = {{"s", {1, NAN, 3, 4}, ""}};
  const std::string svg = lineChart(c);
  const size_t d = svg.find(" d=\"");
  ASSERT_NE(d, std::string::npos);
  const std::string path = svg.substr(d + 4, svg.find('"', d + 4) - d - 4);
  EXPECT_EQ(count(path, "M"), 2u);  // two segments: {0} and {2, 3}
  EXPECT_EQ(count(path, "L"), 1u);
  EXPECT_EQ(count(svg, "<circle"), 3u);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
}

TEST(SvgChart, EmptyChartSaysNoData) {
  Chart c;
  c.title = "nothing";
  for (const std::string& svg : {barChart(c), lineChart(c)}) {
    EXPECT_NE(svg.find("class=\"no-data\""), std::string::npos);
    EXPECT_EQ(svg.find("class=\"bar\""), std::string::npos);
    EXPECT_EQ(svg.find("nan"), std::string::npos);
    EXPECT_EQ(count(svg, "</svg>"), 1u);
  }
  c.categories = {"a"};
  c.series = {{"s", {NAN}, ""}};
  EXPECT_NE(barChart(c).find("no data"), std::string::npos);
}

TEST(SvgChart, ReferenceLineIsDrawnAndInScale) {
  Chart c = threeBars();
  c.series[0].values = {0.2, 0.3, 0.4};
  c.referenceLine = 1;
  c.referenceLabel = "none = 1";
  const std::string svg = barChart(c);
  EXPECT_NE(svg.find("class=\"reference\""), std::string::npos);
  EXPECT_NE(svg.find("none = 1"), std::string::npos);
  const std::vector<Rect> r = bars(svg);
  ASSERT_EQ(r.size(), 3u);
  // The line sits at value 1 on the bars' scale: a bar of 0.4 reaches 0.4 of the way up to it.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(svg, m, std::regex("class=\"reference\"[^>]* y1=\"([0-9.]+)\"")));
  const double baseline = r[2].y + r[2].height, lineY = std::stod(m[1]);
  EXPECT_NEAR(r[2].height / (baseline - lineY), 0.4, 0.01);
}

TEST(SvgChart, NiceTicks) {
  EXPECT_EQ(niceTicks(7.3, 5), (std::vector<double>{0, 2, 4, 6, 8}));
  EXPECT_EQ(niceTicks(100, 5), (std::vector<double>{0, 20, 40, 60, 80, 100}));
  EXPECT_EQ(niceTicks(0, 5), (std::vector<double>{0, 1}));
  EXPECT_EQ(niceTicks(NAN, 5), (std::vector<double>{0, 1}));
  const std::vector<double> t = niceTicks(0.037, 5);
  EXPECT_GE(t.back(), 0.037);
  EXPECT_LE(t.size(), 8u);
}

TEST(SvgChart, FormatNumber) {
  EXPECT_EQ(formatNumber(0), "0");
  EXPECT_EQ(formatNumber(1500), "1.5k");
  EXPECT_EQ(formatNumber(2e6), "2M");
  EXPECT_EQ(formatNumber(3.5e9), "3.5G");
  EXPECT_EQ(formatNumber(0.25), "0.25");
}

}  // namespace
}  // namespace srt::svg
