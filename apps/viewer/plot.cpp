#include "apps/viewer/plot.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "apps/nice_ticks.h"

namespace srt::viewer {
namespace {

const ImU32 kAxisColor = IM_COL32(200, 200, 205, 255);
const ImU32 kGridColor = IM_COL32(200, 200, 205, 40);
const ImU32 kFrameColor = IM_COL32(20, 22, 28, 255);
constexpr int kMaxTicks = 3;  // y ticks above 0: a short plot has room for few labels

bool drawn(float v) {
  return std::isfinite(v) && v > 0;
}

size_t countOf(const std::vector<PlotSeries>& series) {
  size_t n = 0;
  for (const PlotSeries& s : series) n = std::max(n, s.values.size());
  return n;
}

// The top of the data: the tallest stack.
double dataMax(const std::vector<PlotSeries>& series, size_t n) {
  double top = 0;
  for (size_t i = 0; i < n; ++i) {
    double stack = 0;
    for (const PlotSeries& s : series) {
      const float v = i < s.values.size() ? s.values[i] : NAN;
      if (!drawn(v)) continue;
      stack += v;
    }
    top = std::max(top, stack);
  }
  return top;
}

void legend(const std::vector<PlotSeries>& series) {
  if (series.size() < 2) return;
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const float box = ImGui::GetTextLineHeight() * 0.7f;
  for (size_t i = 0; i < series.size(); ++i) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float width = box + 4 + ImGui::CalcTextSize(series[i].name.c_str()).x;
    if (i > 0 && p.x + width + 12 > ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x)
      ImGui::NewLine();
    const ImVec2 q = ImGui::GetCursorScreenPos();
    const float dy = (ImGui::GetTextLineHeight() - box) / 2;
    draw->AddRectFilled({q.x, q.y + dy}, {q.x + box, q.y + dy + box}, series[i].color);
    ImGui::Dummy({box, ImGui::GetTextLineHeight()});
    ImGui::SameLine(0, 4);
    ImGui::TextUnformatted(series[i].name.c_str());
    if (i + 1 < series.size()) ImGui::SameLine(0, 12);
  }
}

// X positions to label: the first, the last, and a few between at round steps.
std::vector<size_t> xTickIndices(size_t n, int firstIndex, float width, float labelWidth) {
  if (n == 0) return {};
  const size_t most = std::max<size_t>(2, size_t(width / (labelWidth + 16)));
  size_t step = 1;
  for (size_t k : {1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000}) {
    step = k;
    if (n / k + 2 <= most) break;
  }
  std::vector<size_t> at;
  for (size_t i = 0; i < n; ++i)
    if ((size_t(firstIndex) + i) % step == 0 && i + step / 2 < n - 1) at.push_back(i);
  if (at.empty() || at.front() != 0) at.insert(at.begin(), 0);
  if (n > 1) at.push_back(n - 1);
  return at;
}

Rect rectOf(ImVec2 a, ImVec2 b) {
  return {a.x, a.y, b.x - a.x, b.y - a.y};
}

void tooltip(const PlotSpec& spec, const std::vector<PlotSeries>& series, size_t i) {
  ImGui::BeginTooltip();
  ImGui::Text("%s: %d", spec.title.c_str(), spec.firstIndex + int(i));
  for (const PlotSeries& s : series) {
    const float v = i < s.values.size() ? s.values[i] : NAN;
    ImGui::Text("%s %s", s.name.c_str(), std::isfinite(v) ? tickLabel(v).c_str() : "-");
  }
  ImGui::EndTooltip();
}

// The plotting area and the value -> pixel mapping.
struct Axes {
  ImVec2 a0, a1;  // top left, bottom right
  double top = 1;
  float band = 0;  // the width of one x position
  float y(double v) const { return a1.y - float(v / top) * (a1.y - a0.y); }
  float x(size_t i) const { return a0.x + band * (float(i) + 0.5f); }
};

void drawYAxis(ImDrawList* draw, const Axes& axes, const std::vector<double>& ticks,
               PlotReport& r) {
  for (size_t k = 0; k < ticks.size(); ++k) {
    const float y = axes.y(ticks[k]);
    if (k > 0) draw->AddLine({axes.a0.x, y}, {axes.a1.x, y}, kGridColor);
    draw->AddLine({axes.a0.x - 4, y}, {axes.a0.x, y}, kAxisColor);
    const ImVec2 size = ImGui::CalcTextSize(r.yTicks[k].c_str());
    const ImVec2 at = {axes.a0.x - 6 - size.x, y - size.y / 2};
    draw->AddText(at, kAxisColor, r.yTicks[k].c_str());
    r.tickLabels.push_back(rectOf(at, {at.x + size.x, at.y + size.y}));
  }
}

// One bar per x position, the series stacked in order.
void drawBars(ImDrawList* draw, const Axes& axes, const std::vector<PlotSeries>& series, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    double base = 0;
    const float x0 = axes.a0.x + axes.band * float(i) + (axes.band > 3 ? 1 : 0);
    const float x1 = std::max(axes.a0.x + axes.band * float(i + 1), x0 + 1);
    for (const PlotSeries& s : series) {
      const float v = i < s.values.size() ? s.values[i] : NAN;
      if (!drawn(v)) continue;
      draw->AddRectFilled({x0, axes.y(base + v)}, {x1, axes.y(base)}, s.color);
      base += v;
    }
  }
}

void drawXAxis(ImDrawList* draw, const Axes& axes, int firstIndex, size_t n, PlotReport& r) {
  const float digitWidth = ImGui::CalcTextSize(tickLabel(double(firstIndex + n)).c_str()).x;
  for (size_t i : xTickIndices(n, firstIndex, axes.a1.x - axes.a0.x, digitWidth)) {
    const float x = axes.x(i);
    r.xTicks.push_back(std::to_string(firstIndex + int(i)));
    const ImVec2 size = ImGui::CalcTextSize(r.xTicks.back().c_str());
    const ImVec2 at = {std::clamp(x - size.x / 2, axes.a0.x, axes.a1.x - size.x), axes.a1.y + 3};
    draw->AddLine({x, axes.a1.y}, {x, axes.a1.y + 3}, kAxisColor);
    draw->AddText(at, kAxisColor, r.xTicks.back().c_str());
    r.tickLabels.push_back(rectOf(at, {at.x + size.x, at.y + size.y}));
  }
}

}  // namespace

std::string tickLabel(double v) {
  return shortNumber(v, 1e4, 4);  // 1234 in full: the plots count frames and passes
}

PlotReport drawPlot(const PlotSpec& spec, const std::vector<PlotSeries>& series) {
  PlotReport r;
  r.title = spec.title;
  const size_t n = countOf(series);
  r.values = n;
  ImGui::TextUnformatted(spec.title.c_str());
  legend(series);

  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float width = std::max(ImGui::GetContentRegionAvail().x, 80.f);
  const float textHeight = ImGui::GetTextLineHeight();
  const std::vector<double> ticks = niceTicks(dataMax(series, n), kMaxTicks);
  float labelWidth = 0;
  for (double t : ticks) {
    r.yTicks.push_back(tickLabel(t));
    labelWidth = std::max(labelWidth, ImGui::CalcTextSize(r.yTicks.back().c_str()).x);
  }
  const ImVec2 frameMax = {origin.x + width, origin.y + spec.height};
  Axes axes;
  axes.a0 = {origin.x + labelWidth + 8, origin.y + textHeight / 2 + 2};
  axes.a1 = {frameMax.x - 6, frameMax.y - textHeight - 6};
  axes.top = ticks.back();
  axes.band = n ? (axes.a1.x - axes.a0.x) / float(n) : 0;
  r.frame = rectOf(origin, frameMax);
  r.area = rectOf(axes.a0, axes.a1);
  draw->AddRectFilled(origin, frameMax, kFrameColor, 3);

  drawYAxis(draw, axes, ticks, r);
  drawBars(draw, axes, series, n);
  draw->AddLine(axes.a0, {axes.a0.x, axes.a1.y}, kAxisColor);  // the axes over the bars
  draw->AddLine({axes.a0.x, axes.a1.y}, axes.a1, kAxisColor);
  drawXAxis(draw, axes, spec.firstIndex, n, r);
  if (n == 0) draw->AddText({axes.a0.x + 8, axes.a0.y + 4}, kAxisColor, "no data yet");

  ImGui::InvisibleButton(spec.title.c_str(), {width, spec.height});
  if (ImGui::IsItemHovered() && n > 0 && axes.band > 0) {
    const float mx = ImGui::GetIO().MousePos.x;
    tooltip(spec, series, size_t(std::clamp((mx - axes.a0.x) / axes.band, 0.f, float(n - 1))));
  }
  return r;
}

}  // namespace srt::viewer
