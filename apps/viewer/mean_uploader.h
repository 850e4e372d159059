// Moves the accumulated mean into the display texture: through CUDA-GL interop on the CUDA
// backend (falling back to a host upload, said in the panel and on stderr, where the GL context
// cannot be shared with CUDA), else glTexSubImage2D from the host image.
#pragma once

#include <memory>
#include <string>

#include "apps/viewer/image_display.h"
#include "apps/viewer/interop_upload.h"
#include "renderer/backend/backend.h"

namespace srt::viewer {

class MeanUploader {
 public:
  explicit MeanUploader(ImageDisplay& display) : display_(display) {}
  void setBackend(const Backend& backend, bool quiet);
  void upload(const Image& mean);
  const std::string& line() const { return line_; }  // how the image reaches the window

 private:
  ImageDisplay& display_;
  Backend backend_;
  std::unique_ptr<InteropUpload> interop_;
  bool interopFailed_ = false, quiet_ = false;
  std::string line_;
};

}  // namespace srt::viewer
