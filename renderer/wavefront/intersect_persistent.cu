// Persistent-thread closest-hit tracing (Aila & Laine 2009, "Understanding the efficiency of ray
// traversal on GPUs"), beside traceClosest(). Each warp takes rays from a global counter and keeps
// them in its lanes until the stream is drained, so a short (compacted) stream still keeps every SM
// busy, and lanes that run long no longer hold a block's other warps hostage.
//
// Resources (nvcc 13.0, sm_90, Release, -Xptxas -v): every variant uses 768 bytes of stack in
// local memory (the traversal stack, kKdMaxDepth x 12 bytes, as traceClosest's kernel does) and no
// spills; registers: batch 56, dynamic 54, speculative 56, speculative-dynamic 54 (traceClosest's
// parallelFor kernel: 48). At 128 threads a block that is 9 blocks, 36 warps per SM.
#include <mutex>
#include <stdexcept>

#include "primitives/common/cuda_check.h"
#include "renderer/accel/kdtree_traverse_persistent.cuh"
#include "renderer/wavefront/intersect_persistent.h"

namespace srt {
namespace {

using persistent::KdLane;
using persistent::kFullWarp;

constexpr int kBlock = 128;
// DynamicFetch: finished lanes fetch new rays once fewer lanes than this are still traversing
// (the value of Aila, Laine & Karras's 2012 Kepler addendum).
constexpr int kRefetchBelow = 20;

// Next unclaimed stream position; reset to 0 before every launch (see the header).
__device__ uint32_t gNextRay;

__device__ __forceinline__ void storeResult(const KdLane& l, Hit* out) {
  Hit h;  // t = inf, b1 = b2 = 0 on a miss, as traceClosest writes it
  if (l.found)
    h = l.hit;
  else
    h.triangle = kNoHit;
  *out = h;
}

template <bool kSpeculative, bool kDynamicFetch>
__global__ void __launch_bounds__(kBlock)
    traceClosestPersistentKernel(KdTreeView tree, RayStreamRef rays, Hit* hits) {
  const uint32_t n = rays.deviceCount ? ::min(*rays.deviceCount, rays.count) : rays.count;
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t lanesBelow = (1u << lane) - 1u;
  detail::KdStackEntry stack[kKdMaxDepth];
  KdLane l;
  bool active = false;   // this lane holds a ray in flight
  uint32_t pos = 0;      // its stream position
  bool drained = false;  // the counter passed n: nothing left to fetch (warp-uniform)
  for (;;) {
    // Refill: the idle lanes claim consecutive positions with one atomic per warp.
    const uint32_t idle = __ballot_sync(kFullWarp, !active);
    if (!drained && (kDynamicFetch ? idle != 0u : idle == kFullWarp)) {
      const uint32_t want = __popc(idle);
      const int leader = __ffs(idle) - 1;
      uint32_t base = 0;
      if (int(lane) == leader) base = atomicAdd(&gNextRay, want);
      base = __shfl_sync(kFullWarp, base, leader);
      drained = base + want >= n;
      if (!active) {
        pos = base + __popc(idle & lanesBelow);
        if (pos < n && (!rays.lanes || rays.lanes[pos])) {
          const uint32_t s = rays.slots ? rays.slots[pos] : pos;
          Ray ray;
          ray.o = rays.origin[s];
          ray.d = rays.direction[s];
          ray.tMax = kInf;
          active = persistent::startLane(tree, ray, l);
          if (!active) {  // misses the tree's bounds
            Hit miss;
            miss.triangle = kNoHit;
            hits[pos] = miss;
          }
        }
      }
    }
    if (__ballot_sync(kFullWarp, active) == 0u) {
      if (drained) return;
      continue;  // every claimed position was dead or missed the bounds
    }
    // While-while: walk to a leaf, test it, until the ray is done (or, fetching dynamically,
    // until too few lanes are left busy and the finished ones should take new rays).
    while (active) {
      persistent::walkToLeaf<kSpeculative>(tree, l, stack, persistent::WarpHoldsLeaves{});
      persistent::testLeaf(tree, l);
      if (persistent::laneDone(l)) {
        storeResult(l, hits + pos);
        active = false;
        break;
      }
      if (kDynamicFetch && !drained && __popc(__activemask()) < kRefetchBelow) break;
    }
    __syncwarp();
  }
}

// The launch of one variant: its kernel and how many blocks fill the device (queried once).
struct Launch {
  void (*kernel)(KdTreeView, RayStreamRef, Hit*);
  uint32_t residentBlocks;
};

template <bool kSpeculative, bool kDynamicFetch>
Launch launchOf() {
  static std::once_flag once;
  static Launch launch{traceClosestPersistentKernel<kSpeculative, kDynamicFetch>, 0};
  std::call_once(once, [] {
    int device = 0, sms = 0, perSm = 0;
    SRT_CUDA_CHECK(cudaGetDevice(&device));
    SRT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    SRT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, launch.kernel, kBlock, 0));
    launch.residentBlocks = uint32_t(sms) * uint32_t(perSm > 0 ? perSm : 1);
  });
  return launch;
}

Launch launchOf(PersistentVariant v) {
  switch (v) {
    case PersistentVariant::Batch:
      return launchOf<false, false>();
    case PersistentVariant::DynamicFetch:
      return launchOf<false, true>();
    case PersistentVariant::Speculative:
      return launchOf<true, false>();
    case PersistentVariant::SpeculativeDynamicFetch:
      return launchOf<true, true>();
  }
  throw std::invalid_argument("unknown persistent traversal variant");
}

}  // namespace

const char* toString(PersistentVariant v) {
  switch (v) {
    case PersistentVariant::Batch:
      return "batch";
    case PersistentVariant::DynamicFetch:
      return "dynamic";
    case PersistentVariant::Speculative:
      return "speculative";
    case PersistentVariant::SpeculativeDynamicFetch:
      return "speculative-dynamic";
  }
  return "?";
}

uint32_t persistentResidentWarps(PersistentVariant variant) {
  return launchOf(variant).residentBlocks * (kBlock / 32);
}

void traceClosestPersistent(const Backend& b, const SceneView& scene, const RayStreamRef& rays,
                            Hit* hits, PersistentVariant variant) {
  if (!b.isCuda()) throw std::invalid_argument("--traversal persistent needs the CUDA backend");
  if (rays.count == 0) return;
  const Launch launch = launchOf(variant);
  // Never more warps than 32-ray batches in the launch-size bound.
  const uint32_t neededBlocks = uint32_t((uint64_t(rays.count) + kBlock - 1) / kBlock);
  const uint32_t blocks =
      launch.residentBlocks < neededBlocks ? launch.residentBlocks : neededBlocks;
  void* counter = nullptr;
  SRT_CUDA_CHECK(cudaGetSymbolAddress(&counter, gNextRay));
  SRT_CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(uint32_t), b.stream));
  launch.kernel<<<blocks, kBlock, 0, b.stream>>>(scene.accel, rays, hits);
  SRT_CUDA_CHECK_LAUNCH();
}

}  // namespace srt
