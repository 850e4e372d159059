// Persistent-thread tracing (Aila & Laine 2009, "Understanding the efficiency of ray traversal on
// GPUs"), beside traceClosest() and traceShadows(). Each warp takes rays from a global counter and
// keeps them in its lanes until the stream is drained, so a short (compacted) stream still keeps
// every SM busy, and lanes that run long no longer hold a block's other warps hostage.
//
// Resources (nvcc 13.0, sm_90, Release, -Xptxas -v): every kernel uses 768 bytes of stack in
// local memory (the traversal stack, kKdMaxDepth x 12 bytes, as the parallelFor kernels do).
// Registers: 56 for closest hits in every variant (no spill in the default one; the batch and
// speculative-only ones spill 4 bytes), 48 for shadow rays, so 9 blocks of 128 threads (36 warps)
// fit an SM for closest hits. The coop variants: 56 registers for both kinds of rays (closest hits
// spill 8 bytes) and 7 KB of shared memory a block (9 blocks need 63 KB). Capping registers
// (__launch_bounds__ for 10 or 12 blocks) spilled and was no faster on the H100; neither were
// blocks of 64 or 256 threads.
#include <cstdio>
#include <cstdlib>
#include <map>
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
// (DYNAMIC_FETCH_THRESHOLD of Aila, Laine & Karras's 2012 Kepler kernels, 20 there). On the H100,
// 12 rendered the four bench/tracer scenes 0.1-1.5% faster than 20, and 28 was 6% slower; with
// the unit-triangle test and K_T 40, 14 traces the Conference Room 0.3-0.6% faster than 12 (five
// alternating pairs) and the other bench scenes and Whitted within noise.
constexpr int kRefetchBelow = 14;

// kRefetchBelow, or SRT_REFETCH_BELOW (1-32) when set, read once: the coop kernels keep finished
// lanes busy in the rounds, so their best threshold may differ; a render can sweep it.
int refetchBelow() {
  static const int below = [] {
    const char* v = std::getenv("SRT_REFETCH_BELOW");
    if (!v || !*v) return kRefetchBelow;
    const int n = std::atoi(v);
    if (n < 1 || n > 32) throw std::invalid_argument("SRT_REFETCH_BELOW must be 1 to 32");
    std::fprintf(stderr, "streamrt: persistent refetch below %d busy lanes (SRT_REFETCH_BELOW)\n",
                 n);
    return n;
  }();
  return below;
}

// Next unclaimed stream position, one per host thread and device, reset to 0 before every launch
// (see the header): two renders on one GPU from two host threads (a split render that lists a
// device twice) run on two streams at once and must not take each other's rays.
uint32_t* nextRayCounter() {
  struct Counters {
    std::map<int, uint32_t*> byDevice;
    ~Counters() {
      for (const auto& [device, counter] : byDevice)
        if (cudaSetDevice(device) == cudaSuccess) cudaFree(counter);  // (the runtime may be gone)
    }
  };
  thread_local Counters counters;
  int device = 0;
  SRT_CUDA_CHECK(cudaGetDevice(&device));
  uint32_t*& counter = counters.byDevice[device];
  if (!counter) SRT_CUDA_CHECK(cudaMalloc(&counter, sizeof(uint32_t)));
  return counter;
}

// What a persistent kernel traces. A job says how many positions the stream has (read on the
// device), which ray a position holds (false: a dead lane, nothing to do or write), and what to do
// with the result.
struct ClosestJob {  // traceClosest
  static constexpr bool kAnyHit = false;
  KdTreeView tree;
  RayStreamRef rays;
  Hit* hits;
  __device__ uint32_t size() const {
    return rays.deviceCount ? ::min(*rays.deviceCount, rays.count) : rays.count;
  }
  __device__ bool load(uint32_t pos, Ray* ray) const {
    if (rays.lanes && !rays.lanes[pos]) return false;
    *ray = rays.ray(rays.slots ? rays.slots[pos] : pos);
    return true;
  }
  __device__ void finish(uint32_t pos, bool found, const Hit& hit) const {
    Hit h;  // t = inf, b1 = b2 = 0 on a miss, as traceClosest writes it
    if (found)
      h = hit;
    else
      h.triangle = kNoHit;
    hits[pos] = h;
  }
};

struct ShadowJob {  // traceShadows: unoccluded rays add their contribution to their path
  static constexpr bool kAnyHit = true;
  KdTreeView tree;
  ShadowStream shadows;
  PathState state;
  __device__ uint32_t size() const {
    return shadows.deviceCount ? ::min(*shadows.deviceCount, shadows.maxCount) : shadows.maxCount;
  }
  __device__ uint32_t ray(uint32_t pos) const {
    return shadows.indices ? shadows.indices[pos] : pos;
  }
  __device__ bool load(uint32_t pos, Ray* r) const {
    if (shadows.lanes && !shadows.lanes[pos]) return false;
    const uint32_t j = ray(pos);
    r->o = shadows.rays.origin[j];
    r->d = shadows.rays.direction[j];
    r->tMax = shadows.rays.tMax[j];
    return true;
  }
  __device__ void finish(uint32_t pos, bool occluded, const Hit&) const {
    if (occluded) return;
    const uint32_t j = ray(pos);
    // One shadow ray per path: no race.
    state.radianceDepth[shadows.rays.pathSlot[j]].v += shadows.rays.contribution[j];
  }
};

// A warp's shared state in a cooperative round, per owner lane: its ray as pairs need it, its
// leaf, the merged key and the barycentrics of the pair that set it. Shared memory rather than
// shuffles, so the owner's ray is not held in registers through the round (72 registers then).
struct RoundShared {
  float4 originLimit[32];  // ray origin, PairRay::limit
  float4 direction[32];    // ray direction (w unused)
  uint2 leaf[32];          // first pair of the leaf, its word (LeafWork)
  unsigned long long key[32];
  float2 bary[32];
};

// One cooperative round (kdtree_traverse_persistent.cuh): every lane of the warp takes part,
// `active` or not. The pairs of the warp's leaves are dealt out 32 at a time in lane order; lane
// j finds the owner of pair j by a binary search over the inclusive scan of the leaf counts.
template <bool kAnyHit>
__device__ void testLeavesTogether(const KdTreeView& tree, KdLane& l, bool active,
                                   RoundShared& sh) {
  using namespace persistent;
  const uint32_t lane = threadIdx.x & 31u;
  LeafWork work;
  if (active) work = takeLeaf(tree, l);
  uint32_t end = work.count;  // inclusive scan of the counts
  for (uint32_t d = 1; d < 32; d <<= 1) {
    const uint32_t v = __shfl_up_sync(kFullWarp, end, d);
    if (lane >= d) end += v;
  }
  const uint32_t total = __shfl_sync(kFullWarp, end, 31);
  if (total == 0) return;
  if (work.count) {
    const PairRay r = pairRay<kAnyHit>(l);
    sh.originLimit[lane] = make_float4(r.o.x, r.o.y, r.o.z, r.limit);
    sh.direction[lane] = make_float4(r.d.x, r.d.y, r.d.z, 0.f);
    sh.leaf[lane] = make_uint2(end - work.count, work.word);
  }
  sh.key[lane] = active ? laneKey(l) : kNoHitKey;
  __syncwarp();
  for (uint32_t base = 0; base < total; base += 32) {
    const uint32_t j = base + lane;
    uint32_t owner = 0;  // the first lane whose scan passes j
    for (uint32_t step = 16; step; step >>= 1)
      if (__shfl_sync(kFullWarp, end, owner + step - 1) <= j) owner += step;
    const uint32_t ownerEnd = __shfl_sync(kFullWarp, end, owner < 32u ? owner : 31u);
    bool hit = false;
    unsigned long long key = kNoHitKey;
    Hit h;
    if (j < total) {
      const float4 ol = sh.originLimit[owner], dw = sh.direction[owner];
      const uint2 leaf = sh.leaf[owner];
      const uint32_t tri = leafTriangle(tree, ownerEnd - leaf.x, leaf.y, j - leaf.x);
      const PairRay r{Vec3f(ol.x, ol.y, ol.z), Vec3f(dw.x, dw.y, dw.z), ol.w};
      hit = testPair<kAnyHit>(tree.mesh, r, tri, kAnyHit ? kNoHitKey : sh.key[owner], &h);
      if (hit) {
        key = kAnyHit ? 0ull : hitKey(h.t, tri);
        atomicMin(&sh.key[owner], key);
      }
    }
    __syncwarp();
    if (!kAnyHit && hit && sh.key[owner] == key) sh.bary[owner] = make_float2(h.b1, h.b2);
    __syncwarp();
  }
  if (active) {
    const float2 b = sh.bary[lane];
    finishRound<kAnyHit>(l, sh.key[lane], b.x, b.y);
  }
  __syncwarp();  // the next round overwrites sh
}

template <typename Job, bool kSpeculative, bool kDynamicFetch, bool kCoop>
__global__ void __launch_bounds__(kBlock)
    persistentTraceKernel(Job job, uint32_t* nextRay, int refetchBelow) {
  __shared__ RoundShared shared[kCoop ? kBlock / 32 : 1];
  const uint32_t n = job.size();
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
      if (int(lane) == leader) base = atomicAdd(nextRay, want);
      base = __shfl_sync(kFullWarp, base, leader);
      drained = base + want >= n;
      if (!active) {
        pos = base + __popc(idle & lanesBelow);
        Ray ray;
        if (pos < n && job.load(pos, &ray)) {
          active = persistent::startLane(job.tree, ray, l);
          if (!active) job.finish(pos, false, l.hit);  // misses the tree's bounds
        }
      }
    }
    if (__ballot_sync(kFullWarp, active) == 0u) {
      if (drained) return;
      continue;  // every claimed position was dead or missed the bounds
    }
    if constexpr (kCoop) {  // the same loop in step for the whole warp, leaves tested in rounds
      RoundShared& sh = shared[threadIdx.x / 32];
      for (;;) {
        if (active)
          persistent::walkToLeaf<kSpeculative>(job.tree, l, stack, persistent::WarpHoldsLeaves{});
        testLeavesTogether<Job::kAnyHit>(job.tree, l, active, sh);
        if (active && persistent::laneDone(l)) {
          job.finish(pos, l.found, l.hit);
          active = false;
        }
        const uint32_t busy = __ballot_sync(kFullWarp, active);
        if (busy == 0u || (kDynamicFetch && !drained && __popc(busy) < refetchBelow)) break;
      }
      continue;
    } else {
      // While-while: walk to a leaf, test it, until the ray is done (or, fetching dynamically,
      // until too few lanes are left busy and the finished ones should take new rays).
      while (active) {
        persistent::walkToLeaf<kSpeculative>(job.tree, l, stack, persistent::WarpHoldsLeaves{});
        persistent::testLeaf<Job::kAnyHit>(job.tree, l);
        if (persistent::laneDone(l)) {
          job.finish(pos, l.found, l.hit);
          active = false;
          break;
        }
        if (kDynamicFetch && !drained && __popc(__activemask()) < refetchBelow) break;
      }
    }
    __syncwarp();
  }
}

// Blocks of one kernel that fit on the device at once (queried once per kernel and process).
template <typename Job, bool kSpeculative, bool kDynamicFetch, bool kCoop>
uint32_t residentBlocks() {
  static std::once_flag once;
  static uint32_t blocks = 0;
  std::call_once(once, [] {
    int device = 0, sms = 0, perSm = 0;
    SRT_CUDA_CHECK(cudaGetDevice(&device));
    SRT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    SRT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &perSm, persistentTraceKernel<Job, kSpeculative, kDynamicFetch, kCoop>, kBlock, 0));
    blocks = uint32_t(sms) * uint32_t(perSm > 0 ? perSm : 1);
  });
  return blocks;
}

// Launches `job` over a stream of at most `maxCount` positions; with `launch` false only reports
// the blocks a launch would fill the device with.
template <typename Job, bool kSpeculative, bool kDynamicFetch, bool kCoop = false>
uint32_t run(const Job& job, uint32_t maxCount, cudaStream_t stream, bool launch) {
  const uint32_t resident = residentBlocks<Job, kSpeculative, kDynamicFetch, kCoop>();
  if (!launch || maxCount == 0) return resident;
  // Never more warps than 32-ray batches in the launch-size bound.
  const uint32_t needed = uint32_t((uint64_t(maxCount) + kBlock - 1) / kBlock);
  uint32_t* counter = nextRayCounter();
  SRT_CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(uint32_t), stream));
  const uint32_t grid = resident < needed ? resident : needed;
  auto* kernel = persistentTraceKernel<Job, kSpeculative, kDynamicFetch, kCoop>;
  kernel<<<grid, kBlock, 0, stream>>>(job, counter, refetchBelow());
  SRT_CUDA_CHECK_LAUNCH();
  return resident;
}

template <typename Job>
uint32_t run(PersistentVariant v, const Job& job, uint32_t maxCount, cudaStream_t stream,
             bool launch = true) {
  switch (v) {
    case PersistentVariant::Batch:
      return run<Job, false, false>(job, maxCount, stream, launch);
    case PersistentVariant::DynamicFetch:
      return run<Job, false, true>(job, maxCount, stream, launch);
    case PersistentVariant::Speculative:
      return run<Job, true, false>(job, maxCount, stream, launch);
    case PersistentVariant::SpeculativeDynamicFetch:
      return run<Job, true, true>(job, maxCount, stream, launch);
    case PersistentVariant::DynamicCoop:
      return run<Job, false, true, true>(job, maxCount, stream, launch);
    case PersistentVariant::SpeculativeDynamicCoop:
      return run<Job, true, true, true>(job, maxCount, stream, launch);
  }
  throw std::invalid_argument("unknown persistent traversal variant");
}

void requireCuda(const Backend& b, const SceneView& scene) {
  if (!b.isCuda()) throw std::invalid_argument("--traversal persistent needs the CUDA backend");
  const TriangleMeshView& mesh = scene.accel.mesh;
  if (mesh.triangleCount > 0 &&
      mesh.unitTriangles == nullptr)  // the cooperative rounds test by them
    throw std::invalid_argument("persistent traversal needs the mesh's unit-triangle rows");
}

}  // namespace

namespace {

// The variant an environment variable names, said once on stderr (the stats do not record it).
PersistentVariant variantFromEnv(const char* var, PersistentVariant fallback) {
  const char* name = std::getenv(var);
  if (!name || !*name) return fallback;
  const PersistentVariant v = parseEnum<PersistentVariant>(name, var);
  std::fprintf(stderr, "streamrt: persistent traversal variant %s (%s)\n", toString(v), var);
  return v;
}

}  // namespace

PersistentVariant persistentVariantFromEnv() {
  static const PersistentVariant v =
      variantFromEnv("SRT_PERSISTENT_VARIANT", kDefaultPersistentVariant);
  return v;
}

PersistentVariant persistentShadowVariantFromEnv() {
  static const PersistentVariant v =
      variantFromEnv("SRT_PERSISTENT_SHADOW_VARIANT", persistentVariantFromEnv());
  return v;
}

uint32_t persistentResidentWarps(PersistentVariant variant) {
  return run(variant, ClosestJob{}, 0, nullptr, false) * (kBlock / 32);
}

void traceClosestPersistent(const Backend& b, const SceneView& scene, const RayStreamRef& rays,
                            Hit* hits, PersistentVariant variant) {
  requireCuda(b, scene);
  run(variant, ClosestJob{scene.accel, rays, hits}, rays.count, b.stream);
}

void traceShadowsPersistent(const Backend& b, const SceneView& scene, const ShadowStream& shadows,
                            PathState state, PersistentVariant variant) {
  requireCuda(b, scene);
  run(variant, ShadowJob{scene.accel, shadows, state}, shadows.maxCount, b.stream);
}

}  // namespace srt
