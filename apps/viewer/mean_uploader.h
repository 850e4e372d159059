// Moves the accumulated mean into the display texture. CUDA backend: the device-side sum is
// resolved by a kernel straight into a GL pixel buffer mapped through CUDA-GL interop, and GL
// copies that into the texture; nothing crosses to the host and nothing waits (falling back to a
// host upload, said in the panel and on stderr, where the GL context cannot be shared with CUDA).
// CPU backend: the mean resolved on the host, then glTexSubImage2D.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "apps/viewer/film_accumulator.h"
#include "apps/viewer/image_display.h"
#include "apps/viewer/interop_upload.h"
#include "renderer/backend/backend.h"

namespace srt::viewer {

// When the accumulating image is next shown: at most `hz` times a second (0: after every frame).
// Showing a 1080p frame costs the GPU ~1.3 ms (the interop hand-off and GL's copy; H200), more
// than a 1-spp Whitted frame's render, and no screen refreshes 300 times a second.
class DisplayPacer {
 public:
  using Clock = std::chrono::steady_clock;
  explicit DisplayPacer(int hz) : hz_(hz) {}
  bool due(Clock::time_point now) {
    if (hz_ > 0 && shown_ && now - last_ < std::chrono::duration<double>(1.0 / hz_)) return false;
    last_ = now, shown_ = true;
    return true;
  }

 private:
  int hz_;
  bool shown_ = false;  // nothing shown yet: the first frame is
  Clock::time_point last_{};
};

class MeanUploader {
 public:
  explicit MeanUploader(ImageDisplay& display) : display_(display) {}
  void setBackend(const Backend& backend, bool quiet);
  void upload(const FilmAccumulator& sum);
  const std::string& line() const { return line_; }  // how the image reaches the window

 private:
  ImageDisplay& display_;
  Backend backend_;
  std::unique_ptr<InteropUpload> interop_;
  bool interopFailed_ = false, quiet_ = false;
  std::string line_;
};

}  // namespace srt::viewer
