// Checks of GpuKdBuildOptions that need no device: numbers here, the primitives by name through
// their registries (Registry::check for the compaction), and the depth limit both builders use.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "primitives/compaction/compaction.h"
#include "renderer/accel/gpu/build_common.h"
#include "renderer/accel/gpu/kdtree_build_gpu.h"
#include "renderer/accel/gpu/segmented_boxes.h"

namespace srt {

void validateNumbers(const GpuKdBuildOptions& o) {
  if (o.smallNodeThreshold < GpuKdBuildOptions::kThresholdByBoxes ||
      o.smallNodeThreshold > kdgpu::kSmallMax)
    throw std::invalid_argument("GpuKdBuildOptions: smallNodeThreshold " +
                                std::to_string(o.smallNodeThreshold) + " outside [0, 64]");
  if (o.maxDepth < 0 || o.maxDepth > kKdMaxDepth)
    throw std::invalid_argument("GpuKdBuildOptions: maxDepth " + std::to_string(o.maxDepth) +
                                " outside [0, " + std::to_string(kKdMaxDepth) + "]");
  if (!(o.emptySpaceRatio >= 0.f && o.emptySpaceRatio <= 1.f))
    throw std::invalid_argument("GpuKdBuildOptions: emptySpaceRatio " +
                                std::to_string(o.emptySpaceRatio) + " outside [0, 1]");
  if (!(o.traversalCost > 0) || !(o.intersectCost > 0))
    throw std::invalid_argument("GpuKdBuildOptions: traversalCost and intersectCost must be > 0");
  if (o.smallCarveout < GpuKdBuildOptions::kCarveoutByClip || o.smallCarveout > 100)
    throw std::invalid_argument("GpuKdBuildOptions: smallCarveout " +
                                std::to_string(o.smallCarveout) + " outside [-2, 100]");
  if (o.replaySlack < 0 || o.replaySlack > 100)
    throw std::invalid_argument("GpuKdBuildOptions: replaySlack " + std::to_string(o.replaySlack) +
                                " outside [0, 100]");
  if (o.scratchPerRef < 4 || o.scratchPerRef > 64)
    throw std::invalid_argument("GpuKdBuildOptions: scratchPerRef " +
                                std::to_string(o.scratchPerRef) + " outside [4, 64]");
  if (!(o.emptyBonus >= 0 && o.emptyBonus < 1))
    throw std::invalid_argument("GpuKdBuildOptions: emptyBonus " + std::to_string(o.emptyBonus) +
                                " outside [0, 1)");
}

compaction::Needs kdBuildCompactionNeeds(const std::string& what) {
  compaction::Needs n;
  n.what = what;
  n.memory = MemorySpace::Cuda;
  n.device = compaction::Device::Cuda;
  n.compacts = true;
  n.ordered = true;
  n.kind = "an ordered CUDA compaction primitive (the child lists must stay sorted by node)";
  return n;
}

void validate(const GpuKdBuildOptions& o) {
  validateNumbers(o);
  // Node bounds reduce boxes, bin counts reduce ints, with the same variant.
  checkGpuKdSegreduce(o.segreduce, "GpuKdBuildOptions: segreduce");
  compaction::Registry::global().check(o.compaction,
                                       kdBuildCompactionNeeds("GpuKdBuildOptions: compaction"));
}

namespace {

// The value of `name` when it is one of `choices` (index), -1 when unset or empty; throws else.
int envChoice(const char* name, std::initializer_list<const char*> choices) {
  const char* v = std::getenv(name);
  if (!v || !*v) return -1;
  std::string list;
  int i = 0;
  for (const char* c : choices) {
    if (std::string(v) == c) return i;
    list += (i++ ? ", " : "") + std::string(c);
  }
  throw std::invalid_argument(std::string(name) + ": '" + v + "' (expected one of " + list + ")");
}

// Sets *out to the value of `name` when it is set and not empty; throws outside [min, max].
void envInt(const char* name, int min, int max, int* out) {
  const char* v = std::getenv(name);
  if (!v || !*v) return;
  char* end = nullptr;
  const long c = std::strtol(v, &end, 10);
  if (*end || c < min || c > max)
    throw std::invalid_argument(std::string(name) + ": '" + v + "' (expected " +
                                std::to_string(min) + " to " + std::to_string(max) + ")");
  *out = int(c);
}

}  // namespace

const char* toString(GpuKdLevels levels) {
  switch (levels) {
    case GpuKdLevels::Replay:
      return "replay";
    case GpuKdLevels::Graph:
      return "graph";
    default:
      return "sync";
  }
}

GpuKdBuildOptions withEnvironment(GpuKdBuildOptions o) {
  if (const int c = envChoice("SRT_KD_SMALL_REUSE", {"0", "1"}); c >= 0) o.smallReuseBoxes = c == 1;
  if (const int c = envChoice("SRT_KD_SMALL_BOXES", {"clip", "clamp"}); c >= 0)
    o.smallClampBoxes = c == 1;
  if (const int c = envChoice("SRT_KD_CLIP", {"poly", "stream", "shared"}); c >= 0) {
    o.streamingClip = c == 1;
    o.smallSharedClip = c == 2;
  }
  if (const int c = envChoice("SRT_KD_LARGE_CLIP", {"poly", "shared"}); c >= 0)
    o.largeSharedClip = c == 1;
  if (const int c = envChoice("SRT_KD_SPLIT", {"thread", "warp"}); c >= 0) o.splitPerWarp = c == 1;
  if (const int c = envChoice("SRT_KD_LEVELS", {"sync", "replay", "graph"}); c >= 0)
    o.levels = GpuKdLevels(c);
  envInt("SRT_KD_SMALL_CARVEOUT", GpuKdBuildOptions::kCarveoutByClip, 100, &o.smallCarveout);
  envInt("SRT_KD_REPLAY_SLACK", 0, 100, &o.replaySlack);
  envInt("SRT_KD_SCRATCH_PER_REF", 4, 64, &o.scratchPerRef);
  return o;
}

int smallCarveoutPercent(const GpuKdBuildOptions& o) {
  if (o.smallCarveout != GpuKdBuildOptions::kCarveoutByClip) return o.smallCarveout;
  return o.smallSharedClip ? 100 : 25;
}

int smallNodeThresholdFor(const GpuKdBuildOptions& o) {
  if (o.smallNodeThreshold != GpuKdBuildOptions::kThresholdByBoxes) return o.smallNodeThreshold;
  return o.smallClampBoxes ? kdgpu::kSmallMax : 28;
}

int gpuKdMaxDepth(const GpuKdBuildOptions& o, size_t triangles) {
  if (o.maxDepth > 0) return o.maxDepth;
  const double n = double(triangles > 1 ? triangles : 1);
  return std::min(kKdMaxDepth, int(std::lround(8 + 1.3 * std::log2(n))));
}

}  // namespace srt
