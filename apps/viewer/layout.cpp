#include "apps/viewer/layout.h"

#include <algorithm>
#include <cmath>

namespace srt::viewer {

Layout computeLayout(float windowWidth, float windowHeight, int imageWidth, int imageHeight,
                     bool collapsed, float panelWidth) {
  Layout l;
  l.collapsed = collapsed;
  l.window = {0, 0, std::max(windowWidth, 0.f), std::max(windowHeight, 0.f)};
  const float side = collapsed ? std::min(kStripWidth, l.window.width)
                               : std::min(panelWidth, std::floor(l.window.width / 2));
  l.panel = {l.window.width - side, 0, side, l.window.height};
  l.imageArea = {0, 0, l.window.width - side, l.window.height};
  if (imageWidth <= 0 || imageHeight <= 0 || l.imageArea.empty()) return l;
  const float scale =
      std::min(l.imageArea.width / float(imageWidth), l.imageArea.height / float(imageHeight));
  // Whole pixels, so the image never reaches the panel through rounding.
  const float w = std::floor(float(imageWidth) * scale), h = std::floor(float(imageHeight) * scale);
  l.image = {std::floor((l.imageArea.width - w) / 2), std::floor((l.imageArea.height - h) / 2), w,
             h};
  return l;
}

PixelRect toFramebuffer(const Rect& r, float windowHeight, float scaleX, float scaleY) {
  const int x0 = int(std::lround(r.x * scaleX)), x1 = int(std::lround(r.right() * scaleX));
  const int top = int(std::lround(r.y * scaleY)), bottom = int(std::lround(r.bottom() * scaleY));
  const int fbHeight = int(std::lround(windowHeight * scaleY));
  return {x0, fbHeight - bottom, x1 - x0, bottom - top};
}

}  // namespace srt::viewer
