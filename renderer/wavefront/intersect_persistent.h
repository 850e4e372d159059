// Closest-hit and shadow tracing with persistent threads (Aila & Laine 2009): just enough warps to
// fill the GPU, each taking rays from a global counter until the stream is drained, running the
// kd-tree traversal as a while-while loop (renderer/accel/kdtree_traverse_persistent.cuh). The hits
// are those of traceClosest() bit for bit; only the schedule differs. CUDA backend only.
#pragma once

#include <string>

#include "primitives/common/enum_names.h"
#include "renderer/wavefront/stages.h"

namespace srt {

// How a warp keeps its lanes busy. Batch: the paper's persistent while-while, a warp fetches 32
// rays once all of its lanes are done. DynamicFetch: once fewer than 12 lanes are still
// traversing, the finished lanes fetch new rays (the 2012 Kepler addendum). Speculative: lanes that
// found a leaf keep walking until the whole warp holds leaves (section 4 of the paper). The Coop
// variants test the warp's leaves together: their triangles are dealt out over all 32 lanes, so a
// warp waits for ceil(sum of leaf sizes / 32) tests instead of its largest leaf
// (kdtree_traverse_persistent.cuh).
enum class PersistentVariant {
  Batch,
  DynamicFetch,
  Speculative,
  SpeculativeDynamicFetch,
  DynamicCoop,
  SpeculativeDynamicCoop
};
constexpr PersistentVariant kAllPersistentVariants[] = {
    PersistentVariant::Batch,       PersistentVariant::DynamicFetch,
    PersistentVariant::Speculative, PersistentVariant::SpeculativeDynamicFetch,
    PersistentVariant::DynamicCoop, PersistentVariant::SpeculativeDynamicCoop};
// The variant traceClosestPersistent() uses when none is named, unless SRT_PERSISTENT_VARIANT
// names one (persistentVariantFromEnv), so one binary can compare them in a render. The
// cooperative leaf tests won on the Conference Room (1080p 16 spp, H200): trace 64.0 -> 47.7 ms,
// shadow rays 36.7 -> 32.2 ms, the same image (bench/tracer/RESULTS.md).
constexpr PersistentVariant kDefaultPersistentVariant = PersistentVariant::SpeculativeDynamicCoop;
constexpr EnumNames<PersistentVariant, 6> enumNames(PersistentVariant) {
  return {{{{PersistentVariant::Batch, "batch"},
            {PersistentVariant::DynamicFetch, "dynamic"},
            {PersistentVariant::Speculative, "speculative"},
            {PersistentVariant::SpeculativeDynamicFetch, "speculative-dynamic"},
            {PersistentVariant::DynamicCoop, "dynamic-coop"},
            {PersistentVariant::SpeculativeDynamicCoop, "speculative-dynamic-coop"}}}};
}

// kDefaultPersistentVariant, or the variant the environment variable SRT_PERSISTENT_VARIANT
// names (read once per process; an unknown name throws std::invalid_argument). Shadow rays:
// SRT_PERSISTENT_SHADOW_VARIANT when set, else the same.
PersistentVariant persistentVariantFromEnv();
PersistentVariant persistentShadowVariantFromEnv();

// Same contract as traceClosest(): positions i < rays.count, and below *rays.deviceCount when it is
// set (read on the device), skipping dead lanes; hits[i] for the ray of slot slots[i] (or i), with
// triangle == kNoHit on a miss. Positions that are skipped are not written. Queued on b.stream.
// The ray counter is one per host thread and device, reset with cudaMemsetAsync before each
// launch: one thread's calls must be ordered on one stream (as a render's stages are); renders on
// other host threads may share the GPU.
// Throws std::invalid_argument on the CPU backend.
void traceClosestPersistent(const Backend& b, const SceneView& scene, const RayStreamRef& rays,
                            Hit* hits, PersistentVariant variant = persistentVariantFromEnv());

// Same contract as traceShadows(): positions i < shadows.maxCount, and below *shadows.deviceCount
// when set, skipping dead lanes; the ray indices[i] (or i), unoccluded in (0, tMax), adds its
// contribution to its path's radiance. Same counter rule and CPU refusal as above.
void traceShadowsPersistent(const Backend& b, const SceneView& scene, const ShadowStream& shadows,
                            PathState state,
                            PersistentVariant variant = persistentShadowVariantFromEnv());

// Warps traceClosestPersistent launches for `variant` on the current device (blocks that fit at
// once x warps per block), for benchmarks' reports. CUDA only.
uint32_t persistentResidentWarps(PersistentVariant variant);

}  // namespace srt
