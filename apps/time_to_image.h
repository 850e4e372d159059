// Where a render's time goes as the user waits for the image, from the process's start to its
// files, for --stats and -v. The renderer's statistics already time the scene load
// (scene_load_seconds), the kd-tree build (accel_build_ms) and the sample loop (render_seconds);
// the render command measures the phases around them (RenderStats::timeToImage, which
// statsToJson writes into "totals") and wall_seconds from the process's start (exec), not from
// main().
#pragma once

#include <string>

#include "renderer/wavefront/render_stats.h"

namespace srt {

// Seconds since this process started (exec), from the kernel's start time (/proc/self/stat,
// 10 ms resolution) and CLOCK_BOOTTIME; 0 where that cannot be read.
double secondsSinceProcessStart();

// One line for -v: every phase of the first frame in order (`s`: its statistics, with its
// timeToImage) and the wall time of the whole command (s.wallSeconds).
std::string timeToImageLine(const RenderStats& s, bool sequence);

}  // namespace srt
