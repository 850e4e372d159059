// `streamrt profile --compare A B`: two profile.json files (two commits, two machines, two
// settings) read back and set side by side: speed-ups per primitive, per-pass (or per-bounce)
// stage-time deltas, as a self-contained HTML report and a CSV.
#pragma once

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace srt::profile {

// One pass over the pool (or one bounce, where the render timed bounces): median stage times.
struct StepTimes {
  double traceMs = NAN, shadeMs = NAN, shadowMs = NAN, compactionMs = NAN, regenerateMs = NAN;
  double alive = NAN;      // paths alive after the step (rays alive after a bounce)
  double totalMs() const;  // the stages that were measured, summed
};

struct SavedPrimitive {
  std::string name;
  double renderMs = NAN, renderMinMs = NAN, renderMaxMs = NAN;  // median and range
  double speedupVsNone = NAN;
  double traceMs = NAN, shadeMs = NAN, shadowMs = NAN, compactionMs = NAN, regenerateMs = NAN;
  bool imagesIdentical = true;
  std::vector<StepTimes> steps;
};

// What compare needs of one profile.json.
struct SavedProfile {
  std::string path;  // as the user gave it
  std::string scene, integrator, backend, device, payload, schedule, traversal, kdBuild;
  int width = 0, height = 0, spp = 0, maxDepth = 0;
  long long seed = 0, poolSize = 0, triangles = 0;
  bool perPass = false;  // steps are passes over the pool (regenerate), not bounces
  std::string referenceHash;
  bool imagesIdentical = true;
  std::vector<SavedPrimitive> primitives;

  const SavedPrimitive* find(const std::string& name) const;
};

// Reads a profile.json written by `streamrt profile` (or the folder holding one). Throws
// std::invalid_argument with one line naming the path: missing, unreadable, not JSON, not a
// profile, a field of the wrong type.
SavedProfile readProfile(const std::string& path);

// The settings that make two profiles the same work (scene, triangles, integrator, resolution,
// spp, depth) must agree; throws std::invalid_argument listing every difference.
void checkComparable(const SavedProfile& a, const SavedProfile& b);

// Settings that differ and are the point of a comparison (machine, backend, payload, schedule...):
// (name, a's value, b's value).
struct SettingDiff {
  std::string name, a, b;
};
std::vector<SettingDiff> settingsTable(const SavedProfile& a, const SavedProfile& b);

// The primitives both profiles ran, in a's order.
std::vector<std::string> commonPrimitives(const SavedProfile& a, const SavedProfile& b);

// a's median over b's: > 1 means b is faster.
double speedup(double aMs, double bMs);

std::string compareHtml(const SavedProfile& a, const SavedProfile& b);
// Long form, one value pair a line: primitive,row,index,quantity,a,b,b_minus_a,a_over_b with row
// "total" (index empty) or "pass"/"bounce" (index the step).
std::string compareCsv(const SavedProfile& a, const SavedProfile& b);
extern const char* const kCompareCsvHeader;

}  // namespace srt::profile
