// Where things go in the viewer's window: the panel docked on the right (or collapsed to a
// strip), the image area beside it, and the image letterboxed inside that area. The image is
// never under the panel. Rectangles are in window coordinates (origin top left), as Dear ImGui
// uses them; toFramebuffer() turns one into GL's pixels (origin bottom left).
#pragma once

namespace srt::viewer {

struct Rect {
  float x = 0, y = 0, width = 0, height = 0;
  float right() const { return x + width; }
  float bottom() const { return y + height; }
  bool empty() const { return width <= 0 || height <= 0; }
  bool overlaps(const Rect& o) const {
    return x < o.right() && o.x < right() && y < o.bottom() && o.y < bottom();
  }
  bool contains(const Rect& o) const {
    return o.x >= x && o.y >= y && o.right() <= right() && o.bottom() <= bottom();
  }
};

struct Layout {
  Rect window;     // the whole window
  Rect panel;      // the docked panel, or the strip it collapses to
  Rect imageArea;  // the rest of the window
  Rect image;      // the image, as large as fits in imageArea, its aspect kept, centred
  bool collapsed = false;
};

// The panel takes `panelWidth` (at most half the window) on the right, or `stripWidth` when
// collapsed; the image fits what is left.
constexpr float kPanelWidth = 430, kStripWidth = 30;
Layout computeLayout(float windowWidth, float windowHeight, int imageWidth, int imageHeight,
                     bool collapsed, float panelWidth = kPanelWidth);

// GL viewport pixels for a window rectangle: scaled by the framebuffer's density and flipped, so
// y counts from the bottom. Edges are rounded so neighbouring rectangles share their edge.
struct PixelRect {
  int x = 0, y = 0, width = 0, height = 0;
};
PixelRect toFramebuffer(const Rect& r, float windowHeight, float scaleX, float scaleY);

}  // namespace srt::viewer
