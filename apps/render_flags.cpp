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
  cmd.add_option("--backend", backend, "auto, cuda or cpu")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  cmd.add_option("--seed", o.seed, "Random seed")->capture_default_str();
}

}  // namespace srt
