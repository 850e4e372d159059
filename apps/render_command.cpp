// `streamrt render SCENE -o OUT [options]` and `streamrt list`.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "apps/camera_flags.h"
#include "apps/command.h"
#include "apps/interrupt.h"
#include "apps/mpi_render.h"
#include "apps/progress_bar.h"
#include "apps/render_flags.h"
#include "apps/render_outputs.h"
#include "apps/split_render.h"
#include "base/image_io.h"
#include "base/paths.h"
#include "primitives/compaction/compaction.h"
#include "primitives/reduction/reduction.h"
#include "renderer/render.h"
#include "scenes/loader.h"

namespace srt {
namespace {

struct RenderCommand {
  std::string scene = "cornell";
  std::string output;
  std::string stats;
  bool statsGiven = false;
  std::string backend = "auto";
  float exposure = 0.f;
  bool verbose = false;
  bool progress = false;
  bool quiet = false;
  int frames = 1;
  float time = 0.f;
  bool timeGiven = false;  // --time on the command line (it conflicts with --frames)
  std::string env;         // --env R[,G,B]; empty: the scene's own environment
  int threads = 0;
  std::string devices;  // --devices: empty, "all" or ordinals (apps/split_render.h)
  CameraFlags camera;
  RenderOptions options;
  AccelOptions accel;
};

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

// "1" -> (1, 1, 1); "0.2,0.3,0.4" -> (0.2, 0.3, 0.4). Finite and non-negative, or an error.
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

const CLI::Validator kEnvironment(
    [](std::string& text) -> std::string {
      try {
        parseEnvironment(text);
        return {};
      } catch (const std::invalid_argument& e) {
        return e.what();
      }
    },
    "");

bool hasLights(const Scene& scene) {
  return !scene.pointLights.empty() || !isBlack(scene.environment) ||
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
  Scene scene = loadScene(cmd.scene);
  *loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - load0).count();
  scene.name = validUtf8(scene.name);  // it goes into the statistics' JSON
  if (cmd.timeGiven) checkTime(cmd, scene);
  if (!cmd.env.empty()) {
    scene.environment = parseEnvironment(cmd.env);
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

// What a signal that ends the process leaves behind, for its one line.
std::string exitNote(const RenderOutputs& outputs, int frames, bool stats) {
  const int n = outputs.framesWritten();
  if (frames <= 1 || n == 0) return "nothing was written";
  return (n == 1 ? "frame 1" : "frames 1-" + std::to_string(n)) + " of " + std::to_string(frames) +
         " written" + (stats ? ", no statistics" : "");
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
  auto frameTime = [&](int f) {  // as runRender's
    return cmd.frames <= 1 ? cmd.time : end * float(f) / float(cmd.frames - 1);
  };
  SplitRenderer renderer(std::move(scene), backend, cmd.options, cmd.accel, frameTime(0),
                         cmd.devices);
  for (int f = 0; f < cmd.frames; ++f) renderer.render(frameTime(f));
  return 0;
}

int runRender(const RenderCommand& cmd) {
  if (!mpi::world().root()) return runRenderRank(cmd);
  const auto wall0 = std::chrono::steady_clock::now();
  // Cheap checks first, so a typo or an unwritable path fails before a long scene load, kd-tree
  // build or render.
  if (cmd.timeGiven && cmd.frames > 1)
    throw UsageError(
        "--time picks the time of a single frame; --frames spreads the frames over the whole "
        "animation (use one or the other)");
  checkCameraFlags(cmd.camera);
  RenderOutputs outputs(cmd.output,
                        cmd.statsGiven ? std::optional<std::string>(cmd.stats) : std::nullopt,
                        cmd.frames);
  std::string notice;
  const Backend backend = selectBackend(cmd.backend, &notice);
  if (!notice.empty() && !cmd.quiet) std::fprintf(stderr, "streamrt: %s\n", notice.c_str());
  setUpDevices(cmd.devices, backend);  // first: under mpirun it picks this rank's GPU
  checkRender(backend, cmd.options, cmd.accel);
  applyThreads(cmd.threads);
  interrupt::setExitNote("nothing was written");

  double loadSeconds = 0;
  Scene scene = prepareScene(cmd, &loadSeconds);
  // Frames sample [0, animationEnd] evenly; a single frame shows --time.
  auto frameTime = [&](int f) {
    return cmd.frames <= 1 ? cmd.time : scene.animationEnd * float(f) / float(cmd.frames - 1);
  };
  const float time0 = frameTime(0);
  SplitRenderer renderer(std::move(scene), backend, cmd.options, cmd.accel, time0, cmd.devices);
  for (int f = 0; f < cmd.frames; ++f) {
    const std::string label =
        cmd.frames > 1 ? "frame " + std::to_string(f + 1) + "/" + std::to_string(cmd.frames)
                       : std::string("rendering");
    ProgressBar bar(label, !cmd.quiet && (cmd.progress || isatty(STDERR_FILENO)));
    RenderResult result = renderer.render(
        frameTime(f), [&](int done, int total, uint64_t rays) { bar.update(done, total, rays); });
    bar.finish();
    result.stats.sceneLoadSeconds = loadSeconds;
    result.stats.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    const std::string statsJson = cmd.statsGiven ? statsToJson(result.stats) : std::string();
    outputs.writeFrame(f, result.image, cmd.exposure, statsJson);
    interrupt::setExitNote(exitNote(outputs, cmd.frames, cmd.statsGiven));
    if (cmd.verbose) std::fputs(statsTable(result.stats).c_str(), stdout);
    if (!cmd.quiet)
      std::fprintf(stderr, "streamrt: wrote %s (%dx%d, %d spp, %.2f s, %.3g rays/s)\n",
                   outputs.imagePath(f).c_str(), cmd.options.width, cmd.options.height,
                   cmd.options.spp, result.stats.renderSeconds, result.stats.raysPerSecond());
    if (const int signal = interrupt::pending()) {  // came while the files were written
      outputs.finish();
      std::fprintf(stderr, "streamrt: stopped by %s after writing %s\n",
                   interrupt::signalName(signal), outputs.imagePath(f).c_str());
      return interrupt::exitStatus(signal);
    }
  }
  outputs.finish();
  return 0;
}

int runList() {
  std::printf("Compaction primitives (--compaction NAME[:key=value,...]):\n");
  std::printf("  %-22s %-8s %-10s %s\n", "name", "runs on", "ordering", "description");
  for (const auto& e : compaction::Registry::global().entries()) {
    const auto& i = e.info;
    std::printf("  %-22s %-8s %-10s %s\n", i.name.c_str(), compaction::toString(i.device),
                !i.compacts ? "-" : (i.ordered ? "ordered" : "unordered"), i.summary().c_str());
  }
  std::printf("\nSegmented reductions (--segreduce NAME, the GPU kd-tree build's node bounds):\n");
  for (const auto& e :
       reduction::Registry<reduction::Aabb, reduction::AabbUnion>::global().entries())
    if (e.info.segmented)
      std::printf("  %-22s %-19s %s\n", e.info.name.c_str(),
                  e.info.commutativeOnly ? "commutative only" : "any associative op",
                  e.info.description.c_str());
  std::printf("\nBuilt-in scenes:\n");
  for (const std::string& name : builtinSceneNames()) std::printf("  %s\n", name.c_str());
  return 0;
}

}  // namespace

Command addRenderCommand(CLI::App& app) {
  auto cmd = std::make_shared<RenderCommand>();
  RenderOptions& o = cmd->options;
  CLI::App* render = app.add_subcommand("render", "Render a scene to an image (PNG, EXR or PFM)");
  render
      ->add_option("scene", cmd->scene,
                   "Built-in scene name (see `streamrt list`) or a scene file: .obj, .ply, "
                   ".gltf, .glb, .json")
      ->capture_default_str();
  render
      ->add_option("-o,--output", cmd->output,
                   "Output image; the extension picks the format: .png (tone mapped sRGB), "
                   ".exr or .pfm (linear float)")
      ->required()
      ->check(kFileName);
  render->add_option("--spp", o.spp, "Samples per pixel")
      ->capture_default_str()
      ->check(kPositiveInteger);
  render
      ->add_option("--compaction", o.compaction,
                   "Compaction primitive between bounces, NAME[:key=value,...] (see `streamrt "
                   "list`); auto: the fastest by measured cost per stream shape")
      ->capture_default_str();
  addRenderFlags(*render, o, cmd->backend);
  addThreadsFlag(*render, cmd->threads);
  addDevicesFlag(*render, cmd->devices);
  render->add_option("--exposure", cmd->exposure, "Exposure in stops for PNG output")
      ->capture_default_str()
      ->check(kFinite);
  CLI::Option* stats = render
                           ->add_option("--stats", cmd->stats,
                                        "Write per-bounce statistics as JSON to this file (with "
                                        "--frames, one entry per frame, "
                                        "written as frames finish)")
                           ->check(kFileName);
  render
      ->add_option("--frames", cmd->frames,
                   "Render N frames over the scene's animation, rebuilding the kd-tree each "
                   "frame; outputs are numbered (out-0000.png, ...)")
      ->capture_default_str()
      ->check(integerIn(1, 100000));
  CLI::Option* time =
      render
          ->add_option("--time", cmd->time,
                       "Scene time of a single frame, within the scene's animation (animated "
                       "scenes; not with --frames)")
          ->capture_default_str()
          ->check(kFinite);
  addKdTreeFlags(*render, cmd->accel);
  render
      ->add_option("--segreduce", cmd->accel.gpu.segreduce,
                   "Segmented reduction the GPU kd-tree build uses for node bounds (see "
                   "`streamrt list`)")
      ->capture_default_str();
  render
      ->add_option("--kd-compaction", cmd->accel.gpu.compaction,
                   "Ordered CUDA compaction primitive the GPU kd-tree build forms child "
                   "triangle lists with")
      ->capture_default_str();
  render
      ->add_option("--env", cmd->env,
                   "Uniform environment radiance R[,G,B] replacing the scene's (0: none); a scene "
                   "without any light gets 1 by default")
      ->type_name("R[,G,B]")
      ->check(kEnvironment);
  addCameraFlags(*render, cmd->camera);
  render->add_flag("-v,--verbose", cmd->verbose, "Print the per-bounce statistics table");
  render->add_flag("--progress", cmd->progress,
                   "Show the progress bar even when stderr is no terminal");
  render->add_flag("-q,--quiet", cmd->quiet, "Print nothing but errors");

  return {render, [cmd, time, stats] {
            cmd->timeGiven = time->count() > 0;
            cmd->statsGiven = stats->count() > 0;
            return runRender(*cmd);
          }};
}

Command addListCommand(CLI::App& app) {
  CLI::App* list = app.add_subcommand("list", "List compaction primitives and built-in scenes");
  return {list, runList};
}

}  // namespace srt
