// Feeding the path pool: new camera paths in freed slots, and the one-thread bookkeeping that
// closes a pass. Everything reads and writes PoolControl on the device, so a pass never waits
// for the host (the host only reads the control block back, a pass late, for progress).
#include "renderer/backend/parallel_for.h"
#include "renderer/wavefront/stages.h"

namespace srt {
namespace {

SRT_CPU_GPU inline void startPath(const PathSource& src, PathState st, uint32_t slot,
                                  unsigned long long work) {
  const uint32_t pixel = uint32_t(work % src.numPixels);
  const uint32_t sample = src.firstSample + uint32_t(work / src.numPixels);
  const Ray ray = cameraRay(src.camera, pixel, sample, src.seed);
  st.pixel[slot] = pixel;
  st.sample[slot] = sample;
  st.depth[slot] = 0;
  st.origin[slot] = ray.o;
  st.direction[slot] = ray.d;
  st.throughput[slot] = Vec3f(1.f);
  st.radiance[slot] = Vec3f(0.f);
  st.bsdfPdf[slot] = 0.f;  // camera rays see emitters with full weight, like specular ones
}

// Paths the tail may take: every free slot, or (waves) all of them once the pool is empty.
SRT_CPU_GPU inline uint32_t tailRefillCount(const PoolControl& c, uint32_t capacity, bool waves) {
  const unsigned long long remaining = c.nextWork < c.totalWork ? c.totalWork - c.nextWork : 0;
  if (waves && c.kept > 0) return 0;
  const unsigned long long room = capacity - c.kept;
  return uint32_t(remaining < room ? remaining : room);
}

// Claims one work item for each lane that asks; on the GPU a warp claims its items with one
// atomic. Returns totalWork or more when the work has run out.
SRT_CPU_GPU inline unsigned long long claimWork(PoolControl* c, bool wants) {
#if SRT_IS_GPU_CODE
  const uint32_t mask = __ballot_sync(__activemask(), wants);
  if (!wants) return ~0ull;
  const uint32_t lane = threadIdx.x & 31;
  const uint32_t leader = __ffs(mask) - 1;
  unsigned long long base = 0;
  if (lane == leader) base = atomicAdd(&c->nextWork, (unsigned long long)__popc(mask));
  base = __shfl_sync(mask, base, leader);
  const unsigned long long w = base + __popc(mask & ((1u << lane) - 1));
  const bool got = w < c->totalWork;
  const uint32_t gotMask = __ballot_sync(mask, got);
  if (lane == leader && gotMask) atomicAdd(&c->regenerated, uint32_t(__popc(gotMask)));
  return w;
#else
  if (!wants) return ~0ull;
  unsigned long long w;
#pragma omp atomic capture
  w = c->nextWork++;
  if (w < c->totalWork) {
#pragma omp atomic
    c->regenerated += 1;
  }
  return w;
#endif
}

}  // namespace

void refillTail(const Backend& b, const PathSource& src, PathState state, PoolControl* ctl,
                uint32_t capacity, bool waves) {
  parallelFor(b, capacity, [=] SRT_CPU_GPU(uint32_t i) {
    const PoolControl c = *ctl;
    if (i < c.kept) return;
    const uint32_t j = i - c.kept;
    if (j >= tailRefillCount(c, capacity, waves)) return;
    startPath(src, state, i, c.nextWork + j);
  });
}

void refillInPlace(const Backend& b, const PathSource& src, PathState state, uint8_t* alive,
                   PoolControl* ctl, uint32_t capacity, bool waves) {
  parallelFor(b, capacity, [=] SRT_CPU_GPU(uint32_t s) {
    if (waves && ctl->kept > 0) return;
    const bool free = !alive[s];
    const unsigned long long w = claimWork(ctl, free);
    if (!free || w >= ctl->totalWork) return;
    startPath(src, state, s, w);
    alive[s] = 1;
  });
}

void endPass(const Backend& b, PoolControl* ctl, Refill refill, uint32_t capacity, bool waves) {
  parallelFor(b, 1, [=] SRT_CPU_GPU(uint32_t) {
    PoolControl& c = *ctl;
    c.lastLanes = c.count;
    c.lastLive = c.live;
    c.lastKept = c.kept;
    c.lastShadow = c.shadowCount;
    c.raysTraced += c.live;
    c.shadowRaysTraced += c.shadowCount;
    if (refill == Refill::Tail) {
      c.regenerated = tailRefillCount(c, capacity, waves);
      c.nextWork += c.regenerated;
      c.count = c.kept + c.regenerated;
    } else {
      if (c.nextWork > c.totalWork) c.nextWork = c.totalWork;  // claims past the end
      // Dead lanes stay in the stream; an index stream's length comes from its compaction.
      c.count = refill == Refill::InPlace ? capacity : c.nextCount;
    }
    c.lastRegenerated = c.regenerated;
    c.live = c.kept + c.regenerated;
    c.regenerated = 0;
    c.kept = 0;
    c.shadowCount = 0;
    c.passes += 1;
  });
}

}  // namespace srt
