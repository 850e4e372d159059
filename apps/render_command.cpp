// `streamrt render SCENE -o OUT [options]` and `streamrt list`.
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <memory>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "apps/command.h"
#include "apps/progress_bar.h"
#include "primitives/compaction/compaction.h"
#include "primitives/reduction/reduction.h"
#include "renderer/io/atomic_file.h"
#include "renderer/io/image_io.h"
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

int runRender(const RenderCommand& cmd) {
  const auto wall0 = std::chrono::steady_clock::now();
  // Cheap checks first, so a typo fails before a long scene load or render.
  checkImageExtension(cmd.output);
  std::string notice;
  const Backend backend = selectBackend(cmd.backend, &notice);
  if (!notice.empty() && !cmd.quiet) std::fprintf(stderr, "streamrt: %s\n", notice.c_str());
  validateRenderOptions(backend, cmd.options);

  const auto load0 = std::chrono::steady_clock::now();
  Scene scene = loadScene(cmd.scene);
  const double loadSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - load0).count();
  if (!cmd.quiet && scene.pointLights.empty() && isBlack(scene.environment) &&
      std::none_of(scene.materials.begin(), scene.materials.end(),
                   [](const Material& m) { return !isBlack(m.ke); }))
    std::fprintf(stderr,
                 "streamrt: warning: %s has no emitters, point lights or environment: the image "
                 "will be black (a JSON scene file can add lights, see scenes/README.md)\n",
                 cmd.scene.c_str());
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
      ->check(CLI::PositiveNumber);
  render->add_option("--width", o.width, "Image width in pixels")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  render->add_option("--height", o.height, "Image height in pixels")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  render->add_option("--max-depth", o.maxDepth, "Maximum number of bounces")
      ->capture_default_str()
      ->check(CLI::Range(0, 64));
  render->add_option("--integrator", o.integrator, "path or whitted")
      ->capture_default_str()
      ->check(CLI::IsMember({"path", "whitted"}));
  render
      ->add_option("--compaction", o.compaction,
                   "Compaction primitive between bounces, NAME[:key=value,...] (see `streamrt "
                   "list`); auto: cub on CUDA, cpu on the CPU")
      ->capture_default_str();
  render
      ->add_option("--payload", o.payload,
                   "What compaction moves: state (whole paths) or index (an index stream)")
      ->capture_default_str()
      ->check(CLI::IsMember({"state", "index"}));
  render->add_option("--backend", cmd->backend, "auto, cuda or cpu")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  render->add_option("--seed", o.seed, "Random seed")->capture_default_str();
  render->add_option("--exposure", cmd->exposure, "Exposure in stops for PNG output")
      ->capture_default_str();
  render->add_option("--stats", cmd->stats, "Write per-bounce statistics as JSON to this file");
  render
      ->add_option("--frames", cmd->frames,
                   "Render N frames over the scene's animation, rebuilding the kd-tree each "
                   "frame; outputs are numbered (out-0000.png, ...)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  render->add_option("--time", cmd->time, "Scene time of a single frame (animated scenes)")
      ->capture_default_str();
  render
      ->add_option("--kd-build", cmd->accel.builder,
                   "kd-tree builder: cpu (full SAH, Wald & Havran) or gpu (Zhou et al., CUDA "
                   "backend)")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "gpu"}));
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
  render->add_flag("-v,--verbose", cmd->verbose, "Print the per-bounce statistics table");
  render->add_flag("--progress", cmd->progress,
                   "Show the progress bar even when stderr is no terminal");
  render->add_flag("-q,--quiet", cmd->quiet, "Print nothing but errors");

  return {render, [cmd] { return runRender(*cmd); }};
}

Command addListCommand(CLI::App& app) {
  CLI::App* list = app.add_subcommand("list", "List compaction primitives and built-in scenes");
  return {list, runList};
}

}  // namespace srt
