// `streamrt render SCENE -o OUT [options]` and `streamrt list`.
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "apps/command.h"
#include "apps/progress_bar.h"
#include "apps/render_flags.h"
#include "primitives/compaction/compaction.h"
#include "primitives/reduction/reduction.h"
#include "base/atomic_file.h"
#include "base/image_io.h"
#include "base/paths.h"
#include "renderer/render.h"
#include "scenes/loader.h"

namespace srt {
namespace {

struct RenderCommand {
  std::string scene = "cornell";
  std::string output;
  std::string stats;
  std::string backend = "auto";
  float exposure = 0.f;
  bool verbose = false;
  bool progress = false;
  bool quiet = false;
  int frames = 1;
  float time = 0.f;
  bool timeGiven = false;  // --time on the command line (it conflicts with --frames)
  std::string env;         // --env R[,G,B]; empty: the scene's own environment
  RenderOptions options;
  AccelOptions accel;
};

// "out.png" with frame 3 of several -> "out-0003.png".
std::string framePath(const std::string& path, int frame, int frames) {
  if (frames <= 1) return path;
  const size_t dot = path.find_last_of('.');
  const size_t slash = path.find_last_of('/');
  const bool hasExt = dot != std::string::npos && (slash == std::string::npos || dot > slash);
  char number[16];
  std::snprintf(number, sizeof number, "-%04d", frame);
  return hasExt ? path.substr(0, dot) + number + path.substr(dot) : path + number;
}

using ReducerRegistry = reduction::Registry<reduction::Aabb, reduction::AabbUnion>;

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

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

// Fails before any work when `path` cannot be written: its folder missing, not a folder or not
// writable, or the path itself a folder. Writability is tried by creating (and removing) a file,
// since access(2) says yes to root even where a write would fail.
void checkWritable(const std::string& flag, const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw std::invalid_argument(flag + " " + path + ": is a folder, not a file");
  const std::string folder = folderOf(path);
  if (stat(folder.c_str(), &st) != 0)
    throw std::invalid_argument(flag + " " + path + ": folder '" + folder + "' does not exist");
  if (!S_ISDIR(st.st_mode))
    throw std::invalid_argument(flag + " " + path + ": '" + folder + "' is not a folder");
  std::string probe = folder + "/.streamrt-write-test-XXXXXX";
  const int fd = mkstemp(probe.data());
  if (fd < 0)
    throw std::invalid_argument(flag + " " + path + ": cannot write in folder '" + folder +
                                "': " + std::strerror(errno));
  close(fd);
  unlink(probe.c_str());
}

// --segreduce and --kd-compaction name registered primitives; a typo fails before the scene
// loads, listing what would have been accepted.
void checkKdBuildPrimitives(const GpuKdBuildOptions& o) {
  std::vector<std::string> reducers;
  for (const auto& e : ReducerRegistry::global().entries())
    if (e.info.segmented) reducers.push_back(e.info.name);
  if (!ReducerRegistry::global().find(o.segreduce, true))
    throw std::invalid_argument("--segreduce: unknown segmented reduction '" + o.segreduce +
                                "' (registered: " + joined(reducers) + ")");

  const compaction::Registry& reg = compaction::Registry::global();
  std::vector<std::string> ordered;
  for (const auto& e : reg.entries())
    if (e.info.device == compaction::Device::Cuda && e.info.ordered && e.info.compacts &&
        e.info.accepts_(MemorySpace::Cuda))
      ordered.push_back(e.info.name);
  const std::string name(compaction::Registry::nameOf(o.compaction));
  const compaction::Info* c = reg.find(name);
  if (!c)
    throw std::invalid_argument("--kd-compaction: unknown compaction primitive '" + name +
                                "' (ordered CUDA primitives: " + joined(ordered) + ")");
  if (std::find(ordered.begin(), ordered.end(), name) == ordered.end())
    throw std::invalid_argument("--kd-compaction: '" + name +
                                "' is not an ordered CUDA compaction primitive (the child lists "
                                "must stay sorted by node; use one of: " +
                                joined(ordered) + ")");
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

const CLI::Validator kFinite(
    [](std::string& text) -> std::string {
      char* end = nullptr;
      const float v = std::strtof(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !std::isfinite(v))
        return "'" + text + "' is not a finite number";
      return {};
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


int runRender(const RenderCommand& cmd) {
  const auto wall0 = std::chrono::steady_clock::now();
  // Cheap checks first, so a typo or an unwritable path fails before a long scene load, kd-tree
  // build or render.
  checkImageExtension(cmd.output);
  checkWritable("-o", cmd.output);
  if (!cmd.stats.empty()) checkWritable("--stats", cmd.stats);
  checkKdBuildPrimitives(cmd.accel.gpu);
  if (cmd.timeGiven && cmd.frames > 1)
    throw std::invalid_argument(
        "--time picks the time of a single frame; --frames spreads the frames over the whole "
        "animation (use one or the other)");
  const std::optional<Vec3f> env =
      cmd.env.empty() ? std::nullopt : std::optional<Vec3f>(parseEnvironment(cmd.env));
  std::string notice;
  const Backend backend = selectBackend(cmd.backend, &notice);
  if (!notice.empty() && !cmd.quiet) std::fprintf(stderr, "streamrt: %s\n", notice.c_str());
  validateRenderOptions(backend, cmd.options);

  const auto load0 = std::chrono::steady_clock::now();
  Scene scene = loadScene(cmd.scene);
  const double loadSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - load0).count();
  if (cmd.timeGiven) checkTime(cmd, scene);
  if (env) {
    scene.environment = *env;
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
  if (!scene.camera) {
    // Placed here rather than in Renderer so the user sees it and can reuse it.
    scene.camera = frameScene(scene, float(cmd.options.width) / float(cmd.options.height));
    const Camera& c = *scene.camera;
    if (!cmd.quiet)
      std::fprintf(stderr,
                   "streamrt: notice: %s has no camera; framed it with \"camera\": "
                   "{\"position\": %s, \"target\": %s, \"up\": %s, \"fov\": %g} (a JSON "
                   "scene file can keep or change it)\n",
                   cmd.scene.c_str(), vec(c.position).c_str(), vec(c.target).c_str(),
                   vec(c.up).c_str(), c.vfovDegrees);
  }
  if (cmd.frames > 1 && scene.animationEnd <= 0.f && !cmd.quiet)
    std::fprintf(stderr, "streamrt: %s has no animation: the %d frames will be the same\n",
                 cmd.scene.c_str(), cmd.frames);

  // Frames sample [0, animationEnd] evenly; a single frame shows --time.
  auto frameTime = [&](int f) {
    return cmd.frames <= 1 ? cmd.time : scene.animationEnd * float(f) / float(cmd.frames - 1);
  };
  Renderer renderer(std::move(scene), backend, cmd.options, cmd.accel, frameTime(0));
  nlohmann::json frames = nlohmann::json::array();
  for (int f = 0; f < cmd.frames; ++f) {
    const std::string label =
        cmd.frames > 1 ? "frame " + std::to_string(f + 1) + "/" + std::to_string(cmd.frames)
                       : std::string("rendering");
    ProgressBar bar(label, !cmd.quiet && (cmd.progress || isatty(STDERR_FILENO)));
    RenderResult result = renderer.render(
        frameTime(f), [&](int done, int total, uint64_t rays) { bar.update(done, total, rays); });
    bar.finish();
    result.stats.sceneLoadSeconds = loadSeconds;
    const std::string out = framePath(cmd.output, f, cmd.frames);
    writeImage(out, result.image, cmd.exposure);
    result.stats.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    frames.push_back(nlohmann::json::parse(statsToJson(result.stats)));
    if (cmd.verbose) std::fputs(statsTable(result.stats).c_str(), stdout);
    if (!cmd.quiet)
      std::fprintf(stderr, "streamrt: wrote %s (%dx%d, %d spp, %.2f s, %.3g rays/s)\n", out.c_str(),
                   cmd.options.width, cmd.options.height, cmd.options.spp,
                   result.stats.renderSeconds, result.stats.raysPerSecond());
  }
  if (!cmd.stats.empty()) {
    const nlohmann::json j = cmd.frames > 1 ? nlohmann::json{{"frames", frames}} : frames[0];
    writeFileAtomically(cmd.stats, j.dump(2) + "\n", "statistics");
  }
  return 0;
}

int runList() {
  std::printf("Compaction primitives (--compaction NAME[:key=value,...]):\n");
  std::printf("  %-22s %-8s %-10s %s\n", "name", "runs on", "ordering", "description");
  for (const auto& e : compaction::Registry::global().entries()) {
    const auto& i = e.info;
    std::printf("  %-22s %-8s %-10s %s\n", i.name.c_str(), compaction::toString(i.device),
                !i.compacts ? "-" : (i.ordered ? "ordered" : "unordered"), i.description.c_str());
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
                   ".gltf, .glb, .fbx, .json")
      ->capture_default_str();
  render
      ->add_option("-o,--output", cmd->output,
                   "Output image; the extension picks the format: .png (tone mapped sRGB), "
                   ".exr or .pfm (linear float)")
      ->required();
  render->add_option("--spp", o.spp, "Samples per pixel")
      ->capture_default_str()
      ->check(kPositiveInteger);
  render
      ->add_option("--compaction", o.compaction,
                   "Compaction primitive between bounces, NAME[:key=value,...] (see `streamrt "
                   "list`); auto: the fastest by measured cost per stream shape")
      ->capture_default_str();
  addRenderFlags(*render, o, cmd->backend);
  render->add_option("--exposure", cmd->exposure, "Exposure in stops for PNG output")
      ->capture_default_str();
  render->add_option("--stats", cmd->stats, "Write per-bounce statistics as JSON to this file");
  render
      ->add_option("--frames", cmd->frames,
                   "Render N frames over the scene's animation, rebuilding the kd-tree each "
                   "frame; outputs are numbered (out-0000.png, ...)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
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
  render->add_flag("-v,--verbose", cmd->verbose, "Print the per-bounce statistics table");
  render->add_flag("--progress", cmd->progress,
                   "Show the progress bar even when stderr is no terminal");
  render->add_flag("-q,--quiet", cmd->quiet, "Print nothing but errors");

  return {render, [cmd, time] {
            cmd->timeGiven = time->count() > 0;
            return runRender(*cmd);
          }};
}

Command addListCommand(CLI::App& app) {
  CLI::App* list = app.add_subcommand("list", "List compaction primitives and built-in scenes");
  return {list, runList};
}

}  // namespace srt
