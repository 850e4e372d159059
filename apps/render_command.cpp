// `streamrt render SCENE -o OUT [options]`: the run, from the flags (render_command_flags.cpp)
// to the files written.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "apps/backend_startup.h"
#include "apps/camera_flags.h"
#include "apps/command.h"
#include "apps/interrupt.h"
#include "apps/mpi_render.h"
#include "apps/process_exit.h"
#include "apps/progress_bar.h"
#include "apps/render_command.h"
#include "apps/render_flags.h"
#include "apps/render_outputs.h"
#include "apps/split_render.h"
#include "apps/time_to_image.h"
#include "base/image_io.h"
#include "base/image_read.h"
#include "base/paths.h"
#include "renderer/render.h"
#include "scenes/loader.h"

namespace srt {
namespace {

std::string vec(Vec3f v) {
  char s[96];
  std::snprintf(s, sizeof s, "[%g, %g, %g]", v.x, v.y, v.z);
  return s;
}

std::string number(float v) {
  char s[32];
  std::snprintf(s, sizeof s, "%g", v);
  return s;
}

bool hasLights(const Scene& scene) {
  return !scene.pointLights.empty() || !isBlack(scene.environment) || scene.environmentMap ||
         std::any_of(scene.materials.begin(), scene.materials.end(),
                     [](const Material& m) { return !isBlack(m.ke); });
}

// The range --time may take: from the first keyframe (or 0) to the last.
void checkTime(const RenderCommand& cmd, const Scene& scene) {
  float start = 0.f;
  for (const Instance& inst : scene.instances)
    if (!inst.keyframes.empty()) start = std::min(start, inst.keyframes.front().time);
  const float end = scene.animationEnd;
  if (cmd.time >= start && cmd.time <= end) return;
  char range[96];
  if (end <= start)
    std::snprintf(range, sizeof range, "has no animation (only time %g)", start);
  else
    std::snprintf(range, sizeof range, "is animated over [%g, %g]", start, end);
  throw std::invalid_argument("--time " + number(cmd.time) + ": " + cmd.scene + " " + range);
}

// The scene's camera, or one framed automatically, with the camera flags applied; a framed one
// is printed for the user to keep.
void placeCamera(const RenderCommand& cmd, Scene& scene) {
  const bool framed = !scene.camera && !cmd.camera.placesCamera();
  if (!scene.camera)
    scene.camera = frameScene(scene, float(cmd.options.width) / float(cmd.options.height));
  if (cmd.camera.any()) scene.camera = applyCameraFlags(cmd.camera, *scene.camera);
  if (!framed || cmd.quiet) return;
  const Camera& c = *scene.camera;
  std::fprintf(stderr,
               "streamrt: notice: %s has no camera; framed it with \"camera\": "
               "{\"position\": %s, \"target\": %s, \"up\": %s, \"fov\": %g} (--camera or a "
               "JSON scene file can keep or change it)\n",
               cmd.scene.c_str(), vec(c.position).c_str(), vec(c.target).c_str(), vec(c.up).c_str(),
               c.vfovDegrees);
}

// Loads the scene and applies --time, --env and the camera flags, with the notices they call for.
Scene prepareScene(const RenderCommand& cmd, double* loadSeconds) {
  const auto load0 = std::chrono::steady_clock::now();
  std::optional<EnvironmentMap> envMap;  // read first: a bad map fails before a long scene load
  if (isRadianceImagePath(cmd.env)) envMap = EnvironmentMap{cmd.env, readRadianceImage(cmd.env)};
  LoadOptions load;
  load.quiet = cmd.quiet;  // the loader's warnings (a missing .mtl or texture) too
  Scene scene = loadScene(cmd.scene, load);
  *loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - load0).count();
  scene.name = validUtf8(scene.name);  // it goes into the statistics' JSON
  if (cmd.timeGiven) checkTime(cmd, scene);
  if (envMap) {
    scene.environment = Vec3f(0.f);
    scene.environmentMap = std::move(envMap);
  } else if (!cmd.env.empty()) {
    scene.environment = parseEnvironment(cmd.env);
    scene.environmentMap.reset();
  } else if (!hasLights(scene)) {
    // A bare OBJ usually has no emitters: light it evenly instead of rendering black.
    scene.environment = Vec3f(1.f);
    if (!cmd.quiet)
      std::fprintf(stderr,
                   "streamrt: notice: %s has no lights; using a uniform white environment "
                   "(--env 1; --env R,G,B sets another, --env 0 none)\n",
                   cmd.scene.c_str());
  }
  if (!cmd.quiet && !hasLights(scene))
    std::fprintf(stderr,
                 "streamrt: warning: %s has no emitters, point lights or environment: the image "
                 "will be black (--env adds an environment, see scenes/README.md)\n",
                 cmd.scene.c_str());
  placeCamera(cmd, scene);  // here rather than in Renderer so the user sees a framed one
  if (cmd.frames > 1 && scene.animationEnd <= 0.f && !cmd.quiet)
    std::fprintf(stderr, "streamrt: %s has no animation: the %d frames will be the same\n",
                 cmd.scene.c_str(), cmd.frames);
  return scene;
}

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Asks a render to stop after the pass in flight: on the first SIGINT, SIGTERM or SIGHUP (the
// flag; or one recorded while a frame was being written) or at --time-limit.
StopCondition stopCondition(const RenderCommand& cmd,
                            std::chrono::steady_clock::time_point renderStart) {
  StopCondition stop;
  stop.flag = interrupt::stopFlag();
  const double limit = cmd.timeLimit;
  stop.poll = [limit, renderStart] {
    return interrupt::pending() != 0 || (limit > 0 && secondsSince(renderStart) >= limit);
  };
  return stop;
}

// One frame rendered with its progress bar, stoppable by a signal or the time limit; the first
// pass and the read-back go into `times`.
RenderResult renderFrame(const RenderCommand& cmd, SplitRenderer& renderer, float time, int frame,
                         TimeToImage& times) {
  const std::string label =
      cmd.frames > 1 ? "frame " + std::to_string(frame + 1) + "/" + std::to_string(cmd.frames)
                     : std::string("rendering");
  ProgressBar bar(label, !cmd.quiet && (cmd.progress || isatty(STDERR_FILENO)));
  const auto start = std::chrono::steady_clock::now();
  double firstPass = 0;
  interrupt::Stoppable stoppable;  // the first signal now finishes the pass and writes the image
  RenderResult result = renderer.render(
      time,
      [&](int done, int total, uint64_t rays) {
        if (firstPass == 0) firstPass = secondsSince(start);
        bar.update(done, total, rays);
      },
      stopCondition(cmd, start));
  bar.finish();
  // (a later frame's first pass follows its kd-tree rebuild, which the statistics time apart)
  // (built beside the last frame's render, only its wait)
  const AccelBuildReport& accel = result.stats.accel;
  const double rebuild = frame > 0 ? (accel.overlapped ? accel.waitMs : accel.buildMs) * 1e-3 : 0.0;
  times.firstPassSeconds = std::max(0.0, firstPass - rebuild);
  times.readbackSeconds = result.imageSeconds;
  return result;
}

// "wrote out.png (1920x1080, 16 spp, 0.19 s, 1.2e+09 rays/s)", with the samples of a render
// stopped early.
std::string wroteLine(const std::string& path, const RenderStats& s) {
  char line[256];
  const std::string samples = s.stopped ? std::to_string(s.samplesDone) + " of " +
                                              std::to_string(s.spp) + " spp, stopped early"
                                        : std::to_string(s.spp) + " spp";
  std::snprintf(line, sizeof line, "streamrt: wrote %s (%dx%d, %s, %.2f s, %.3g rays/s)\n",
                path.c_str(), s.width, s.height, samples.c_str(), s.renderSeconds,
                s.raysPerSecond());
  return line;
}

ImageEncoding imageEncoding(const RenderCommand& cmd) {
  ImageEncoding encoding;
  for (ExrCompression c : kExrCompressions)
    if (cmd.exrCompression == toString(c)) encoding.exr = c;
  return encoding;
}

// When the command started: `start` on the steady clock, `startupSeconds` from exec to it.
struct CommandClock {
  std::chrono::steady_clock::time_point start;
  double startupSeconds = 0;
  double wallSeconds() const { return startupSeconds + secondsSince(start); }  // exec to now
};

// A frame's statistics once its image is written: `stats` with the write's times and the wall
// clock of that moment (on the writer thread for a sequence: all by value).
FrameStats frameStats(RenderStats stats, CommandClock clock) {
  return [stats = std::move(stats), clock](const FrameWrite& w) {
    RenderStats s = stats;
    s.timeToImage.encodeSeconds = w.encodeSeconds, s.timeToImage.writeSeconds = w.writeSeconds;
    s.wallSeconds = clock.wallSeconds();
    process::markStatsMade();
    return statsToJson(s);
  };
}

// Frames sample [0, animationEnd] evenly; a single frame shows --time.
float frameTime(const RenderCommand& cmd, float animationEnd, int frame) {
  return cmd.frames <= 1 ? cmd.time : animationEnd * float(frame) / float(cmd.frames - 1);
}

// An MPI rank other than 0: renders its share of every frame's samples for rank 0 to write, and
// prints nothing but errors.
int runRenderRank(RenderCommand cmd) {
  cmd.quiet = true;
  const Backend backend = selectBackend(cmd.backend);
  setUpDevices(cmd.devices, backend);
  checkRender(backend, cmd.options, cmd.accel);
  applyThreads(cmd.threads);
  double loadSeconds = 0;
  Scene scene = prepareScene(cmd, &loadSeconds);
  const float end = scene.animationEnd;
  SplitRenderer renderer(std::move(scene), backend, cmd.options, cmd.accel, frameTime(cmd, end, 0),
                         cmd.devices);
  for (int f = 0; f < cmd.frames; ++f) {  // --time-limit as on rank 0 (signals end a rank at once)
    if (f + 1 < cmd.frames) renderer.setNextTime(frameTime(cmd, end, f + 1));
    renderer.render(frameTime(cmd, end, f), {},
                    stopCondition(cmd, std::chrono::steady_clock::now()));
  }
  return 0;
}

// Flags that contradict each other, checked before anything is loaded.
void checkFlagsAgree(const RenderCommand& cmd) {
  if (cmd.timeGiven && cmd.frames > 1)
    throw UsageError(
        "--time picks the time of a single frame; --frames spreads the frames over the whole "
        "animation (use one or the other)");
  checkCameraFlags(cmd.camera);
}

// The host's part of the setup while the device starts: the geometry flattened for a render on
// one device (a split render flattens per device).
std::optional<FlatGeometry> flattenForOneDevice(const RenderCommand& cmd, const Scene& scene,
                                                float time, TimeToImage& times) {
  if (!cmd.devices.empty() || mpi::launched()) return std::nullopt;
  const auto flatten0 = std::chrono::steady_clock::now();
  std::optional<FlatGeometry> flat = flatten(scene, time);
  times.flattenSeconds = secondsSince(flatten0);
  return flat;
}

// The backend once started (waiting for it if need be), with its notice printed and the phases
// of its start in `times`.
Backend startedBackend(const RenderCommand& cmd, BackendStartup& startBackend, TimeToImage& times) {
  const Backend backend = startBackend.backend();
  if (!startBackend.notice().empty() && !cmd.quiet)
    std::fprintf(stderr, "streamrt: %s\n", startBackend.notice().c_str());
  times.deviceStartSeconds = startBackend.startSeconds();
  times.deviceWaitSeconds = startBackend.waitSeconds();
  times.deviceSelectSeconds = startBackend.selectSeconds();
  times.deviceContextSeconds = startBackend.contextSeconds();
  times.deviceCheckSeconds = startBackend.checkSeconds();
  return backend;
}

// The kd-tree options, with every frame's tree statistics when they are written.
AccelOptions accelWithTreeStats(const RenderCommand& cmd) {
  AccelOptions accel = cmd.accel;
  accel.rebuildTreeStats = accel.firstTreeStats = cmd.statsGiven || cmd.verbose;
  return accel;
}

// Hands each rendered frame to the outputs and says "wrote ..." once it is written (a sequence is
// written in the background); keeps the first frame's statistics for -v's time to image.
class FrameWriter {
 public:
  // `times`: the phases before the first frame, reported as they are if no frame renders.
  FrameWriter(const RenderCommand& cmd, RenderOutputs& outputs, CommandClock clock,
              const TimeToImage& times)
      : cmd_(cmd), outputs_(outputs), clock_(clock) {
    firstStats_.timeToImage = times;
  }

  void write(int frame, RenderResult result) {
    if (cmd_.verbose) std::fputs(statsTable(result.stats).c_str(), stdout);
    if (frame == 0) firstStats_ = result.stats;
    queued_.push_back(result.stats);
    outputs_.writeFrame(frame, std::move(result.image), cmd_.exposure,
                        frameStats(result.stats, clock_));
    announceWritten();
  }

  // Waits for the frames queued, says they are written and, with -v, prints the time to image.
  void finish() {
    outputs_.finish();
    process::markOutputsDone();
    announceWritten();
    if (cmd_.verbose) {
      firstStats_.wallSeconds = clock_.wallSeconds();
      std::fputs(timeToImageLine(firstStats_, cmd_.frames > 1).c_str(), stdout);
    }
  }

 private:
  void announceWritten() {
    for (const FrameWrite& w : outputs_.takeWritten()) {
      if (!cmd_.quiet)
        std::fputs(wroteLine(outputs_.imagePath(w.frame), queued_.front()).c_str(), stderr);
      queued_.pop_front();
      if (w.frame == 0)
        firstStats_.timeToImage.encodeSeconds = w.encodeSeconds,
        firstStats_.timeToImage.writeSeconds = w.writeSeconds;
    }
  }

  const RenderCommand& cmd_;
  RenderOutputs& outputs_;
  CommandClock clock_;
  std::deque<RenderStats> queued_;  // frames queued for writing, to say when they are written
  RenderStats firstStats_;          // the first frame's, with its phases, for -v
};

// Renders the frames in turn, each written while the next renders, until the last or a signal;
// returns the signal (0: none).
int renderFrames(const RenderCommand& cmd, SplitRenderer& renderer, float animationEnd,
                 double loadSeconds, CommandClock clock, TimeToImage& times, FrameWriter& writer) {
  int signal = 0;
  for (int f = 0; f < cmd.frames && !(signal = interrupt::pending()); ++f) {
    // The next frame's kd-tree is built beside this one's render (AccelOptions::overlap).
    if (f + 1 < cmd.frames) renderer.setNextTime(frameTime(cmd, animationEnd, f + 1));
    RenderResult result = renderFrame(cmd, renderer, frameTime(cmd, animationEnd, f), f, times);
    result.stats.sceneLoadSeconds = loadSeconds;
    result.stats.wallSeconds = clock.wallSeconds();  // the file's is when it is made
    result.stats.timeToImage = times;
    writer.write(f, std::move(result));
    // The phases before the first frame are reported with it alone.
    times.startupSeconds = times.deviceStartSeconds = times.deviceWaitSeconds = 0;
    times.deviceSelectSeconds = times.deviceContextSeconds = times.deviceCheckSeconds = 0;
    times.setupSeconds = times.flattenSeconds = 0;
    if ((signal = interrupt::pending())) break;
  }
  return signal;
}

// "stopped by SIGINT after writing out-0002.png"; returns the exit status the signal calls for.
int reportStopSignal(int signal, const RenderOutputs& outputs) {
  const int written = outputs.framesWritten();
  const std::string kept =
      written == 0 ? "before writing any frame" : "after writing " + outputs.imagePath(written - 1);
  std::fprintf(stderr, "streamrt: stopped by %s %s\n", interrupt::signalName(signal), kept.c_str());
  return interrupt::exitStatus(signal);
}

}  // namespace

int runRender(const RenderCommand& cmd) {
  if (!mpi::world().root()) return runRenderRank(cmd);
  const CommandClock clock{std::chrono::steady_clock::now(), secondsSinceProcessStart()};
  TimeToImage times;
  times.startupSeconds = clock.startupSeconds;
  // Cheap checks first, so a typo or an unwritable path fails before a long scene load, kd-tree
  // build or render.
  checkFlagsAgree(cmd);
  RenderOutputs outputs(cmd.output,
                        cmd.statsGiven ? std::optional<std::string>(cmd.stats) : std::nullopt,
                        cmd.frames, imageEncoding(cmd));
  applyThreads(cmd.threads);
  interrupt::setExitNote("nothing was written");
  // CUDA starts while the scene loads; under mpirun this rank's GPU is made current first.
  BackendStartup startBackend(cmd.backend, cmd.options, cmd.accel,
                              [&cmd](const Backend& b) { setUpDevices(cmd.devices, b); });

  double loadSeconds = 0;
  Scene scene = prepareScene(cmd, &loadSeconds);
  const float animationEnd = scene.animationEnd;
  const float time0 = frameTime(cmd, animationEnd, 0);
  std::optional<FlatGeometry> flat = flattenForOneDevice(cmd, scene, time0, times);
  const Backend backend = startedBackend(cmd, startBackend, times);
  const auto setup0 = std::chrono::steady_clock::now();
  SplitRenderer renderer(std::move(scene), backend, cmd.options, accelWithTreeStats(cmd), time0,
                         cmd.devices, std::move(flat));
  times.setupSeconds = secondsSince(setup0);

  FrameWriter writer(cmd, outputs, clock, times);
  const int signal = renderFrames(cmd, renderer, animationEnd, loadSeconds, clock, times, writer);
  writer.finish();
  const int status = signal ? reportStopSignal(signal, outputs) : 0;
  // Every file is in place: end here rather than free the renderer's device memory and CUDA's
  // context, which the kernel takes back anyway (process_exit.h; STREAMRT_QUICK_EXIT=0: return).
  process::exitNow(status);
  return status;
}

Vec3f parseEnvironment(const std::string& text) {
  std::vector<float> v;
  std::stringstream in(text);
  std::string item;
  bool ok = !text.empty() && text.back() != ',';
  while (ok && std::getline(in, item, ',')) {
    char* end = nullptr;
    const float f = std::strtof(item.c_str(), &end);
    ok = !item.empty() && end && *end == '\0' && std::isfinite(f) && f >= 0.f;
    v.push_back(f);
  }
  if (!ok || (v.size() != 1 && v.size() != 3))
    throw std::invalid_argument("'" + text +
                                "' is not R or R,G,B with finite non-negative radiance (0: none)");
  return v.size() == 1 ? Vec3f(v[0]) : Vec3f(v[0], v[1], v[2]);
}

}  // namespace srt
