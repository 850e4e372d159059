#include "apps/viewer/accumulator.h"

#include <stdexcept>
#include <string>

namespace srt::viewer {

void Accumulator::reset(int width, int height) {
  mean_ = Image(width, height);
  frames_ = 0;
}

void Accumulator::add(const Image& frame) {
  if (frame.width != mean_.width || frame.height != mean_.height)
    throw std::invalid_argument("accumulator: a " + std::to_string(frame.width) + "x" +
                                std::to_string(frame.height) + " frame added to a " +
                                std::to_string(mean_.width) + "x" + std::to_string(mean_.height) +
                                " mean");
  ++frames_;
  // The first frame is copied, so one frame is exactly the frame (no 0 + x rounding question).
  if (frames_ == 1) {
    mean_.pixels = frame.pixels;
    return;
  }
  const float w = 1.f / float(frames_);
  for (size_t i = 0; i < mean_.pixels.size(); ++i)
    mean_.pixels[i] = mean_.pixels[i] + (frame.pixels[i] - mean_.pixels[i]) * w;
}

}  // namespace srt::viewer
