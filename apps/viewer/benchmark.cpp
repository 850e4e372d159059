#include "apps/viewer/benchmark.h"

#include <epoxy/gl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "apps/viewer/frame_times.h"
#include "apps/viewer/image_display.h"
#include "apps/viewer/mean_uploader.h"
#include "apps/viewer/render_session.h"
#include "primitives/common/cuda_check.h"
#include "primitives/gl/gl_context.h"

namespace srt::viewer {
namespace {

using Clock = std::chrono::steady_clock;

double msBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// The headless context stands in for the window's: the GL primitives run on it too.
struct HeadlessGl {
  explicit HeadlessGl(int cudaDevice) : context(gl::GlContext::createHeadless(cudaDevice)) {
    gl::useExternalContext(true);
  }
  ~HeadlessGl() { gl::useExternalContext(false); }
  std::unique_ptr<gl::GlContext> context;
};

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(q * double(v.size() - 1) + 0.5))];
}

void printSummary(const std::vector<FrameTimes>& frames, double wallMs, const RenderStats& last,
                  const std::string& display, bool rebuilt) {
  FrameTimes mean;
  std::vector<double> frameMs;
  for (const FrameTimes& f : frames) {
    mean.buildMs += f.buildMs, mean.traceMs += f.traceMs, mean.shadeMs += f.shadeMs;
    mean.shadowMs += f.shadowMs, mean.compactionMs += f.compactionMs;
    mean.displayMs += f.displayMs, mean.otherMs += f.otherMs;
    mean.refillMs += f.refillMs, mean.idleMs += f.idleMs, mean.outsideMs += f.outsideMs;
    mean.besideMs += f.besideMs, mean.setTimeMs += f.setTimeMs, mean.freeMs += f.freeMs;
    frameMs.push_back(f.frameMs);
  }
  const double n = double(frames.size());
  std::printf("benchmark: %s, %s (%s), %s, %dx%d, 1 spp a frame, %zu triangles%s\n",
              last.scene.c_str(), last.backend.c_str(), last.device.c_str(),
              toString(last.integrator), last.width, last.height, last.triangles,
              rebuilt ? ", kd-tree rebuilt every frame" : ", still image accumulating");
  std::printf("  %s\n", display.c_str());
  std::printf("  %zu frames: %.1f frames/s (%.3f ms a frame, wall clock; median %.3f, p90 %.3f)\n",
              frames.size(), n / (wallMs * 1e-3), wallMs / n, percentile(frameMs, 0.5),
              percentile(frameMs, 0.9));
  std::printf(
      "  mean ms a frame: build %.3f  trace %.3f  shade %.3f  shadow %.3f  compaction %.3f  "
      "display %.3f  other %.3f\n",
      mean.buildMs / n, mean.traceMs / n, mean.shadeMs / n, mean.shadowMs / n,
      mean.compactionMs / n, mean.displayMs / n, mean.otherMs / n);
  std::printf(
      "  other: refill %.3f  device idle between passes %.3f  outside the render loop %.3f"
      "  (%.1f passes a frame)\n",
      mean.refillMs / n, mean.idleMs / n, mean.outsideMs / n, double(last.iterations.size()));
  if (rebuilt)
    std::printf(
        "  kd-tree: %s, %s quality (--kd-quality); built beside the render %.3f ms a frame (its"
        " wait is the build column); setTime on the host %.3f, of which freeing the last tree"
        " %.3f\n",
        last.accel.overlapped ? "overlapped (--kd-overlap)" : "serial",
        last.accel.quality.c_str(), mean.besideMs / n,
        mean.setTimeMs / n, mean.freeMs / n);
  std::fflush(stdout);
}

}  // namespace

int runBenchmark(const ViewerConfig& cfg, const Scene& scene, float animationStart,
                 float animationEnd) {
  const ViewSettings& s = cfg.settings;
  int cudaDevice = -1;
  if (s.backend == "cuda") SRT_CUDA_CHECK(cudaGetDevice(&cudaDevice));
  HeadlessGl gl(cudaDevice);  // throws GlUnavailable with EGL's reason
  if (!cfg.quiet)
    std::fprintf(stderr, "streamrt: headless GL: %s\n", gl.context->description().c_str());
  ImageDisplay display;
  MeanUploader uploader(display);
  RenderSession session(scene, s.backend, s.options, cfg.accel, s.time);
  uploader.setBackend(session.backend(), cfg.quiet);

  const bool play = s.playing && animationEnd > animationStart;
  const float step = (animationEnd - animationStart) / float(std::max(cfg.benchmarkFrames, 1));
  const int total = cfg.benchmarkWarmup + cfg.benchmarkFrames;
  // A new time every frame, the first too: the kd-tree is rebuilt for each.
  auto frameTime = [&](int frame) {
    return animationStart + std::fmod(float(frame + 1) * step, animationEnd - animationStart);
  };
  std::vector<FrameTimes> frames;
  Clock::time_point start = Clock::now();
  DisplayPacer pacer(cfg.displayHz);
  int shown = 0;
  for (int i = 0; i < total; ++i) {
    if (i == cfg.benchmarkWarmup) {  // the warm-up's queued work is not the measured frames'
      glFinish();
      session.backend().synchronize();
      start = Clock::now();
    }
    if (play) {  // the next frame's tree is built beside this one's render when the overlap is on
      session.setTime(frameTime(i));
      if (i + 1 < total) session.setNextTime(frameTime(i + 1));
    }
    const Clock::time_point t0 = Clock::now();
    session.renderFrame();
    const Clock::time_point t1 = Clock::now();
    if (pacer.due(t1) || i + 1 == total) {  // as the window shows it (DisplayPacer)
      uploader.upload(session.accumulator());
      shown += i >= cfg.benchmarkWarmup;
    }
    const Clock::time_point t2 = Clock::now();
    if (i < cfg.benchmarkWarmup) continue;
    RenderStats stats = session.lastStats();
    if (session.lastBuildBeforeFrame()) stats.accel = {};  // built before the loop, not in it
    frames.push_back(
        splitFrame(stats, msBetween(t0, t2), session.lastAccumulateMs() + msBetween(t1, t2)));
  }
  glFinish();  // the last frame is on its way to the screen: its texture upload is done
  session.backend().synchronize();
  const double wallMs = msBetween(start, Clock::now());
  printSummary(frames, wallMs, session.lastStats(), uploader.line(), play);
  std::printf("  shown %d of %d frames (--display-hz %d%s)\n", shown, cfg.benchmarkFrames,
                cfg.displayHz, cfg.displayHz == 0 ? ": every frame" : "");
  return 0;
}

}  // namespace srt::viewer
