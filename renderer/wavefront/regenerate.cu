// Feeding the path pool: new camera paths (or, for Whitted, spilled rays) in freed slots, and the
// one-thread bookkeeping that closes a pass. Everything reads and writes PoolControl on the
// device, so a pass never waits for the host (the host only reads the control block back, a pass
// late, for progress).
#include "renderer/backend/parallel_for.h"
#include "renderer/wavefront/stages.h"

namespace srt {
namespace {

SRT_CPU_GPU inline void startPath(const PathSource& src, PathState st, uint32_t slot,
                                  unsigned long long work) {
  const uint32_t pixel = pixelOfWork(src, uint32_t(work % src.numPixels));
  const uint32_t sample = src.firstSample + uint32_t(work / src.numPixels);
  const Ray ray = cameraRay(src.camera, pixel, sample, src.seed);
  Vec3fAnd packed;
  packed.v = ray.o, packed.u = pixel;
  st.originPixel[slot] = packed;
  packed.v = ray.d, packed.u = sample;
  st.directionSample[slot] = packed;
  // pdf 0: camera rays see emitters with full weight (Whitted: weight 1, depth 0)
  packed.v = Vec3f(1.f), packed.f = 0.f;
  st.throughputPdf[slot] = packed;
  packed.v = Vec3f(0.f), packed.u = 0;  // depth 0
  st.radianceDepth[slot] = packed;
}

// Copies the j-th ray the refill takes off the spill stacks (deepest stack first, each from its
// top) into `slot`. The tops stay as they are until endPass pops what was taken.
SRT_CPU_GPU inline void startSpilled(const PathSource& src, PathState st, uint32_t slot, uint32_t j,
                                     const PoolControl* ctl) {
  const SpillStacks& sp = src.spill;
  for (uint32_t d = sp.maxDepth; d >= 1; --d) {
    const uint32_t top = ctl->spillTop[d];
    if (j >= top) {
      j -= top;
      continue;
    }
    const size_t at = size_t(d - 1) * sp.perDepth + (top - 1 - j);
    st.originPixel[slot] = sp.rays.originPixel[at];
    st.directionSample[slot] = sp.rays.directionSample[at];
    st.throughputPdf[slot] = sp.rays.weightDepth[at];
    return;
  }
}

// New camera paths the tail may take: every free slot the spilled rays leave, or (waves) all of
// them once the pool is empty.
SRT_CPU_GPU inline uint32_t tailCameraCount(uint32_t kept, uint32_t spillTaken,
                                            unsigned long long nextWork,
                                            unsigned long long totalWork, uint32_t capacity,
                                            bool waves) {
  const unsigned long long remaining = nextWork < totalWork ? totalWork - nextWork : 0;
  if (waves && kept > 0) return 0;
  const unsigned long long room = capacity - kept - spillTaken;
  return uint32_t(remaining < room ? remaining : room);
}

// Starts claim j of an in-place refill in `slot`: a spilled ray, else work item
// nextWork + (j - spillTaken) while any remains. False when nothing was left to start.
SRT_CPU_GPU inline bool startClaim(const PathSource& src, PathState st, uint32_t slot, uint32_t j,
                                   const PoolControl* ctl) {
  const uint32_t spillTaken = ctl->spillTaken;
  if (j < spillTaken) {
    startSpilled(src, st, slot, j, ctl);
    return true;
  }
  const unsigned long long w = ctl->nextWork + (j - spillTaken);
  if (w >= ctl->totalWork) return false;
  startPath(src, st, slot, w);
  return true;
}

// On the GPU a block claims the rays of all its free slots with one atomic (a single counter
// takes every claim: per-warp atomics cost 10 ms a render on the Conference Room), ranking the
// slots by warp ballots and a scan of the warp counts. endPass turns the claims into work issued.
constexpr uint32_t kRefillBlock = 256;
__global__ void refillInPlaceKernel(PathSource src, PathState st, uint8_t* alive, PoolControl* ctl,
                                    uint32_t capacity, bool waves) {
  __shared__ uint32_t warpCounts[kRefillBlock / 32];
  __shared__ uint32_t blockBase;
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
    blockBase = total ? atomicAdd(&ctl->claims, total) : 0;
  }
  __syncthreads();
  if (!free) return;
  const uint32_t j = blockBase + warpCounts[warp] + __popc(ballot & ((1u << lane) - 1));
  if (startClaim(src, st, s, j, ctl)) alive[s] = 1;
}

}  // namespace

void refillTail(const Backend& b, const PathSource& src, PathState state, PoolControl* ctl,
                uint32_t capacity, bool waves) {
  parallelFor(b, capacity, [=] SRT_CPU_GPU(uint32_t i) {
    const uint32_t kept = ctl->kept;
    if (i < kept) return;
    const uint32_t j = i - kept, spillTaken = ctl->spillTaken;
    if (j < spillTaken) {
      startSpilled(src, state, i, j, ctl);
      return;
    }
    const uint32_t k = j - spillTaken;
    const unsigned long long next = ctl->nextWork;
    if (k >= tailCameraCount(kept, spillTaken, next, ctl->totalWork, capacity, waves)) return;
    startPath(src, state, i, next + k);
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
    uint32_t j;
#pragma omp atomic capture
    j = ctl->claims++;
    if (startClaim(src, state, s, j, ctl)) alive[s] = 1;
  }
}

void planSpillRefill(const Backend& b, PoolControl* ctl, uint32_t capacity, bool waves,
                     uint32_t perDepth) {
  parallelFor(b, 1, [=] SRT_CPU_GPU(uint32_t) {
    PoolControl& c = *ctl;
    uint32_t spilled = 0;
    for (uint32_t d = 1; d < kSpillDepths; ++d) {
      if (c.spillTop[d] > perDepth) {  // a push found its stack full (see SpillStacks)
        c.spillOverflow = 1;
        c.spillTop[d] = perDepth;
      }
      spilled += c.spillTop[d];
    }
    const uint32_t room = waves && c.kept > 0 ? 0 : capacity - c.kept;
    c.spilled = spilled;
    c.spillTaken = spilled < room ? spilled : room;
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
    const uint32_t taken = refill == Refill::Hold ? 0 : c.spillTaken;
    if (refill == Refill::Tail) {
      const uint32_t camera =
          tailCameraCount(c.kept, taken, c.nextWork, c.totalWork, capacity, waves);
      c.regenerated = taken + camera;
      c.nextWork += camera;
      c.count = c.kept + c.regenerated;
    } else if (refill == Refill::Hold) {
      c.regenerated = 0;  // the stream keeps its length and its dead lanes
    } else {
      // The claims past the spilled rays took work items while any remained.
      const unsigned long long remaining = c.nextWork < c.totalWork ? c.totalWork - c.nextWork : 0;
      const uint32_t asked = c.claims > taken ? c.claims - taken : 0;
      const uint32_t camera = uint32_t(asked < remaining ? asked : remaining);
      c.regenerated = taken + camera;
      c.nextWork += camera;
      // Dead lanes stay in the stream; an index stream's length comes from its compaction.
      c.count = refill == Refill::InPlace ? capacity : c.nextCount;
    }
    // The spilled rays taken leave their stacks, deepest first, as startSpilled took them.
    c.spilled -= taken;
    uint32_t left = taken;
    for (uint32_t d = kSpillDepths - 1; d >= 1 && left > 0; --d) {
      const uint32_t t = c.spillTop[d] < left ? c.spillTop[d] : left;
      c.spillTop[d] -= t;
      left -= t;
    }
    c.lastRegenerated = c.regenerated;
    c.live = c.kept + c.regenerated;
    // Every work item issued whose rays are all done has added to the film (no atomic per dead
    // path). Whitted's spilled rays belong to items counted as issued: a lower bound there.
    const unsigned long long issued = c.nextWork < c.totalWork ? c.nextWork : c.totalWork;
    const unsigned long long busy = (unsigned long long)c.live + c.spilled;
    c.finished = issued > busy ? issued - busy : 0;
    c.regenerated = 0;
    c.kept = 0;
    c.shadowCount = 0;
    c.claims = 0;
    c.spillTaken = 0;
    c.passes += 1;
  });
}

void stopAtSampleBoundary(const Backend& b, PoolControl* ctl, uint32_t pixels) {
  parallelFor(b, 1, [=] SRT_CPU_GPU(uint32_t) {
    PoolControl& c = *ctl;
    // endPass never lets nextWork pass totalWork, a multiple of pixels: the result never grows it.
    const unsigned long long issued = c.nextWork < c.totalWork ? c.nextWork : c.totalWork;
    const unsigned long long p = pixels;
    c.totalWork = (issued + p - 1) / p * p;
  });
}

}  // namespace srt
