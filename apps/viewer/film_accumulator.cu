#include "apps/viewer/film_accumulator.h"

#include <algorithm>

#include "renderer/backend/parallel_for.h"
#include "renderer/wavefront/film.h"
#include "renderer/wavefront/stages.h"

namespace srt::viewer {

void FilmAccumulator::reset(int width, int height) {
  const size_t values = 3 * size_t(width) * size_t(height);
  if (sums_.size() != values || sums_.space() != backend_.memory())
    sums_ = Buffer<unsigned long long>(backend_.memory(), values);
  width_ = width;
  height_ = height;
  frames_ = 0;
}

void FilmAccumulator::add(const unsigned long long* frameSums) {
  unsigned long long* sums = sums_.data();
  const bool first = frames_ == 0;  // overwrite: no clear needed after reset()
  parallelFor(backend_, uint32_t(sums_.size()), [=] SRT_CPU_GPU(uint32_t i) {
    sums[i] = first ? frameSums[i] : sums[i] + frameSums[i];
  });
  ++frames_;
}

void FilmAccumulator::resolve(Vec3f* out) const {
  if (frames_ == 0) {  // nothing added since reset(): black, not the old sums
    parallelFor(backend_, uint32_t(size_t(width_) * height_),
                [=] SRT_CPU_GPU(uint32_t p) { out[p] = Vec3f(0.f); });
    return;
  }
  const double scale = 1.0 / (kFilmScale * double(frames_));
  resolveFixedFilm(backend_, sums_.data(), uint32_t(size_t(width_) * height_), scale, out);
}

Image FilmAccumulator::mean() const {
  Image image(width_, height_);
  if (!backend_.isCuda()) {
    resolve(image.pixels.data());
    return image;
  }
  Buffer<Vec3f> mean(MemorySpace::Cuda, image.pixels.size());
  resolve(mean.data());
  backend_.synchronize();
  image.pixels = mean.download();
  return image;
}

}  // namespace srt::viewer
