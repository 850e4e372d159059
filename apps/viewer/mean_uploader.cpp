#include "apps/viewer/mean_uploader.h"

#include <cstdio>

#include "primitives/common/cuda_check.h"

namespace srt::viewer {

void MeanUploader::setBackend(const Backend& backend, bool quiet) {
  backend_ = backend;
  quiet_ = quiet;
  interop_.reset();
  if (backend.isCuda() && !interopFailed_) {
    interop_ = std::make_unique<InteropUpload>();
    line_ = "display: CUDA-GL interop (mean copied into a registered pixel buffer)";
  } else if (!backend.isCuda()) {
    line_ = "display: host upload (glTexSubImage2D)";
  }
}

void MeanUploader::upload(const Image& mean) {
  display_.resize(mean.width, mean.height);
  if (interop_) {
    try {
      display_.uploadFromPixelBuffer(interop_->write(mean, backend_.stream));
      return;
    } catch (const CudaError& e) {
      interop_.reset();
      interopFailed_ = true;
      line_ = std::string("display: host upload; CUDA-GL interop failed: ") + e.what();
      if (!quiet_) std::fprintf(stderr, "streamrt: %s\n", line_.c_str());
    }
  }
  display_.uploadFromHost(mean);
}

}  // namespace srt::viewer
