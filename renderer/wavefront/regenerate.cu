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
  Vec3fAnd packed;
  packed.v = ray.o, packed.u = pixel;
  st.originPixel[slot] = packed;
  packed.v = ray.d, packed.u = sample;
  st.directionSample[slot] = packed;
  packed.v = Vec3f(1.f), packed.f = 0.f;  // pdf 0: camera rays see emitters with full weight
  st.throughputPdf[slot] = packed;
  packed.v = Vec3f(0.f), packed.u = 0;  // depth 0
  st.radianceDepth[slot] = packed;
}

// Paths the tail may take: every free slot, or (waves) all of them once the pool is empty.
SRT_CPU_GPU inline uint32_t tailRefillCount(const PoolControl& c, uint32_t capacity, bool waves) {
  const unsigned long long remaining = c.nextWork < c.totalWork ? c.totalWork - c.nextWork : 0;
  if (waves && c.kept > 0) return 0;
  const unsigned long long room = capacity - c.kept;
  return uint32_t(remaining < room ? remaining : room);
}

// Claims one work item for each slot that asks, on the CPU: one atomic per claim.
inline unsigned long long claimWorkCpu(PoolControl* c) {
  unsigned long long w;
#pragma omp atomic capture
  w = c->nextWork++;
  if (w < c->totalWork) {
#pragma omp atomic
    c->regenerated += 1;
  }
  return w;
}

// On the GPU a block claims the work items of all its free slots with one atomic (a single
// counter takes every claim: per-warp atomics cost 10 ms a render on the Conference Room),
// ranking the slots by warp ballots and a scan of the warp counts.
constexpr uint32_t kRefillBlock = 256;
__global__ void refillInPlaceKernel(PathSource src, PathState st, uint8_t* alive, PoolControl* ctl,
                                    uint32_t capacity, bool waves) {
  __shared__ uint32_t warpCounts[kRefillBlock / 32];
  __shared__ unsigned long long blockBase;
  if (waves && ctl->kept > 0) return;  // the same for every thread
  const uint32_t s = blockIdx.x * kRefillBlock + threadIdx.x;
  const bool free = s < capacity && !alive[s];
  const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x / 32;
  const uint32_t ballot = __ballot_sync(0xffffffffu, free);
  if (lane == 0) warpCounts[warp] = __popc(ballot);
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t total = 0;
    for (uint32_t w = 0; w < kRefillBlock / 32; ++w) {
      const uint32_t n = warpCounts[w];
      warpCounts[w] = total;
      total += n;
    }
    unsigned long long base = 0;
    if (total) {
      base = atomicAdd(&ctl->nextWork, (unsigned long long)total);
      const unsigned long long end = ctl->totalWork;
      const unsigned long long got = base >= end ? 0 : (end - base < total ? end - base : total);
      if (got) atomicAdd(&ctl->regenerated, uint32_t(got));
    }
    blockBase = base;
  }
  __syncthreads();
  if (!free) return;
  const unsigned long long w = blockBase + warpCounts[warp] + __popc(ballot & ((1u << lane) - 1));
  if (w >= ctl->totalWork) return;
  startPath(src, st, s, w);
  alive[s] = 1;
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
  if (capacity == 0) return;
  if (b.isCuda()) {
    refillInPlaceKernel<<<(capacity + kRefillBlock - 1) / kRefillBlock, kRefillBlock, 0,
                          b.stream>>>(src, state, alive, ctl, capacity, waves);
    SRT_CUDA_CHECK_LAUNCH();
    return;
  }
  if (waves && ctl->kept > 0) return;
#pragma omp parallel for schedule(dynamic, 1024)
  for (int64_t i = 0; i < int64_t(capacity); ++i) {
    const uint32_t s = uint32_t(i);
    if (alive[s]) continue;
    const unsigned long long w = claimWorkCpu(ctl);
    if (w >= ctl->totalWork) continue;
    startPath(src, state, s, w);
    alive[s] = 1;
  }
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
    } else if (refill == Refill::Hold) {
      c.regenerated = 0;  // the stream keeps its length and its dead lanes
    } else {
      if (c.nextWork > c.totalWork) c.nextWork = c.totalWork;  // claims past the end
      // Dead lanes stay in the stream; an index stream's length comes from its compaction.
      c.count = refill == Refill::InPlace ? capacity : c.nextCount;
    }
    c.lastRegenerated = c.regenerated;
    c.live = c.kept + c.regenerated;
    // Every path issued and no longer alive has added to the film (no atomic per dead path).
    c.finished = (c.nextWork < c.totalWork ? c.nextWork : c.totalWork) - c.live;
    c.regenerated = 0;
    c.kept = 0;
    c.shadowCount = 0;
    c.passes += 1;
  });
}

void stopAtSampleBoundary(const Backend& b, PoolControl* ctl, uint32_t pixels) {
  parallelFor(b, 1, [=] SRT_CPU_GPU(uint32_t) {
    PoolControl& c = *ctl;
    // endPass clamped nextWork to totalWork, a multiple of pixels: the result never grows it.
    const unsigned long long issued = c.nextWork < c.totalWork ? c.nextWork : c.totalWork;
    const unsigned long long p = pixels;
    c.totalWork = (issued + p - 1) / p * p;
  });
}

}  // namespace srt
