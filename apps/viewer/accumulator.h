// Progressive accumulation: the running mean of 1-spp frames, kept on the host so a screenshot
// is the mean itself (the same numbers an N-spp `streamrt render` writes).
#pragma once

#include "base/image_io.h"

namespace srt::viewer {

class Accumulator {
 public:
  // Drops every frame so far (camera moved, options changed, resolution changed).
  void reset(int width, int height);
  // Folds one frame in: mean_k = mean_{k-1} + (frame - mean_{k-1}) / k. Throws
  // std::invalid_argument when the frame's size differs from the one reset() set.
  void add(const Image& frame);
  int frames() const { return frames_; }
  const Image& mean() const { return mean_; }

 private:
  Image mean_;
  int frames_ = 0;
};

}  // namespace srt::viewer
