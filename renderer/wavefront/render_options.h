// What a render is asked to do: the integrator and its stream options. Every choice is a typed
// enum with one name table (primitives/common/enum_names.h): the CLI parses and lists its
// choices from it, the stats JSON and the tables print from it.
#pragma once

#include <cstdint>
#include <string>

#include "primitives/common/enum_names.h"

namespace srt {

enum class IntegratorKind { Path, Whitted };
constexpr EnumNames<IntegratorKind, 2> enumNames(IntegratorKind) {
  return {{{{IntegratorKind::Path, "path"}, {IntegratorKind::Whitted, "whitted"}}}};
}

// What compaction moves: whole paths (SoA state), or an index stream into paths that stay put.
enum class Payload { State, Index };
constexpr EnumNames<Payload, 2> enumNames(Payload) {
  return {{{{Payload::State, "state"}, {Payload::Index, "index"}}}};
}

// How the path pool is fed: Regenerate refills freed slots with new camera paths after every
// bounce; Waves starts new paths only when the whole pool has died (one wave per sample when the
// pool holds every pixel: the classic wavefront loop).
enum class Schedule { Regenerate, Waves };
constexpr EnumNames<Schedule, 2> enumNames(Schedule) {
  return {{{{Schedule::Regenerate, "regenerate"}, {Schedule::Waves, "waves"}}}};
}

// Closest-hit and shadow kernels: one thread per ray, or (CUDA) persistent threads; Auto is
// persistent on CUDA, where it measured faster on every scene of bench/tracer/RESULTS.md, and
// standard on the CPU.
enum class Traversal { Auto, Standard, Persistent };
constexpr EnumNames<Traversal, 3> enumNames(Traversal) {
  return {{{{Traversal::Auto, "auto"},
            {Traversal::Standard, "standard"},
            {Traversal::Persistent, "persistent"}}}};
}

// Ray reordering between passes (path tracer, index payload): Octant partitions the stream by
// ray-direction octant with eight compactions by the chosen primitive.
enum class Reorder { None, Octant };
constexpr EnumNames<Reorder, 2> enumNames(Reorder) {
  return {{{{Reorder::None, "none"}, {Reorder::Octant, "octant"}}}};
}

struct RenderOptions {
  IntegratorKind integrator = IntegratorKind::Path;
  int width = 640, height = 480;
  int spp = 16;
  int maxDepth = 8;
  std::string compaction = "auto";  // a registered primitive with options; auto picks by cost
  Payload payload = Payload::State;
  uint32_t seed = 0;
  Schedule schedule = Schedule::Regenerate;
  uint32_t poolSize = 0;  // paths in flight; 0: sized from the device (SM count, free memory)
  Traversal traversal = Traversal::Auto;
  Reorder reorder = Reorder::None;
  // New camera paths take pixels in bands of this many rows, column by column (0: scanline
  // order): a warp's camera rays then cover an 8 x 4 block, not a 32 x 1 strip, and trace 2.4%
  // faster on the Conference Room (bench/tracer/RESULTS.md). Images do not depend on it.
  uint32_t pixelBands = 4;
  // Path tracer, state payload: compact the pool every N passes. In between, paths that died stay
  // in place as dead lanes (skipped by every stage) and no new paths start, so compaction moves
  // each survivor once per N passes instead of once per pass.
  // 0: auto (every third pass while most paths survive a pass, else every pass): within 1% of
  // the best fixed cadence on every scene of bench/tracer/RESULTS.md.
  uint32_t compactEvery = 0;
  uint32_t firstSample = 0;  // samples [firstSample, firstSample + spp): progressive viewers
  // The per-sample clamp is sized for this many samples (0: spp). A render split into sample
  // ranges gives every part the whole render's count, so the parts' films sum to its film.
  uint32_t filmSamples = 0;
  double filmClampSamples() const { return filmSamples ? double(filmSamples) : double(spp); }

  bool operator==(const RenderOptions& o) const {
    return integrator == o.integrator && width == o.width && height == o.height && spp == o.spp &&
           maxDepth == o.maxDepth && compaction == o.compaction && payload == o.payload &&
           seed == o.seed && schedule == o.schedule && poolSize == o.poolSize &&
           traversal == o.traversal && reorder == o.reorder && pixelBands == o.pixelBands &&
           compactEvery == o.compactEvery &&
           firstSample == o.firstSample && filmSamples == o.filmSamples;
  }
  bool operator!=(const RenderOptions& o) const { return !(*this == o); }
};

}  // namespace srt
