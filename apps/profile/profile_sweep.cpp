#include "apps/profile/profile_sweep.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace srt::profile {
// Bit-for-bit comparison: -0 against 0, or two NaNs with different payloads, count as different.
ImageMismatch compareImages(const Image& reference, const Image& image) {
  ImageMismatch m;
  if (reference.width != image.width || reference.height != image.height) {
    m.sizeDiffers = true;
    return m;
  }
  for (size_t i = 0; i < image.pixels.size(); ++i) {
    const Vec3f& a = reference.pixels[i];
    const Vec3f& b = image.pixels[i];
    if (std::memcmp(&a, &b, sizeof(Vec3f)) == 0) continue;
    ++m.differingPixels;
    for (int c = 0; c < 3; ++c)
      m.maxAbsDifference = std::max(m.maxAbsDifference, double(std::fabs(a[c] - b[c])));
  }
  return m;
}

std::string imageHash(const Image& image) {
  uint64_t h = 1469598103934665603ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(image.pixels.data());
  for (size_t i = 0; i < image.pixels.size() * sizeof(Vec3f); ++i) {
    h ^= bytes[i];
    h *= 1099511628211ull;
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

const PrimitiveProfile* Result::find(const std::string& spec) const {
  for (const PrimitiveProfile& p : primitives)
    if (p.spec == spec) return &p;
  return nullptr;
}

double Result::speedupVsNone(const PrimitiveProfile& p) const {
  const PrimitiveProfile* none = find("none");
  if (!none || !(p.summary.renderMs.median > 0)) return NAN;
  return none->summary.renderMs.median / p.summary.renderMs.median;
}

Result runSweep(Scene scene, const Backend& backend, const Settings& settings,
                const SweepProgress& progress) {
  if (settings.primitives.empty()) throw std::invalid_argument("profile: no primitive to run");
  if (settings.warmup < 0 || settings.repeats < 1)
    throw std::invalid_argument("--repeats must be at least 1 and --warmup at least 0");
  Result result;
  result.settings = settings;
  result.referencePrimitive = settings.primitives.front();
  RenderOptions options = settings.options;
  options.compaction = settings.primitives.front();
  Renderer renderer(std::move(scene), backend, options, settings.accel);

  Image reference;
  bool haveReference = false, haveHeader = false;
  const int runsPerPrimitive = settings.warmup + settings.repeats;
  for (size_t p = 0; p < settings.primitives.size(); ++p) {
    PrimitiveProfile prof;
    prof.spec = settings.primitives[p];
    prof.info = compaction::Registry::global().check(prof.spec);  // as its options make it
    options.compaction = prof.spec;
    if (p > 0) renderer.setOptions(options);  // same scene data and kd-tree, new streams
    for (int run = 0; run < runsPerPrimitive; ++run) {
      RenderResult r = renderer.render(0.f);
      if (!haveHeader) {
        result.header = r.stats;  // carries the kd-tree build the constructor did
        haveHeader = true;
      }
      if (run == 0) prof.imageHash = imageHash(r.image);
      if (!haveReference) {
        reference = std::move(r.image);
        result.referenceHash = prof.imageHash;
        haveReference = true;
      } else {
        ImageMismatch m = compareImages(reference, r.image);
        if (m.sizeDiffers || m.differingPixels > 0) {
          m.primitive = prof.spec;
          m.run = run;
          result.mismatches.push_back(m);
          prof.imagesIdentical = false;
        }
      }
      if (run >= settings.warmup) prof.runs.push_back(std::move(r.stats));
      if (progress) progress(prof.spec, run, runsPerPrimitive);
    }
    prof.summary = summarize(prof.runs);
    result.primitives.push_back(std::move(prof));
  }
  return result;
}

}  // namespace srt::profile
