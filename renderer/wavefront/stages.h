// The wavefront stages, one host function each, launched through parallelFor on the backend.
// Their bodies live in the .cu file named after the stage (pbrt-v4's wavefront/ layout).
#pragma once

#include <cstdint>

#include "renderer/accel/kdtree.h"
#include "renderer/backend/backend.h"
#include "renderer/wavefront/camera.h"
#include "renderer/wavefront/path_state.h"
#include "renderer/wavefront/scene_data.h"

namespace srt {

// A stream of paths: positions [0, count) map to state slots (through `slots` when only an index
// stream is compacted) and may be dead lanes (through `lanes` when nothing is compacted).
struct PathStream {
  PathState state;
  const uint32_t* slots = nullptr;  // null: slot == position
  const uint8_t* lanes = nullptr;   // null: every position is a live path
  uint32_t count = 0;
  SRT_CPU_GPU bool live(uint32_t i) const { return !lanes || lanes[i]; }
  SRT_CPU_GPU uint32_t slot(uint32_t i) const { return slots ? slots[i] : i; }
};

// The rays of a stream, whatever else its elements carry (paths or Whitted rays).
struct RayStreamRef {
  const Vec3f* origin = nullptr;
  const Vec3f* direction = nullptr;
  const uint32_t* slots = nullptr;
  const uint8_t* lanes = nullptr;
  uint32_t count = 0;
  static RayStreamRef of(const PathStream& p) {
    return {p.state.origin, p.state.direction, p.slots, p.lanes, p.count};
  }
};

struct ShadowStream {
  ShadowRays rays;
  const uint32_t* indices = nullptr;      // index payload: position i reads ray indices[i]
  const uint8_t* lanes = nullptr;         // null: every position is a ray
  const uint32_t* deviceCount = nullptr;  // rays in the stream, read on the device (no host sync)
  uint32_t maxCount = 0;                  // launch size
};

struct SampleKey {
  uint32_t sample = 0, seed = 0;
};

// camera.cu: one path per pixel, state slot = pixel; fills `slots` with the identity when given.
void generateCameraPaths(const Backend& b, const CameraView& camera, SampleKey key,
                         uint32_t numPixels, PathState state, uint32_t* slots);

// intersect.cu: closest hits of the paths' rays (hit.triangle == kNoHit for a miss).
constexpr uint32_t kNoHit = 0xffffffffu;
void traceClosest(const Backend& b, const SceneView& scene, const RayStreamRef& rays, Hit* hits);
// intersect.cu: shadow rays; unoccluded ones add their contribution to their path's radiance.
void traceShadows(const Backend& b, const SceneView& scene, const ShadowStream& shadows,
                  PathState state);

struct ShadeOutputs {
  uint8_t* keep = nullptr;        // 1: the path goes on to the next bounce
  ShadowRays shadowCandidates;    // one candidate slot per stream position
  uint8_t* shadowKeep = nullptr;  // 1: that candidate is a shadow ray to trace
};
// shade_path.cu: emission with MIS, next-event estimation, BSDF sampling, Russian roulette.
void shadePaths(const Backend& b, const SceneView& scene, const PathStream& paths, const Hit* hits,
                SampleKey key, uint32_t bounce, uint32_t maxDepth, const ShadeOutputs& out);

// camera.cu: one Whitted ray per pixel, weight 1.
void generateCameraRays(const Backend& b, const CameraView& camera, SampleKey key,
                        uint32_t numPixels, WhittedRays rays);

struct WhittedStream {
  WhittedRays rays;
  const uint8_t* lanes = nullptr;  // null: every position is a ray
  uint32_t count = 0;
};
struct WhittedOutputs {
  WhittedRays children;  // two candidate slots per ray: 2i (reflection), 2i+1 (refraction)
  uint8_t* childKeep = nullptr;
  float* film = nullptr;           // RGB per pixel, added to atomically (several rays per pixel)
  uint32_t* shadowRays = nullptr;  // counter of shadow rays traced
};
// shade_whitted.cu: direct light from point lights and emitters with shadow rays, emission,
// environment; mirror and glass spawn children for the next bounce.
void shadeWhitted(const Backend& b, const SceneView& scene, const WhittedStream& rays,
                  const Hit* hits, SampleKey key, uint32_t bounce, uint32_t maxDepth,
                  const WhittedOutputs& out);

// film.cu: paths that died at this bounce add their radiance to the film.
void finishPaths(const Backend& b, const PathStream& paths, const uint8_t* keep, Vec3f* film);
// stream_util.cu: counts the non-zero flags (for statistics when nothing is compacted).
void countFlags(const Backend& b, const uint8_t* flags, uint32_t n, uint32_t* counter);
// stream_util.cu: out[i] = i, the source of index streams.
void fillIdentity(const Backend& b, uint32_t* out, uint32_t n);

}  // namespace srt
