// What a render reports with --stats (JSON) and --verbose (a table): per bounce and in total.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "renderer/wavefront/render_options.h"
#include "renderer/wavefront/scene_data.h"

namespace srt {

struct BounceStats {
  uint64_t raysIn = 0;           // rays traced at this bounce (summed over samples)
  uint64_t lanes = 0;            // stream slots launched: raysIn plus the dead lanes "none" keeps
  uint64_t raysAlive = 0;        // rays left after compaction (continuing to the next bounce)
  uint64_t shadowRays = 0;       // shadow rays traced at this bounce
  double compactionMs = 0;       // the compaction primitive, transfers included
  double transferMs = 0;         // part of compactionMs spent crossing memory spaces (GL interop)
  double traceMs = 0;            // closest-hit traversal
  double shadeMs = 0;            // shading, NEE sampling, next-direction sampling
  double shadowMs = 0;           // shadow-ray traversal
  uint64_t compactionBytes = 0;  // bytes the primitive must move at least: flags read, survivors'
                                 // payload read and written
};

// One pass over the path pool: its occupancy and the time of each stage. With the "regenerate"
// schedule a pass mixes paths of every depth, so times are per pass and counts per depth.
struct IterationStats {
  uint32_t lanes = 0;        // pool slots launched this pass
  uint32_t alive = 0;        // paths going on to another bounce after this pass
  uint32_t regenerated = 0;  // new camera paths started in freed slots after this pass
  uint32_t idle = 0;         // slots left without a path (no sample left to start)
  double traceMs = 0, shadeMs = 0, shadowMs = 0, compactionMs = 0, regenerateMs = 0;
  double transferMs = 0;         // part of compactionMs crossing memory spaces (GL interop)
  double idleMs = 0;             // device time between the previous pass's end and this one's
                                 // start: the host was late (launches, read-back, a sync)
  uint64_t compactionBytes = 0;  // as BounceStats::compactionBytes
};

// Where the user's wait for the image goes around the renderer's own timings (scene load,
// kd-tree build, sample loop): the phases the render command measures (apps/time_to_image.h),
// written into the JSON's "totals" beside them. All zero where nothing measured them.
struct TimeToImage {
  double startupSeconds = 0;        // exec to main(): loading the program and its libraries
  double deviceStartSeconds = 0;    // CUDA: driver and context start, device query, render checks
                                    // (on a thread of its own, during the scene load)
  double deviceWaitSeconds = 0;     // the part of deviceStartSeconds the scene load did not hide
  double deviceSelectSeconds = 0;   // its parts: the driver's start and the device count,
  double deviceContextSeconds = 0;  // the primary context's creation,
  double deviceCheckSeconds = 0;    // the render's checks (checkRender)
  double flattenSeconds = 0;        // the scene's geometry flattened on the host (a part of the
                                    // setup done while the device starts)
  double setupSeconds = 0;          // the renderer built: scene upload, kd-tree, streams, primitive
  double firstPassSeconds = 0;      // the render's first pass, where first-use costs show
  double readbackSeconds = 0;       // the film resolved to an image on the host
  double encodeSeconds = 0;         // the image encoded (PNG, EXR, PFM)
  double writeSeconds = 0;          // its bytes written to the temporary file (flush and rename
                                    // come after the statistics are made)
};

struct RenderStats {
  std::string scene, backend, device, compaction;
  IntegratorKind integrator = IntegratorKind::Path;
  Payload payload = Payload::State;
  int width = 0, height = 0, spp = 0, maxDepth = 0;
  int samplesDone = 0;   // samples per pixel the film holds: spp, or fewer when stopped early
  bool stopped = false;  // a StopCondition ended the render before its spp
  uint32_t seed = 0;
  size_t triangles = 0;
  float time = 0.f;        // the scene time this frame shows
  AccelBuildReport accel;  // the kd-tree build before this frame (builder empty: none)
  double sceneLoadSeconds = 0;
  double renderSeconds = 0;          // the sample loop alone, until the film holds every sample
  double wallSeconds = 0;            // the whole command: process start to the statistics made
  TimeToImage timeToImage;           // the command's other phases
  std::vector<BounceStats> bounces;  // per path depth (bounce 0: camera rays)
  std::vector<IterationStats> iterations;  // per pass over the pool (path tracer)
  // The path pool's (poolSize > 0): the schedule, and the traversal as "auto" resolved.
  Schedule schedule = Schedule::Regenerate;
  Traversal traversal = Traversal::Standard;
  Reorder reorder = Reorder::None;
  std::string compactionChoice;  // what `auto` chose per stream shape (empty for the others)
  uint32_t poolSize = 0;
  uint32_t compactEvery = 1;  // passes per compaction of the path state; 0: auto

  uint64_t totalRays() const;  // camera + bounce + shadow rays traced
  double raysPerSecond() const { return renderSeconds > 0 ? totalRays() / renderSeconds : 0; }
  double samplesPerSecond() const {
    return renderSeconds > 0 ? double(width) * height * samplesDone / renderSeconds : 0;
  }
  BounceStats& bounce(size_t d) {
    if (bounces.size() <= d) bounces.resize(d + 1);
    return bounces[d];
  }
};

// Stage times over the whole render: from the passes when there are any, else the bounces.
struct StageTotals {
  double traceMs = 0, shadeMs = 0, shadowMs = 0, compactionMs = 0, transferMs = 0;
  double regenerateMs = 0, idleMs = 0;
  uint64_t compactionBytes = 0;
};
StageTotals stageTotals(const RenderStats& s);

std::string statsToJson(const RenderStats& s);
std::string statsTable(const RenderStats& s);

}  // namespace srt
