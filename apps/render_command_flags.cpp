// `streamrt render`'s flags, added in groups. CLI11 lists flags in --help in the order they are
// added, so the groups are added in that order.
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/camera_flags.h"
#include "apps/command.h"
#include "apps/render_command.h"
#include "apps/render_flags.h"
#include "apps/split_render.h"
#include "base/image_io.h"
#include "base/image_read.h"

namespace srt {
namespace {

const CLI::Validator kEnvironment(
    [](std::string& text) -> std::string {
      if (isRadianceImagePath(text)) return {};  // read before the scene, in prepareScene
      try {
        parseEnvironment(text);
        return {};
      } catch (const std::invalid_argument& e) {
        return e.what();
      }
    },
    "");

// The flags whose presence, not only their value, matters after parsing.
struct GivenFlags {
  CLI::Option* stats = nullptr;
  CLI::Option* time = nullptr;
};

// The scene, the output, the samples and the flags that pick how and where they render.
void addSceneOutputAndRendererFlags(CLI::App& render, RenderCommand& cmd) {
  RenderOptions& o = cmd.options;
  render
      .add_option("scene", cmd.scene,
                  "Built-in scene name (see `streamrt list`) or a scene file: .obj, .ply, "
                  ".gltf, .glb, .json")
      ->capture_default_str();
  render
      .add_option("-o,--output", cmd.output,
                  "Output image; the extension picks the format: .png (tone mapped sRGB), "
                  ".exr or .pfm (linear float)")
      ->required()
      ->check(kFileName);
  render.add_option("--spp", o.spp, "Samples per pixel")
      ->capture_default_str()
      ->check(kPositiveInteger);
  render
      .add_option("--compaction", o.compaction,
                  "Compaction primitive between bounces, NAME[:key=value,...] (see `streamrt "
                  "list`); auto: the fastest by measured cost per stream shape")
      ->capture_default_str();
  addRenderFlags(render, o, cmd.backend);
  addThreadsFlag(render, cmd.threads);
  addDevicesFlag(render, cmd.devices);
}

// --exposure, --stats, --frames and --time: what is written, and for which scene times.
GivenFlags addOutputAndAnimationFlags(CLI::App& render, RenderCommand& cmd) {
  GivenFlags given;
  render.add_option("--exposure", cmd.exposure, "Exposure in stops for PNG output")
      ->capture_default_str()
      ->check(kFinite);
  given.stats = render
                    .add_option("--stats", cmd.stats,
                                "Write per-bounce statistics as JSON to this file (with "
                                "--frames, one entry per frame, "
                                "written as frames finish)")
                    ->check(kFileName);
  render
      .add_option("--frames", cmd.frames,
                  "Render N frames over the scene's animation, rebuilding the kd-tree each "
                  "frame; outputs are numbered (out-0000.png, ...)")
      ->capture_default_str()
      ->check(integerIn(1, 100000));
  given.time = render
                   .add_option("--time", cmd.time,
                               "Scene time of a single frame, within the scene's animation "
                               "(animated scenes; not with --frames)")
                   ->capture_default_str()
                   ->check(kFinite);
  return given;
}

// The kd-tree's flags shared with the other commands, then the GPU build's primitives.
void addKdTreeBuildFlags(CLI::App& render, AccelOptions& accel) {
  addKdTreeFlags(render, accel);
  render
      .add_option("--segreduce", accel.gpu.segreduce,
                  "Segmented reduction the GPU kd-tree build uses for node bounds (see "
                  "`streamrt list`)")
      ->capture_default_str();
  render
      .add_option("--kd-compaction", accel.gpu.compaction,
                  "Ordered CUDA compaction primitive the GPU kd-tree build forms child "
                  "triangle lists with")
      ->capture_default_str();
}

// --env and the camera flags: what replaces the scene's own lighting and view.
void addSceneOverrideFlags(CLI::App& render, RenderCommand& cmd) {
  render
      .add_option("--env", cmd.env,
                  "Environment replacing the scene's: uniform radiance R[,G,B] (0: none), or an "
                  "equirectangular map FILE.hdr|FILE.exr (+y up, its centre towards -z); a "
                  "scene without any light gets 1 by default")
      ->type_name("R[,G,B]|FILE")
      ->check(kEnvironment);
  addCameraFlags(render, cmd.camera);
}

// --time-limit, --exr-compression, -v, --progress and -q: when a frame stops, how EXR is
// encoded and what is printed.
void addLimitEncodingAndReportFlags(CLI::App& render, RenderCommand& cmd) {
  render
      .add_option("--time-limit", cmd.timeLimit,
                  "Seconds each frame may render: at the limit the pass in flight finishes and "
                  "the image of the samples completed is written (the statistics say how many)")
      ->type_name("S")
      ->check(kFinitePositive);
  std::vector<std::string> exrNames;
  for (ExrCompression c : kExrCompressions) exrNames.push_back(toString(c));
  render
      .add_option("--exr-compression", cmd.exrCompression,
                  "EXR output's compression: none (the default, the fastest to write), or "
                  "tinyexr's rle, zips, zip or piz (smaller files, slower)")
      ->capture_default_str()
      ->check(CLI::IsMember(exrNames));
  render.add_flag("-v,--verbose", cmd.verbose,
                  "Print the per-bounce statistics table and the time to image");
  render.add_flag("--progress", cmd.progress,
                  "Show the progress bar even when stderr is no terminal");
  render.add_flag("-q,--quiet", cmd.quiet, "Print nothing but errors");
}

}  // namespace

Command addRenderCommand(CLI::App& app) {
  auto cmd = std::make_shared<RenderCommand>();
  CLI::App* render = app.add_subcommand("render", "Render a scene to an image (PNG, EXR or PFM)");
  addSceneOutputAndRendererFlags(*render, *cmd);
  const GivenFlags given = addOutputAndAnimationFlags(*render, *cmd);
  addKdTreeBuildFlags(*render, cmd->accel);
  addSceneOverrideFlags(*render, *cmd);
  addLimitEncodingAndReportFlags(*render, *cmd);

  return {render, [cmd, given] {
            cmd->timeGiven = given.time->count() > 0;
            cmd->statsGiven = given.stats->count() > 0;
            return runRender(*cmd);
          }};
}

}  // namespace srt
