#include "apps/render_flags.h"

#include <cerrno>
#include <cstdint>
#include <cstdlib>

namespace srt {

const CLI::Validator kPositiveInteger(
    [](std::string& text) -> std::string {
      char* end = nullptr;
      errno = 0;
      const long v = std::strtol(text.c_str(), &end, 10);
      if (text.empty() || *end != '\0' || errno == ERANGE || v <= 0 || v > INT32_MAX)
        return "'" + text + "' is not a positive integer";
      return {};
    },
    "POSITIVE");

void addRenderFlags(CLI::App& cmd, RenderOptions& o, std::string& backend) {
  cmd.add_option("--width", o.width, "Image width in pixels")
      ->capture_default_str()
      ->check(kPositiveInteger);
  cmd.add_option("--height", o.height, "Image height in pixels")
      ->capture_default_str()
      ->check(kPositiveInteger);
  cmd.add_option("--max-depth", o.maxDepth, "Maximum number of bounces")
      ->capture_default_str()
      ->check(CLI::Range(0, 64));
  cmd.add_option("--integrator", o.integrator, "path or whitted")
      ->capture_default_str()
      ->check(CLI::IsMember({"path", "whitted"}));
  cmd.add_option("--payload", o.payload,
                 "What compaction moves: state (whole paths) or index (an index stream)")
      ->capture_default_str()
      ->check(CLI::IsMember({"state", "index"}));
  cmd.add_option("--schedule", o.schedule,
                 "How the path tracer feeds its path pool: regenerate (refill freed slots with "
                 "new camera paths after every bounce) or waves (new paths only when the whole "
                 "pool has died)")
      ->capture_default_str()
      ->check(CLI::IsMember({"regenerate", "waves"}));
  cmd.add_option("--pool", o.poolSize,
                 "Paths in flight at once (path tracer); 0: sized from the device (SM count, "
                 "free memory)")
      ->capture_default_str();
  cmd.add_option("--traversal", o.traversal,
                 "Closest-hit and shadow kernels: standard (one thread per ray), persistent "
                 "(CUDA: a fixed set of threads that keep fetching rays), or auto (persistent "
                 "on CUDA, standard on the CPU)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "standard", "persistent"}));
  cmd.add_option("--reorder", o.reorder,
                 "Ray reordering between passes: none, or octant (partition the index stream by "
                 "ray-direction octant with the compaction primitive; needs --payload index)")
      ->capture_default_str()
      ->check(CLI::IsMember({"none", "octant"}));
  cmd.add_option_function<std::string>(
         "--compact-every",
         [&o](const std::string& v) { o.compactEvery = v == "auto" ? 0 : uint32_t(std::stoul(v)); },
         "Path tracer, state payload: compact the path pool every N passes (1 to 64), or auto "
         "(every third pass while most paths survive a pass, else every pass); in between, dead "
         "paths stay in place as skipped lanes and no new paths start")
      ->default_str(o.compactEvery == 0 ? "auto" : std::to_string(o.compactEvery))
      ->type_name("N|auto")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            if (text == "auto") return {};
            char* end = nullptr;
            const long v = std::strtol(text.c_str(), &end, 10);
            if (text.empty() || *end != '\0' || v < 1 || v > 64)
              return "'" + text + "' is neither auto nor a number of passes in [1, 64]";
            return {};
          },
          ""));
  cmd.add_option("--backend", backend, "auto, cuda or cpu")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  cmd.add_option("--seed", o.seed, "Random seed")->capture_default_str();
}

void addKdTreeFlags(CLI::App& cmd, AccelOptions& accel) {
  cmd.add_option("--kd-build", accel.builder,
                 "kd-tree builder: cpu (full SAH, Wald & Havran) or gpu (Zhou et al., CUDA "
                 "backend)")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "gpu"}));
  cmd.add_option("--kd-max-depth", accel.sah.maxDepth,
                 "kd-tree depth limit; 0: 8 + 1.3 log2(triangles), as pbrt-v4")
      ->capture_default_str()
      ->check(CLI::Range(0, kKdMaxDepth));
  const auto positive = CLI::PositiveNumber.description("> 0");
  cmd.add_option("--kd-traversal-cost", accel.sah.traversalCost,
                 "SAH cost of visiting an interior node (K_T)")
      ->capture_default_str()
      ->check(positive);
  cmd.add_option("--kd-intersect-cost", accel.sah.intersectCost,
                 "SAH cost of one ray-triangle test (K_I)")
      ->capture_default_str()
      ->check(positive);
  cmd.add_option("--kd-empty-bonus", accel.sah.emptyBonus,
                 "SAH discount in [0, 1) for a split that cuts off empty space")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            char* end = nullptr;
            const double v = std::strtod(text.c_str(), &end);
            if (text.empty() || *end != '\0' || !(v >= 0.0 && v < 1.0))
              return "'" + text + "' is not a number in [0, 1)";
            return {};
          },
          "[0,1)"));
}

}  // namespace srt
