#include "renderer/backend/parallel_for.h"
#include "renderer/wavefront/stages.h"

namespace srt {

void finishPaths(const Backend& b, const PathStream& paths, const uint8_t* keep, Vec3f* film) {
  parallelFor(b, paths.count, [=] SRT_CPU_GPU(uint32_t i) {
    if (!paths.live(i) || keep[i]) return;
    const uint32_t s = paths.slot(i);
    // One path per pixel per sample, so this add never races and its order is fixed.
    film[paths.state.pixel[s]] += paths.state.radiance[s];
  });
}

}  // namespace srt
