// The film stage: paths that died this pass add their radiance to the fixed-point film.
#include "renderer/backend/parallel_for.h"
#include "renderer/wavefront/stages.h"

namespace srt {

void finishPaths(const Backend& b, const PathStream& paths, const uint8_t* keep,
                 const FixedFilm& film) {
  parallelFor(b, paths.count, [=] SRT_CPU_GPU(uint32_t i) {
    if (!paths.inStream(i) || !paths.live(i)) return;
    const uint32_t s = paths.slot(i);
    const bool died = !keep[s];
    if (!died) return;
    film.add(paths.state.originPixel[s].u, paths.state.radianceDepth[s].v);
  });
}

void resolveFixedFilm(const Backend& b, const unsigned long long* film, uint32_t pixels,
                      double scale, Vec3f* out) {
  parallelFor(b, pixels, [=] SRT_CPU_GPU(uint32_t p) {
    out[p] = Vec3f(float(double(film[3 * p]) * scale), float(double(film[3 * p + 1]) * scale),
                   float(double(film[3 * p + 2]) * scale));
  });
}

}  // namespace srt
