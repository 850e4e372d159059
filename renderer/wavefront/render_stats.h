// What a render reports with --stats (JSON) and --verbose (a table): per bounce and in total.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "renderer/wavefront/scene_data.h"

namespace srt {

struct BounceStats {
  uint64_t raysIn = 0;      // rays traced at this bounce (summed over samples)
  uint64_t lanes = 0;       // stream slots launched: raysIn plus the dead lanes "none" keeps
  uint64_t raysAlive = 0;   // rays left after compaction (continuing to the next bounce)
  uint64_t shadowRays = 0;  // shadow rays traced at this bounce
  double compactionMs = 0;  // the compaction primitive, transfers included
  double transferMs = 0;    // part of compactionMs spent crossing memory spaces (GL interop)
  double traceMs = 0;       // closest-hit traversal
  double shadeMs = 0;       // shading, NEE sampling, next-direction sampling
  double shadowMs = 0;      // shadow-ray traversal
};

struct RenderStats {
  std::string scene, integrator, backend, device, compaction, payload;
  int width = 0, height = 0, spp = 0, maxDepth = 0;
  uint32_t seed = 0;
  size_t triangles = 0;
  float time = 0.f;        // the scene time this frame shows
  AccelBuildReport accel;  // the kd-tree build before this frame (builder empty: none)
  double sceneLoadSeconds = 0;
  double renderSeconds = 0;  // the sample loop alone
  double wallSeconds = 0;    // the whole command
  std::vector<BounceStats> bounces;

  uint64_t totalRays() const;  // camera + bounce + shadow rays traced
  double raysPerSecond() const { return renderSeconds > 0 ? totalRays() / renderSeconds : 0; }
  double samplesPerSecond() const {
    return renderSeconds > 0 ? double(width) * height * spp / renderSeconds : 0;
  }
  BounceStats& bounce(size_t d) {
    if (bounces.size() <= d) bounces.resize(d + 1);
    return bounces[d];
  }
};

std::string statsToJson(const RenderStats& s);
std::string statsTable(const RenderStats& s);

}  // namespace srt
