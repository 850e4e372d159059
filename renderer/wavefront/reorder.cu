// Ray reordering as stream reduction: the occupied slots are partitioned by the octant of their
// ray's direction with eight compactions by the user's primitive (one per octant, into its own
// queue), then the queues are laid end to end. Rays of one octant share traversal orders through
// the kd-tree, so a warp's rays walk closer paths (a cheap stand-in for a full ray sort).
#include "renderer/backend/parallel_for.h"
#include "renderer/wavefront/stages.h"

namespace srt {

void octantFlags(const Backend& b, const PathState state, const uint8_t* alive, uint32_t capacity,
                 uint8_t* flags) {
  parallelFor(b, capacity, [=] SRT_CPU_GPU(uint32_t s) {
    uint32_t octant = kOctants;  // none: the slot holds no path
    if (alive[s]) {
      const Vec3f d = state.directionSample[s].v;
      octant = (d.x < 0.f ? 1u : 0u) | (d.y < 0.f ? 2u : 0u) | (d.z < 0.f ? 4u : 0u);
    }
    for (uint32_t k = 0; k < kOctants; ++k) flags[size_t(k) * capacity + s] = octant == k;
  });
}

void concatenateQueues(const Backend& b, const uint32_t* queues, uint32_t capacity,
                       PoolControl* ctl, uint32_t* out) {
  parallelFor(b, capacity, [=] SRT_CPU_GPU(uint32_t i) {
    uint32_t start = 0;
    for (uint32_t k = 0; k < kOctants; ++k) {
      const uint32_t n = ctl->octantCount[k];
      if (i < start + n) {
        out[i] = queues[size_t(k) * capacity + (i - start)];
        return;
      }
      start += n;
    }
  });
}

void sumQueues(const Backend& b, PoolControl* ctl) {
  parallelFor(b, 1, [=] SRT_CPU_GPU(uint32_t) {
    uint32_t total = 0;
    for (uint32_t k = 0; k < kOctants; ++k) total += ctl->octantCount[k];
    ctl->nextCount = total;
  });
}

}  // namespace srt
