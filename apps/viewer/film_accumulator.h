// Progressive accumulation: the sum of the 1-spp frames' fixed-point films, kept where the
// renderer's film lives (device memory on CUDA), so no frame crosses to the host. Integer sums
// add exactly: after N frames the mean is the film an N-spp `streamrt render` makes, bit for bit
// (while no sample reaches the per-sample clamp, kFilmMaxSum / RenderSession::kFilmClampFrames).
#pragma once

#include "base/image_io.h"
#include "primitives/common/memory.h"
#include "renderer/backend/backend.h"

namespace srt::viewer {

class FilmAccumulator {
 public:
  explicit FilmAccumulator(const Backend& backend) : backend_(backend) {}
  // Drops every frame so far (camera moved, options changed, resolution changed).
  void reset(int width, int height);
  // Adds one frame's film (3 fixed-point sums per pixel, in the backend's memory, width*height
  // pixels as reset() set). On CUDA this is a kernel queued on the backend's stream: no wait.
  void add(const unsigned long long* frameSums);
  // The mean of the frames so far, as packed RGB floats into `out` (width*height of them, in the
  // backend's memory or, on CUDA, a mapped GL pixel buffer); queued on the stream, no wait.
  void resolve(Vec3f* out) const;
  // The mean on the host (screenshots, the CPU display, the fallback when interop fails): waits.
  Image mean() const;

  int frames() const { return frames_; }
  int width() const { return width_; }
  int height() const { return height_; }
  const Backend& backend() const { return backend_; }

 private:
  Backend backend_;
  Buffer<unsigned long long> sums_;
  int width_ = 0, height_ = 0, frames_ = 0;
};

}  // namespace srt::viewer
