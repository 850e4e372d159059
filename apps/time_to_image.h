// Where a render's time goes as the user waits for the image, from the process's start to its
// files, for --stats and -v. The renderer's statistics already time the scene load
// (scene_load_seconds), the kd-tree build (accel_build_ms) and the sample loop (render_seconds);
// these are the phases around them, and wall_seconds is redefined to start at the process's
// start (exec), not at main().
#pragma once

#include <string>

#include "renderer/wavefront/render_stats.h"

namespace srt {

struct TimeToImage {
  double startupSeconds = 0;        // exec to main(): loading the program and its libraries
  double deviceStartSeconds = 0;    // CUDA: driver and context start, device query, render checks
                                    // (on a thread of its own, during the scene load)
  double deviceWaitSeconds = 0;     // the part of deviceStartSeconds the scene load did not hide
  double deviceSelectSeconds = 0;   // its parts: the driver's start and the device count,
  double deviceContextSeconds = 0;  // the primary context's creation,
  double deviceCheckSeconds = 0;    // the render's checks (checkRender)
  double setupSeconds = 0;          // the renderer built: scene upload, kd-tree, streams, primitive
  double firstPassSeconds = 0;      // the render's first pass, where first-use costs show
  double readbackSeconds = 0;       // the film resolved to an image on the host
  double encodeSeconds = 0;         // the image encoded (PNG, EXR, PFM)
  double writeSeconds = 0;          // its bytes written to the temporary file (flush and rename
                                    // come after the statistics are made)
  double wallSeconds = 0;           // process start to the statistics being made
};

// Seconds since this process started (exec), from the kernel's start time (/proc/self/stat,
// 10 ms resolution) and CLOCK_BOOTTIME; 0 where that cannot be read.
double secondsSinceProcessStart();

// `statsJson` (statsToJson's output) with totals.wall_seconds replaced and the other phases
// added to "totals": startup_seconds, device_start_seconds (and its parts device_select_seconds,
// device_context_seconds, device_check_seconds), device_wait_seconds, setup_seconds,
// first_pass_ms, image_readback_seconds, image_encode_seconds, image_write_seconds (encode and
// write together).
std::string withTimeToImage(const std::string& statsJson, const TimeToImage& t);

// One line for -v: every phase of the first frame in order (`s`: its statistics) and the wall
// time of the whole command.
std::string timeToImageLine(const TimeToImage& t, const RenderStats& s, bool sequence);

}  // namespace srt
