// The sweep behind `streamrt profile`: one scene and one kd-tree, every chosen primitive rendered
// with warm-up runs and timed repeats, every image compared bit for bit with the first one.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "apps/profile/profile_stats.h"
#include "primitives/compaction/compaction.h"
#include "renderer/render.h"

namespace srt::profile {

struct Settings {
  std::vector<std::string> primitives;  // specs in sweep order; must hold "none" (the baseline)
  RenderOptions options;                // everything but the primitive
  AccelOptions accel;
  int warmup = 1;   // renders per primitive before timing, not reported
  int repeats = 5;  // timed renders per primitive
};

// A render whose image differs from the reference (the sweep's first render).
struct ImageMismatch {
  std::string primitive;
  int run = 0;  // 0-based over warm-up and timed runs of that primitive
  bool sizeDiffers = false;
  size_t differingPixels = 0;
  double maxAbsDifference = 0;
};

struct PrimitiveProfile {
  std::string spec;               // as given: "gl-roger:block=128"
  compaction::Info info;          // where it runs, ordering
  std::vector<RenderStats> runs;  // the timed repeats
  PrimitiveSummary summary;
  std::string imageHash;        // FNV-1a of the first image's bits, hex
  bool imagesIdentical = true;  // every run of this primitive matched the reference
};

struct Result {
  Settings settings;
  RenderStats header;  // scene, backend, device, triangles, kd-tree build of the first render
  std::string referencePrimitive;
  std::string referenceHash;
  std::vector<PrimitiveProfile> primitives;
  std::vector<ImageMismatch> mismatches;

  bool imagesIdentical() const { return mismatches.empty(); }
  const PrimitiveProfile* find(const std::string& spec) const;
  // Median render time of `none` over this primitive's: > 1 means faster than keeping dead lanes.
  double speedupVsNone(const PrimitiveProfile& p) const;
};

// Called after each render: primitive, run index (warm-up runs first), runs per primitive.
using SweepProgress = std::function<void(const std::string&, int, int)>;

// Builds the scene data and kd-tree once, then for each primitive swaps the render options on the
// same Renderer (Renderer::setOptions keeps the tree). Throws on render errors.
Result runSweep(Scene scene, const Backend& backend, const Settings& settings,
                const SweepProgress& progress = {});

// Bit-for-bit comparison (primitive and run left empty): -0 against 0 differs, as do NaNs with
// different payloads; maxAbsDifference is over finite channels.
ImageMismatch compareImages(const Image& reference, const Image& image);

// Hex FNV-1a over the pixels' bits: equal images, equal hashes.
std::string imageHash(const Image& image);

}  // namespace srt::profile
