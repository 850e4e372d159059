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
    line_ = "display: CUDA-GL interop (mean resolved on the device into a registered pixel buffer)";
  } else if (!backend.isCuda()) {
    line_ = "display: host upload (glTexSubImage2D)";
  }
}

void MeanUploader::upload(const FilmAccumulator& sum) {
  display_.resize(sum.width(), sum.height());
  if (interop_ && sum.backend().isCuda()) {
    try {
      const size_t bytes = size_t(sum.width()) * size_t(sum.height()) * sizeof(Vec3f);
      // Mapped on the stream the resolve runs on, so the unmap orders exactly that work.
      display_.uploadFromPixelBuffer(
          interop_->write(bytes, sum.backend().stream,
                          [&](void* pixels) { sum.resolve(static_cast<Vec3f*>(pixels)); }));
      return;
    } catch (const CudaError& e) {
      interop_.reset();
      interopFailed_ = true;
      line_ = std::string("display: host upload; CUDA-GL interop failed: ") + e.what();
      if (!quiet_) std::fprintf(stderr, "streamrt: %s\n", line_.c_str());
    }
  }
  display_.uploadFromHost(sum.mean());
}

}  // namespace srt::viewer
