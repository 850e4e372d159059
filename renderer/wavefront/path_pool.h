// The path pool's bookkeeping, kept on the device so no bounce waits for the host (pbrt-v4's
// queue sizes, Laine et al. 2013's path regeneration). Work items are (pixel, sample) pairs in
// sample-major order: item w is pixel w % pixels of sample firstSample + w / pixels.
#pragma once

#include <cstdint>

#include "primitives/common/host_device.h"

namespace srt {

// How freed slots are refilled; see RenderOptions::schedule and PathIntegrator.
enum class Refill : uint32_t {
  Tail,            // compaction moved the survivors to the front: new paths go to [kept, ...)
  InPlace,         // nothing moved: a slot whose path died takes a new work item where it is, and
                   // the stream is every slot with dead lanes flagged ("none")
  InPlaceIndexed,  // as InPlace, then the stream is an index list of the occupied slots
  Hold,            // a pass between compactions (--compact-every): nothing moved, nothing
                   // refilled; the paths that died stay in the stream as dead lanes
};

constexpr uint32_t kOctants = 8;
// Whitted's spill stacks, one per depth 1..64 (index = depth; see SpillStacks).
constexpr uint32_t kSpillDepths = 65;

struct PoolControl {
  // The pass being run.
  uint32_t count = 0;  // stream positions in use: [0, count) (may include dead lanes: none)
  uint32_t live = 0;   // paths among them at the start of the pass
  // Written during the pass.
  uint32_t kept = 0;         // paths going on after this pass (compaction's numKept)
  uint32_t shadowCount = 0;  // shadow rays to trace this pass
  uint32_t regenerated = 0;  // new paths started after this pass
  uint32_t nextCount = 0;    // InPlaceIndexed: the next stream's length (its compaction's count)
  uint32_t octantCount[kOctants] = {};  // reordering: occupied slots per ray-direction octant
  uint32_t claims = 0;      // in-place refill: free slots that asked for a ray this pass
  uint32_t spillTaken = 0;  // Whitted: rays the refill takes off the spill stacks this pass
  // The whole render.
  unsigned long long nextWork = 0;   // next work item to start (claims may overshoot total)
  unsigned long long totalWork = 0;  // pixels x spp
  unsigned long long finished = 0;   // paths that have added to the film (issued - live)
  unsigned long long raysTraced = 0, shadowRaysTraced = 0;
  // The last finished pass, for the host's statistics (endPass copies them here).
  uint32_t lastLanes = 0, lastLive = 0, lastKept = 0, lastRegenerated = 0, lastShadow = 0;
  uint32_t passes = 0;
  // Whitted's spill stacks: rays on each (index = depth), their sum after the last pass, and
  // whether a push ever found its stack full (never, by the bound in SpillStacks).
  uint32_t spilled = 0, spillOverflow = 0;
  uint32_t spillTop[kSpillDepths] = {};
};

// Per-depth ray counts over the whole render (64-bit: 4K at 4096 spp passes 2^32), striped: a
// thread block adds to stripe blockIdx.x % kCounterStripes, each stripe kDepthSlots counters
// (640 bytes, five L2 lines), so a pass's atomics spread over many addresses instead of queueing
// on the few depths in flight (unstriped, they took 8 of the Conference Room's 123 ms on an H100).
// The host sums the stripes.
constexpr uint32_t kDepthSlots = 80;  // depths 0..79 (--max-depth is at most 64)
constexpr uint32_t kCounterStripes = 64;
struct DepthCounters {
  unsigned long long* raysIn = nullptr;      // closest-hit rays traced at depth d
  unsigned long long* raysAlive = nullptr;   // paths that went on from depth d to d + 1
  unsigned long long* shadowRays = nullptr;  // shadow rays traced from depth d
};

// Adds 1 to the count of `depth` in one of DepthCounters' arrays; on the GPU the lanes of a warp
// that share a depth add once together, to their block's stripe.
SRT_CPU_GPU inline void countByDepth(unsigned long long* counter, uint32_t depth) {
#if SRT_IS_GPU_CODE
  const uint32_t mask = __activemask();
  const uint32_t peers = __match_any_sync(mask, depth);
  if ((threadIdx.x & 31) == uint32_t(__ffs(peers) - 1))
    atomicAdd(counter + (blockIdx.x % kCounterStripes) * kDepthSlots + depth,
              (unsigned long long)__popc(peers));
#else
#pragma omp atomic
  counter[depth] += 1;  // stripe 0
#endif
}

// One shaded path's counts at `depth`: a ray in, and whether it sent a shadow ray and went on.
// On the GPU the warp's lanes that share a depth find each other once (one match for the three
// counts; the match waits on nothing the shading does not) and their first lane adds for all.
SRT_CPU_GPU inline void countShaded(const DepthCounters& c, uint32_t depth, bool shadowRay,
                                    bool alive) {
#if SRT_IS_GPU_CODE
  const uint32_t mask = __activemask();
  const uint32_t peers = __match_any_sync(mask, depth);
  const uint32_t shadows = __ballot_sync(mask, shadowRay) & peers;
  const uint32_t survivors = __ballot_sync(mask, alive) & peers;
  if ((threadIdx.x & 31) != uint32_t(__ffs(peers) - 1)) return;
  const size_t at = (blockIdx.x % kCounterStripes) * kDepthSlots + depth;
  atomicAdd(c.raysIn + at, (unsigned long long)__popc(peers));
  if (shadows) atomicAdd(c.shadowRays + at, (unsigned long long)__popc(shadows));
  if (survivors) atomicAdd(c.raysAlive + at, (unsigned long long)__popc(survivors));
#else
  countByDepth(c.raysIn, depth);
  if (shadowRay) countByDepth(c.shadowRays, depth);
  if (alive) countByDepth(c.raysAlive, depth);
#endif
}

}  // namespace srt
