// The wavefront stages, one host function each, launched through parallelFor on the backend.
// Their bodies live in the .cu file named after the stage (pbrt-v4's wavefront/ layout).
#pragma once

#include <cstdint>

#include "renderer/accel/kdtree.h"
#include "renderer/backend/backend.h"
#include "renderer/wavefront/camera.h"
#include "renderer/wavefront/film.h"
#include "renderer/wavefront/path_pool.h"
#include "renderer/wavefront/path_state.h"
#include "renderer/wavefront/scene_data.h"

namespace srt {

// A stream of paths: positions [0, count) map to state slots (through `slots` when only an index
// stream is compacted) and may be dead lanes (through `lanes` when nothing is compacted).
struct PathStream {
  PathState state;
  const uint32_t* slots = nullptr;        // null: slot == position
  const uint8_t* lanes = nullptr;         // null: every position is a live path
  uint32_t count = 0;                     // launch size (an upper bound when deviceCount is set)
  const uint32_t* deviceCount = nullptr;  // paths in the stream, read on the device
  SRT_CPU_GPU bool inStream(uint32_t i) const { return !deviceCount || i < *deviceCount; }
  SRT_CPU_GPU bool live(uint32_t i) const { return !lanes || lanes[i]; }
  SRT_CPU_GPU uint32_t slot(uint32_t i) const { return slots ? slots[i] : i; }
  // True, with its slot in s, when position i holds a live path. Otherwise the shading stages'
  // per-slot keep flag of i is cleared where i has one: a dead lane stays dead, and past the
  // stream (a slot only when slots are positions) a compaction over the launch size sees no
  // stale flag.
  SRT_CPU_GPU bool liveSlot(uint32_t i, uint8_t* keep, uint32_t& s) const {
    if (!inStream(i)) {
      if (!slots) keep[i] = 0;
      return false;
    }
    s = slot(i);
    if (live(i)) return true;
    keep[s] = 0;
    return false;
  }
};

// The rays of a stream, whatever else its elements carry (paths or Whitted rays): origin and
// direction of slot s at origin + s * stride and direction + s * stride (x, y, z first).
struct RayStreamRef {
  const float* origin = nullptr;
  const float* direction = nullptr;
  uint32_t stride = 3;  // floats per slot: 3 (Vec3f arrays) or 4 (the path pool's Vec3fAnd)
  const uint32_t* slots = nullptr;        // null: slot == position
  const uint8_t* lanes = nullptr;         // null: every position below the count is a ray
  uint32_t count = 0;                     // launch size (an upper bound when deviceCount is set)
  const uint32_t* deviceCount = nullptr;  // rays in the stream, read on the device (no host sync)

  // The ray of slot s, tMax infinite (16-byte slots in one vector load each on the GPU).
  SRT_CPU_GPU Ray ray(uint32_t s) const {
    Ray r;
    r.o = load(origin, s);
    r.d = load(direction, s);
    r.tMax = kInf;
    return r;
  }
  static RayStreamRef of(const PathStream& p) {
    RayStreamRef r;
    r.origin = reinterpret_cast<const float*>(p.state.originPixel);  // v.x is at offset 0
    r.direction = reinterpret_cast<const float*>(p.state.directionSample);
    r.stride = 4;
    r.slots = p.slots, r.lanes = p.lanes, r.count = p.count, r.deviceCount = p.deviceCount;
    return r;
  }
  static RayStreamRef of(const Vec3f* origin, const Vec3f* direction, uint32_t count) {
    RayStreamRef r;
    r.origin = reinterpret_cast<const float*>(origin);
    r.direction = reinterpret_cast<const float*>(direction);
    r.count = count;
    return r;
  }

 private:
  SRT_CPU_GPU Vec3f load(const float* base, uint32_t s) const {
    const float* p = base + size_t(s) * stride;
#if SRT_IS_GPU_CODE
    if (stride == 4) {
      const float4 q = *reinterpret_cast<const float4*>(p);
      return Vec3f(q.x, q.y, q.z);
    }
#endif
    return Vec3f(p[0], p[1], p[2]);
  }
};

struct ShadowStream {
  ShadowRays rays;
  const uint32_t* indices = nullptr;      // index payload: position i reads ray indices[i]
  const uint8_t* lanes = nullptr;         // null: every position is a ray
  const uint32_t* deviceCount = nullptr;  // rays in the stream, read on the device (no host sync)
  uint32_t maxCount = 0;                  // launch size

  // The ray at position i and its index j in `rays`; false where i holds none (past the count,
  // or an idle lane).
  SRT_CPU_GPU bool rayAt(uint32_t i, uint32_t& j, Ray& ray) const {
    if ((deviceCount && i >= *deviceCount) || (lanes && !lanes[i])) return false;
    j = indices ? indices[i] : i;
    ray.o = rays.origin[j];
    ray.d = rays.direction[j];
    ray.tMax = rays.tMax[j];
    return true;
  }
};

// Whitted's rays waiting for a slot: where a glass hit has two children, the first goes on in
// the ray's slot and the second is pushed onto the stack of its depth (stack d - 1 holds depth
// d, `perDepth` rays each). The refill pops the deepest first, and starts new camera rays only
// once every stack is empty. So a stack d only fills from slots at depth d - 1 after it was last
// empty, at most one ray per slot: no stack ever holds more than the pool's capacity.
struct SpillStacks {
  WhittedRays rays;
  uint32_t perDepth = 0;  // 0: no spill (the path tracer)
  uint32_t maxDepth = 0;  // the deepest stack in use
};

// Where new paths come from: the spill stacks first (deepest first), then work item w, pixel
// w % numPixels of sample firstSample + w / numPixels.
struct PathSource {
  CameraView camera;
  uint32_t numPixels = 0, firstSample = 0, seed = 0;
  SpillStacks spill;
  // 0: work items take pixels in scanline order. k > 0: in bands of k rows, column by column, so a
  // warp's 32 camera rays cover a 32/k x k block of the image instead of a 32 x 1 strip.
  uint32_t bandRows = 0;
};

// The pixel of work item i (< numPixels) in the source's order.
SRT_CPU_GPU inline uint32_t pixelOfWork(const PathSource& src, uint32_t i) {
  const uint32_t rows = src.bandRows, width = uint32_t(src.camera.width);
  if (rows == 0) return i;
  const uint32_t band = i / (rows * width), firstRow = band * rows;
  const uint32_t height = uint32_t(src.camera.height) - firstRow;
  const uint32_t h = height < rows ? height : rows;
  const uint32_t j = i - firstRow * width;
  return (firstRow + j % h) * width + j / h;
}

// regenerate.cu: after compaction, slots [kept, ...) take the rays planned off the spill stacks,
// then new camera paths, as many as fit and remain (waves: only once the pool is empty). Reads
// kept, spillTaken and nextWork from ctl.
void refillTail(const Backend& b, const PathSource& src, PathState state, PoolControl* ctl,
                uint32_t capacity, bool waves);
// regenerate.cu: every slot whose alive flag is 0 claims a ray in place (off the spill stacks,
// then a work item) and sets its flag (waves: only once ctl->kept, the count of alive flags, is
// 0).
void refillInPlace(const Backend& b, const PathSource& src, PathState state, uint8_t* alive,
                   PoolControl* ctl, uint32_t capacity, bool waves);
// regenerate.cu: one thread plans the refill's take off the spill stacks: as many rays as there
// are free slots (none while a wave is alive), from the deepest stack down.
void planSpillRefill(const Backend& b, PoolControl* ctl, uint32_t capacity, bool waves,
                     uint32_t perDepth);
// regenerate.cu: one thread ends the render at the next sample boundary: totalWork becomes the
// work issued rounded up to whole samples of `pixels`, so the samples begun finish and no new
// one starts (a StopCondition). Runs between passes, after endPass.
void stopAtSampleBoundary(const Backend& b, PoolControl* ctl, uint32_t pixels);
// regenerate.cu: one thread closes the pass: statistics of the pass, work issued, the next
// pass's count and live paths (see PoolControl).
void endPass(const Backend& b, PoolControl* ctl, Refill refill, uint32_t capacity, bool waves);

// intersect.cu: closest hits of the paths' rays (hit.triangle == kNoHit for a miss).
constexpr uint32_t kNoHit = 0xffffffffu;
void traceClosest(const Backend& b, const SceneView& scene, const RayStreamRef& rays, Hit* hits);
// intersect.cu: shadow rays; unoccluded ones add their contribution to their path's radiance.
void traceShadows(const Backend& b, const SceneView& scene, const ShadowStream& shadows,
                  PathState state);

struct ShadeOutputs {
  uint8_t* keep = nullptr;        // per slot, 1: the path goes on to the next bounce
  ShadowRays shadowCandidates;    // one candidate slot per stream position
  uint8_t* shadowKeep = nullptr;  // per position, 1: that candidate is a shadow ray to trace
  DepthCounters depths;           // rays in, alive and shadow rays per depth
};
// shade_path.cu: emission with MIS, next-event estimation, BSDF sampling, Russian roulette.
// Positions past the stream's device count up to paths.count get keep (when slots are
// positions) and shadowKeep 0, so a compaction over the launch size sees no stale flags.
void shadePaths(const Backend& b, const SceneView& scene, const PathStream& paths, const Hit* hits,
                uint32_t seed, uint32_t maxDepth, const ShadeOutputs& out);

struct WhittedOutputs {
  uint8_t* keep = nullptr;     // per slot, 1: a child goes on in the ray's slot
  FixedFilm film;              // several rays add to one pixel: fixed point, order-free
  SpillStacks spill;           // second children
  PoolControl* ctl = nullptr;  // the spill stacks' tops
  DepthCounters depths;        // rays in, children and shadow rays per depth
  // Deferred shadow rays (set: the emitter sample's shadow ray is written here, one candidate
  // per position, for the shadow stage to trace; the light of a ray with no child waits in its
  // radianceDepth for finishWhitted). Null: traced inline in shading.
  ShadowRays shadows;
  uint8_t* shadowKeep = nullptr;
};
// shade_whitted.cu: direct light from point lights and emitters with shadow rays, emission,
// environment, added to the film at once; mirror and glass spawn children for the next pass.
// Positions past the stream's device count get keep 0 (when slots are positions).
void shadeWhitted(const Backend& b, const SceneView& scene, const PathStream& rays, const Hit* hits,
                  uint32_t seed, uint32_t maxDepth, const WhittedOutputs& out);
// shade_whitted.cu, deferred shadows: rays that left no child in their slot add their radiance
// (unweighted, shadow light included) times their weight to the film.
void finishWhitted(const Backend& b, const PathStream& rays, const uint8_t* keep,
                   const FixedFilm& film);

// film.cu: out[p] = the film's sums for pixel p times scale (1 / (2^24 spp): the mean).
void resolveFixedFilm(const Backend& b, const unsigned long long* film, uint32_t pixels,
                      double scale, Vec3f* out);

// reorder.cu: flags[k * capacity + s] = 1 when slot s holds a path whose ray points into
// octant k (the sign bits of x, y, z), for the eight compactions that partition the stream.
void octantFlags(const Backend& b, PathState state, const uint8_t* alive, uint32_t capacity,
                 uint8_t* flags);
// reorder.cu: ctl->nextCount = the octants' counts summed, then out = the eight queues (queue k
// at queues + k * capacity, ctl->octantCount[k] long) end to end.
void sumQueues(const Backend& b, PoolControl* ctl);
void concatenateQueues(const Backend& b, const uint32_t* queues, uint32_t capacity,
                       PoolControl* ctl, uint32_t* out);

// film.cu: paths of the stream that died this pass (keep, per slot, is 0) add their radiance to
// the film.
void finishPaths(const Backend& b, const PathStream& paths, const uint8_t* keep,
                 const FixedFilm& film);
// stream_util.cu: counts the non-zero flags (for statistics when nothing is compacted).
void countFlags(const Backend& b, const uint8_t* flags, uint32_t n, uint32_t* counter);
// stream_util.cu: out[i] = i, the source of index streams.
void fillIdentity(const Backend& b, uint32_t* out, uint32_t n);

}  // namespace srt
