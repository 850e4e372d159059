#include "apps/profile/profile_compare.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace srt::profile {
namespace {

using nlohmann::json;

// Reads fields of one file, naming the file and the field in every error.
class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& why) const {
    throw std::invalid_argument("--compare " + path_ + ": " + why);
  }
  const json& at(const json& j, const char* key, const std::string& where = "") const {
    if (!j.is_object() || !j.contains(key))
      fail("not a streamrt profile: no \"" + where + key + "\"");
    return j[key];
  }
  std::string text(const json& j, const char* key) const {
    const json& v = at(j, key);
    if (!v.is_string()) fail("\"" + std::string(key) + "\" is not a string");
    return v.get<std::string>();
  }
  // A number, or NaN for null (the writer's "not measured").
  double number(const json& j, const char* key, const std::string& where = "") const {
    if (!j.is_object() || !j.contains(key)) return NAN;
    const json& v = j[key];
    if (v.is_null()) return NAN;
    if (!v.is_number()) fail("\"" + where + key + "\" is not a number");
    return v.get<double>();
  }
  long long integer(const json& j, const char* key) const {
    const json& v = at(j, key);
    if (!v.is_number_integer()) fail("\"" + std::string(key) + "\" is not an integer");
    return v.get<long long>();
  }
  bool flag(const json& j, const char* key) const {
    const json& v = at(j, key);
    if (!v.is_boolean()) fail("\"" + std::string(key) + "\" is not true or false");
    return v.get<bool>();
  }
  // A spread object's median, or a plain number (per-pass times are medians already).
  double median(const json& j, const char* key, const std::string& where) const {
    if (j.is_object() && j.contains(key) && j[key].is_object())
      return number(j[key], "median", where + key + ".");
    return number(j, key, where);
  }
  const json& array(const json& j, const char* key, const std::string& where = "") const {
    const json& v = at(j, key, where);
    if (!v.is_array()) fail("\"" + where + key + "\" is not an array");
    return v;
  }

 private:
  std::string path_;
};

std::string readText(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0)
    throw std::invalid_argument("--compare " + path + ": cannot read (" + std::strerror(errno) +
                                ")");
  if (!S_ISREG(st.st_mode))
    throw std::invalid_argument("--compare " + path + ": not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::invalid_argument("--compare " + path + ": cannot read (" + std::strerror(errno) +
                                ")");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<StepTimes> readSteps(const Reader& r, const json& p, bool perPass,
                                 const std::string& where) {
  std::vector<StepTimes> steps;
  const char* list = perPass ? "iterations" : "bounces";
  const std::string at = where + list + "[].";
  for (const json& s : r.array(p, list, where)) {
    StepTimes t;
    t.traceMs = r.median(s, "trace_ms", at);
    t.shadeMs = r.median(s, "shade_ms", at);
    t.shadowMs = r.median(s, "shadow_ms", at);
    t.compactionMs = r.median(s, "compaction_ms", at);
    t.regenerateMs = r.median(s, "regenerate_ms", at);
    t.alive = r.number(s, perPass ? "alive" : "rays_alive", at);
    steps.push_back(t);
  }
  return steps;
}

SavedPrimitive readPrimitive(const Reader& r, const json& p, bool perPass) {
  SavedPrimitive s;
  s.name = r.text(p, "name");
  const std::string where = "primitives[" + s.name + "].";
  const json& render = r.at(p, "render_ms", where);
  s.renderMs = r.number(render, "median", where + "render_ms.");
  s.renderMinMs = r.number(render, "min", where + "render_ms.");
  s.renderMaxMs = r.number(render, "max", where + "render_ms.");
  s.speedupVsNone = r.number(p, "speedup_vs_none", where);
  const json& totals = r.at(p, "totals_ms", where);
  const std::string t = where + "totals_ms.";
  s.traceMs = r.median(totals, "trace", t);
  s.shadeMs = r.median(totals, "shade", t);
  s.shadowMs = r.median(totals, "shadow", t);
  s.compactionMs = r.median(totals, "compaction", t);
  s.regenerateMs = r.median(totals, "regenerate", t);
  s.imagesIdentical = r.flag(p, "images_identical");
  s.steps = readSteps(r, p, perPass, where);
  return s;
}

std::string number(long long v) {
  return std::to_string(v);
}

}  // namespace

double StepTimes::totalMs() const {
  double sum = 0;
  for (double v : {traceMs, shadeMs, shadowMs, compactionMs, regenerateMs})
    if (std::isfinite(v)) sum += v;
  return sum;
}

const SavedPrimitive* SavedProfile::find(const std::string& name) const {
  for (const SavedPrimitive& p : primitives)
    if (p.name == name) return &p;
  return nullptr;
}

// The settings read alike, each from its key in the file (in this order, so the first bad one
// is named).
const std::pair<std::string SavedProfile::*, const char*> kTextSettings[] = {
    {&SavedProfile::scene, "scene"},         {&SavedProfile::integrator, "integrator"},
    {&SavedProfile::backend, "backend"},     {&SavedProfile::device, "device"},
    {&SavedProfile::payload, "payload"},     {&SavedProfile::schedule, "schedule"},
    {&SavedProfile::traversal, "traversal"}, {&SavedProfile::kdBuild, "kd_build"}};
const std::pair<long long SavedProfile::*, const char*> kIntegerSettings[] = {
    {&SavedProfile::seed, "seed"},
    {&SavedProfile::poolSize, "pool_size"},
    {&SavedProfile::triangles, "triangles"}};

SavedProfile readProfile(const std::string& given) {
  struct stat st {};
  const bool folder = stat(given.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  SavedProfile s;
  s.path = folder ? given + (given.back() == '/' ? "" : "/") + "profile.json" : given;
  const Reader r(s.path);
  json j;
  try {
    j = json::parse(readText(s.path));
  } catch (const json::parse_error& e) {
    std::string why = e.what();
    const size_t bracket = why.find("] ");  // "[json.exception.parse_error.101] ..."
    r.fail("not JSON (" + (bracket == std::string::npos ? why : why.substr(bracket + 2)) + ")");
  }
  if (!j.is_object() || !j.contains("tool") || j["tool"] != "streamrt profile")
    r.fail("not a streamrt profile.json (no \"tool\": \"streamrt profile\")");
  for (const auto& [field, key] : kTextSettings) s.*field = r.text(j, key);
  const json& res = r.array(j, "resolution");
  if (res.size() != 2 || !res[0].is_number_integer() || !res[1].is_number_integer())
    r.fail("\"resolution\" is not [width, height]");
  s.width = res[0].get<int>(), s.height = res[1].get<int>();
  s.spp = int(r.integer(j, "spp"));
  s.maxDepth = int(r.integer(j, "max_depth"));
  for (const auto& [field, key] : kIntegerSettings) s.*field = r.integer(j, key);
  s.referenceHash = r.text(j, "reference_image_hash");
  s.imagesIdentical = r.flag(j, "images_identical");
  const json& primitives = r.array(j, "primitives");
  if (primitives.empty()) r.fail("no primitives in \"primitives\"");
  // Per bounce when any primitive timed bounces (waves, Whitted), else per pass over the pool.
  bool bounceTimes = false, anyPasses = false;
  for (const json& p : primitives) {
    bounceTimes = bounceTimes || (p.contains("per_bounce_times") && p["per_bounce_times"] == true);
    anyPasses = anyPasses || (p.contains("iterations") && !p["iterations"].empty());
  }
  s.perPass = !bounceTimes && anyPasses;
  for (const json& p : primitives) s.primitives.push_back(readPrimitive(r, p, s.perPass));
  return s;
}

void checkComparable(const SavedProfile& a, const SavedProfile& b) {
  std::string diffs;
  const auto differ = [&](const std::string& what, const std::string& x, const std::string& y) {
    if (x != y) diffs += (diffs.empty() ? "" : ", ") + what + " " + x + " vs " + y;
  };
  differ("scene", "'" + a.scene + "'", "'" + b.scene + "'");
  differ("triangles", number(a.triangles), number(b.triangles));
  differ("integrator", a.integrator, b.integrator);
  differ("resolution", std::to_string(a.width) + "x" + std::to_string(a.height),
         std::to_string(b.width) + "x" + std::to_string(b.height));
  differ("spp", number(a.spp), number(b.spp));
  differ("max depth", number(a.maxDepth), number(b.maxDepth));
  if (!diffs.empty())
    throw std::invalid_argument("--compare: the profiles render different work (" + diffs +
                                "): " + a.path + " and " + b.path + " cannot be compared");
}

std::vector<SettingDiff> settingsTable(const SavedProfile& a, const SavedProfile& b) {
  return {{"scene", a.scene, b.scene},
          {"backend", a.backend, b.backend},
          {"device", a.device, b.device},
          {"payload", a.payload, b.payload},
          {"schedule", a.schedule, b.schedule},
          {"pool size", number(a.poolSize), number(b.poolSize)},
          {"traversal", a.traversal, b.traversal},
          {"kd-tree build", a.kdBuild, b.kdBuild},
          {"seed", number(a.seed), number(b.seed)},
          {"image hash", a.referenceHash, b.referenceHash}};
}

std::vector<std::string> commonPrimitives(const SavedProfile& a, const SavedProfile& b) {
  std::vector<std::string> names;
  for (const SavedPrimitive& p : a.primitives)
    if (b.find(p.name)) names.push_back(p.name);
  return names;
}

double speedup(double aMs, double bMs) {
  return std::isfinite(aMs) && std::isfinite(bMs) && bMs > 0 ? aMs / bMs : NAN;
}

}  // namespace srt::profile
