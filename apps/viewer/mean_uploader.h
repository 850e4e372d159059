// Moves the accumulated mean into the display texture. CUDA backend: the device-side sum is
// resolved by a kernel straight into a GL pixel buffer mapped through CUDA-GL interop, and GL
// copies that into the texture; nothing crosses to the host and nothing waits (falling back to a
// host upload, said in the panel and on stderr, where the GL context cannot be shared with CUDA).
// CPU backend: the mean resolved on the host, then glTexSubImage2D.
#pragma once

#include <memory>
#include <string>

#include "apps/viewer/film_accumulator.h"
#include "apps/viewer/image_display.h"
#include "apps/viewer/interop_upload.h"
#include "renderer/backend/backend.h"

namespace srt::viewer {

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
