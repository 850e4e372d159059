#include "apps/render_flags.h"

#include <omp.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>

namespace srt {
namespace {

// The whole of `text` as an integer; false on anything else, overflow included.
bool parseInteger(const std::string& text, long long* v) {
  char* end = nullptr;
  errno = 0;
  *v = std::strtoll(text.c_str(), &end, 10);
  return !text.empty() && *end == '\0' && errno != ERANGE;
}

// The whole of `text` as a float (the type of every real-valued flag), finite.
bool parseFinite(const std::string& text, float* v) {
  char* end = nullptr;
  *v = std::strtof(text.c_str(), &end);
  return !text.empty() && *end == '\0' && std::isfinite(*v);
}

// An option that takes the names of an enum's table: parsed, checked, listed in --help and
// defaulted from that one table.
template <typename E>
CLI::Option* addEnumOption(CLI::App& cmd, const std::string& flag, E& value,
                           const std::string& help) {
  return cmd
      .add_option_function<std::string>(
          flag, [&value](const std::string& v) { value = *enumFromString<E>(v); }, help)
      ->default_str(toString(value))
      ->check(CLI::IsMember(enumChoices<E>()));
}

}  // namespace

const CLI::Validator kPositiveInteger(
    [](std::string& text) -> std::string {
      long long v = 0;
      if (!parseInteger(text, &v) || v <= 0 || v > INT32_MAX)
        return "'" + text + "' is not a positive integer" +
               (v > INT32_MAX ? " (at most " + std::to_string(INT32_MAX) + ")" : "");
      return {};
    },
    "POSITIVE");

CLI::Validator integerIn(long long lo, long long hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        long long v = 0;
        if (!parseInteger(text, &v) || v < lo || v > hi)
          return "'" + text + "' is not an integer in [" + std::to_string(lo) + ", " +
                 std::to_string(hi) + "]";
        return {};
      },
      "INT in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

const CLI::Validator kFileName(
    [](std::string& text) -> std::string {
      if (text.empty()) return "an empty file name";
      return {};
    },
    "");

const CLI::Validator kFinite(
    [](std::string& text) -> std::string {
      float v = 0.f;
      if (!parseFinite(text, &v)) return "'" + text + "' is not a finite number";
      return {};
    },
    "");

const CLI::Validator kFinitePositive(
    [](std::string& text) -> std::string {
      float v = 0.f;
      if (!parseFinite(text, &v) || !(v > 0.f)) return "'" + text + "' is not a finite number > 0";
      return {};
    },
    "> 0");

void addRenderFlags(CLI::App& cmd, RenderOptions& o, std::string& backend) {
  cmd.add_option("--width", o.width, "Image width in pixels")
      ->capture_default_str()
      ->check(kPositiveInteger);
  cmd.add_option("--height", o.height, "Image height in pixels")
      ->capture_default_str()
      ->check(kPositiveInteger);
  cmd.add_option("--max-depth", o.maxDepth, "Maximum number of bounces")
      ->capture_default_str()
      ->check(integerIn(0, 64));
  addEnumOption(cmd, "--integrator", o.integrator, "path or whitted");
  addEnumOption(cmd, "--payload", o.payload,
                "What compaction moves: state (whole paths) or index (an index stream)");
  addEnumOption(cmd, "--schedule", o.schedule,
                "How the path tracer feeds its path pool: regenerate (refill freed slots with "
                "new camera paths after every bounce) or waves (new paths only when the whole "
                "pool has died)");
  cmd.add_option("--pool", o.poolSize,
                 "Paths in flight at once (path tracer); 0: sized from the device (SM count, "
                 "free memory)")
      ->capture_default_str()
      ->check(integerIn(0, UINT32_MAX));
  addEnumOption(cmd, "--traversal", o.traversal,
                "Closest-hit and shadow kernels: standard (one thread per ray), persistent "
                "(CUDA: a fixed set of threads that keep fetching rays), or auto (persistent "
                "on CUDA, standard on the CPU)");
  addEnumOption(cmd, "--reorder", o.reorder,
                "Ray reordering between passes: none, or octant (partition the index stream by "
                "ray-direction octant with the compaction primitive; needs --payload index)");
  cmd.add_option("--pixel-bands", o.pixelBands,
                 "New camera paths take pixels in bands of N rows, column by column, so a warp "
                 "traces a small block of the image (0: scanline order); images do not change")
      ->capture_default_str()
      ->check(integerIn(0, 64));
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
            long long v = 0;
            if (text == "auto") return {};
            if (!parseInteger(text, &v) || v < 1 || v > 64)
              return "'" + text + "' is neither auto nor a number of passes in [1, 64]";
            return {};
          },
          ""));
  cmd.add_option("--backend", backend, "auto, cuda or cpu")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  cmd.add_option("--seed", o.seed, "Random seed")
      ->capture_default_str()
      ->check(integerIn(0, UINT32_MAX));
}

void addKdTreeFlags(CLI::App& cmd, AccelOptions& accel) {
  cmd.add_option("--kd-build", accel.builder,
                 "kd-tree builder: auto (gpu on the CUDA backend, cpu on the CPU backend), cpu "
                 "(full SAH, Wald & Havran, parallel), gpu (Zhou et al., CUDA backend) or "
                 "gpu-host (gpu's algorithm run on the host, any backend: to compare trees)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "cpu", "gpu", "gpu-host"}));
  cmd.add_option("--kd-quality", accel.quality,
                 "GPU kd-tree quality: full (every small node's triangles clipped to its cell), "
                 "fast (small nodes cut the boxes of their terminal; leaves still clipped: builds "
                 "faster, traces slower) or auto (fast when the scene moves and its tree is rebuilt "
                 "every frame, else full), like Embree's build qualities")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "full", "fast"}));
  cmd.add_option("--kd-overlap", accel.overlap,
                 "animated frames played in order: build the next frame's kd-tree beside this "
                 "frame's render (a second copy of the moving geometry and tree); auto: on with "
                 "--kd-build gpu on CUDA; on also takes the CPU backend. SRT_KD_OVERLAP overrides")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "on", "off"}));
  cmd.add_option("--kd-max-depth", accel.sah.maxDepth,
                 "kd-tree depth limit; 0: 8 + 1.3 log2(triangles), as pbrt-v4")
      ->capture_default_str()
      ->check(integerIn(0, kKdMaxDepth));
  cmd.add_option("--kd-traversal-cost", accel.sah.traversalCost,
                 "SAH cost of visiting an interior node (K_T)")
      ->capture_default_str()
      ->check(kFinitePositive);
  cmd.add_option("--kd-intersect-cost", accel.sah.intersectCost,
                 "SAH cost of one ray-triangle test (K_I)")
      ->capture_default_str()
      ->check(kFinitePositive);
  cmd.add_option("--kd-empty-bonus", accel.sah.emptyBonus,
                 "SAH discount in [0, 1) for a split that cuts off empty space")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            float v = 0.f;
            if (!parseFinite(text, &v) || !(v >= 0.f && v < 1.f))
              return "'" + text + "' is not a number in [0, 1)";
            return {};
          },
          "[0,1)"));
}

void addThreadsFlag(CLI::App& cmd, int& threads) {
  cmd.add_option("--threads", threads,
                 "CPU threads for the CPU backend and the CPU kd-tree build (OpenMP); 0: "
                 "OMP_NUM_THREADS when set, else every core")
      ->capture_default_str()
      ->check(integerIn(0, 4096));
}

void applyThreads(int threads) {
  if (threads > 0) omp_set_num_threads(threads);
}

}  // namespace srt
