#include "primitives/compaction/adaptive/adaptive_compactor.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "primitives/common/cuda_resources.h"

namespace srt::compaction {

namespace {

constexpr const char* kName = "auto";
constexpr size_t kMaxPendingTimings = 64;  // beyond this a run goes untimed rather than waiting
constexpr uint32_t kWarmUpCount = 2048;    // elements of a candidate's untimed first run

int spaceIndex(MemorySpace m) {
  return m == MemorySpace::Host ? 0 : 1;
}

int log2Bucket(uint32_t count) {
  int b = 0;
  while (count) ++b, count >>= 1;
  return b;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  size_t begin = 0;
  while (begin <= text.size()) {
    const size_t end = std::min(text.find(sep, begin), text.size());
    out.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

// What auto's candidates must be for streams in `m` (the one registry filter, Needs).
Needs candidateNeeds(const AdaptiveOptions& o, MemorySpace m) {
  Needs n;
  n.what = std::string("compaction '") + kName + "' candidate";
  n.memory = m;
  n.compacts = true;
  n.direct = true;
  n.ordered = o.ordered;
  n.gl = o.gl || !o.candidates.empty();  // gl=1 adds the OpenGL family; a named one is allowed
  return n;
}

// The specs auto runs on streams in `m`: the named candidates that take that memory, or every
// registered primitive that fits.
std::vector<std::string> candidatesFor(const Registry& registry, const AdaptiveOptions& o,
                                       MemorySpace m) {
  if (o.candidates.empty()) return registry.namesMatching(candidateNeeds(o, m));
  std::vector<std::string> specs;
  for (const std::string& spec : o.candidates)
    if (registry.find(Registry::nameOf(spec))->accepts_(m)) specs.push_back(spec);
  return specs;
}

// Where nothing was measured: the single-pass designs first, the rest in registration order, and
// cub, the baseline, past the contention threshold: its per-call cost shows on short streams
// (bench/compaction/RESULTS.md) and it made every bench scene's render 1.1-1.2x slower, so a
// fresh process does not spend a round on it (`auto:candidates=...` can still name it).
std::vector<double> defaultPrior(const std::vector<std::string>& specs) {
  std::vector<double> prior(specs.size(), 1.1);
  for (size_t i = 0; i < specs.size(); ++i) {
    const std::string_view name = Registry::nameOf(specs[i]);
    if (name == "lookback") prior[i] = 1.0;
    if (name == "tile-atomic") prior[i] = 1.01;
    if (name == "cub") prior[i] = 1.3;
  }
  return prior;
}

}  // namespace

AdaptiveOptions AdaptiveOptions::read(OptionReader& o) {
  AdaptiveOptions a;
  const std::string list = o.get("candidates", "");
  a.gl = o.getInt("gl", 0) == 1;
  a.ordered = o.getInt("ordered", 0) == 1;
  a.policy.samples = o.getInt("samples", a.policy.samples);
  a.policy.probeEvery = o.getInt("probe", a.policy.probeEvery);
  a.tiny = uint32_t(o.getInt("tiny", int(a.tiny)));
  a.fresh = o.getInt("fresh", 0) == 1;
  if (!list.empty())
    for (std::string spec : split(list, '+')) {
      std::replace(spec.begin(), spec.end(), ';', ',');  // a candidate's own options
      a.candidates.push_back(spec);
    }
  return a;
}

struct AdaptiveCompactor::Family {
  MemorySpace memory;
  std::vector<std::string> specs;
  std::vector<const Info*> infos;
  std::vector<std::unique_ptr<Compactor>> compactors;  // created on the first request
  bool active = false;
  std::vector<std::pair<int, uint32_t>> warmed;  // field layouts every candidate has run once
};

struct AdaptiveCompactor::Shape {
  MemorySpace memory;
  int countLog2, numFields;
  uint32_t bytes;
  Family* family;
  ChoicePolicy policy;
  bool calibrated = false;  // started from the cache
  bool tiny = false;        // never explored nor timed
  bool persisted = false;   // in the cache file as of the last save
  bool round = false;       // its first call times every contender on the same stream
  // Worth a cache entry: two candidates timed at least. A short render may end before exploration
  // does; the next process starts from what this one measured (the rest keep their prior).
  bool measured() const {
    if (tiny || policy.best() < 0 || policy.numCandidates() < 2) return false;
    int timed = 0;
    for (int c = 0; c < policy.numCandidates(); ++c) timed += policy.samples(c) > 0;
    return timed >= 2;
  }
  bool same(MemorySpace m, int c, int f, uint32_t b) const {
    return memory == m && countLog2 == c && numFields == f && bytes == b;
  }
};

struct AdaptiveCompactor::Timing {
  CudaEvent start{cudaEventDefault}, stop{cudaEventDefault};
  bool pending = false;
  Shape* shape = nullptr;
  int candidate = 0;
  uint32_t count = 0;
};

AdaptiveCompactor::AdaptiveCompactor(const Registry& registry, AdaptiveOptions options)
    : registry_(registry), options_(std::move(options)) {
  ordered_ = true;
  bool any = false;
  for (MemorySpace m : {MemorySpace::Host, MemorySpace::Cuda}) {
    auto f = std::make_unique<Family>();
    f->memory = m;
    f->specs = candidatesFor(registry_, options_, m);
    for (const std::string& spec : f->specs) {
      // Checked, not made: the primitives are made on the first request in this memory space.
      registry_.check(spec, candidateNeeds(options_, m));
      f->infos.push_back(registry_.find(Registry::nameOf(spec)));
      ordered_ = ordered_ && f->infos.back()->ordered;
    }
    any = any || !f->specs.empty();
    families_[spaceIndex(m)] = std::move(f);
  }
  if (!any) throw std::invalid_argument("compaction 'auto': no candidate primitive");
}

AdaptiveCompactor::~AdaptiveCompactor() {
  try {
    saveCalibration(false);
  } catch (...) {  // a cache that cannot be written never fails a render
  }
}

void AdaptiveCompactor::persist() {
  try {
    saveCalibration(true);
  } catch (...) {
  }
}

CalibrationCache* AdaptiveCompactor::cache() {
  if (!cache_) {
    cache_ = std::make_unique<CalibrationCache>(
        options_.cachePath.empty() ? CalibrationCache::defaultPath() : options_.cachePath);
    if (!options_.fresh) cache_->load();
  }
  return cache_->path().empty() ? nullptr : cache_.get();
}

// Measured shapes (Shape::measured) go to the cache, keyed by the device their memory runs on.
// onlyNew: write only when a shape was measured since the last save, so that a viewer calling
// this every frame writes the file a few times, not every frame.
void AdaptiveCompactor::saveCalibration(bool onlyNew) {
  if (!timings_.empty()) {
    // At the end, the samples still in flight count too; after a render (a viewer frame) only
    // those complete, so that a frame never waits here.
    if (!onlyNew) cudaDeviceSynchronize();
    harvest();
  }
  if (onlyNew && std::none_of(shapes_.begin(), shapes_.end(),
                              [](const auto& s) { return s->measured() && !s->persisted; }))
    return;
  bool any = false;
  for (const auto& s : shapes_) {
    if (!s->measured()) continue;
    s->persisted = true;
    CalibrationCache* c = cache();
    if (!c) return;
    const std::string device = CalibrationCache::deviceIdentity(s->memory);
    if (device.empty()) continue;
    const std::vector<double> costs = s->policy.relativeCosts();
    CalibrationCosts entry;
    for (size_t i = 0; i < costs.size(); ++i) entry.emplace_back(s->family->specs[i], costs[i]);
    c->put({device, s->memory, s->numFields, s->bytes, s->countLog2}, std::move(entry));
    any = true;
  }
  if (any) cache_->save();
}

void AdaptiveCompactor::prepare(const Preparation& p) {
  reserve(p.maxCount);
  Family& f = family(p.memory);
  for (auto& c : f.compactors) c->prepare(p);
  for (const std::vector<uint32_t>& layout : p.layouts) {
    uint32_t bytes = 0;
    for (uint32_t b : layout) bytes += b;
    const std::pair<int, uint32_t> key{int(layout.size()), bytes};
    if (std::find(f.warmed.begin(), f.warmed.end(), key) == f.warmed.end()) f.warmed.push_back(key);
  }
  cache();
}

void AdaptiveCompactor::reserve(uint32_t maxCount) {
  maxCount_ = std::max(maxCount_, maxCount);
  for (auto& f : families_)
    if (f && f->active)
      for (auto& c : f->compactors) c->reserve(maxCount_);
}

AdaptiveCompactor::Family& AdaptiveCompactor::family(MemorySpace m) {
  Family& f = *families_[spaceIndex(m)];
  if (f.specs.empty()) {
    std::string list;
    for (const std::string& s : options_.candidates) list += (list.empty() ? "" : ", ") + s;
    throw std::invalid_argument(std::string("compaction 'auto' has no candidate for streams in ") +
                                toString(m) + " memory" +
                                (list.empty() ? std::string() : " (candidates: " + list + ")"));
  }
  if (!f.active) {  // the first request here: make and size the candidates once
    std::vector<std::unique_ptr<Compactor>> made;
    for (const std::string& spec : f.specs) {
      made.push_back(registry_.create(spec));
      if (maxCount_) made.back()->reserve(maxCount_);
    }
    f.compactors = std::move(made);
    f.active = true;
  }
  return f;
}

AdaptiveCompactor::Shape& AdaptiveCompactor::shape(const Request& r, Family& f) {
  const int c = log2Bucket(r.count);
  uint32_t bytes = 0;
  for (int i = 0; i < r.numFields; ++i) bytes += r.fields[i].bytes;
  for (auto& s : shapes_)
    if (s->same(r.memory, c, r.numFields, bytes)) return *s;
  // A new shape starts from the nearest measured one: a nearby size, preferably the same fields.
  const Shape* seed = nullptr;
  int seedDistance = 0;
  for (const auto& s : shapes_) {
    if (s->memory != r.memory || s->policy.best() < 0) continue;
    const int d =
        std::abs(s->countLog2 - c) + (s->numFields != r.numFields || s->bytes != bytes ? 4 : 0);
    if (!seed || d < seedDistance) seed = s.get(), seedDistance = d;
  }
  const int n = int(f.specs.size());
  std::vector<double> prior = seed ? seed->policy.relativeCosts() : std::vector<double>();
  ChoiceParams params = options_.policy;
  const bool tiny = r.count < options_.tiny;
  bool calibrated = false;
  if (CalibrationCache* cc = n > 1 ? cache() : nullptr) {
    const std::string device = CalibrationCache::deviceIdentity(r.memory);
    std::vector<double> cached = device.empty()
                                     ? std::vector<double>()
                                     : cc->find({device, r.memory, r.numFields, bytes, c}, f.specs);
    if (!cached.empty()) prior = std::move(cached), calibrated = true;
  }
  if (calibrated) params.samples = 0;  // exploit at once; probes still follow the workload
  // On the device, one round on one stream replaces a sample a call over the first passes.
  const bool round = !calibrated && !tiny && r.memory == MemorySpace::Cuda && n > 1;
  if (round) params.samples = 1;
  if (prior.empty()) prior = defaultPrior(f.specs);
  if (tiny) {
    // Exploring a short stream costs more than the best choice saves: run the likeliest.
    params.samples = 0, params.measureEvery = 0, params.probeEvery = 0;
  }
  shapes_.push_back(
      std::make_unique<Shape>(Shape{r.memory, c, r.numFields, bytes, &f,
                                    ChoicePolicy(n, params, std::move(prior)), calibrated, tiny}));
  shapes_.back()->round = round;
  return *shapes_.back();
}

void AdaptiveCompactor::harvest() {
  for (auto& t : timings_) {
    if (!t->pending) continue;
    if (!t->stop.done()) continue;
    const float ms = CudaEvent::elapsedMs(t->start, t->stop);
    t->shape->policy.record(t->candidate, double(ms) * 1e6 / std::max<uint32_t>(t->count, 1));
    t->pending = false;
  }
}

void AdaptiveCompactor::compact(const Request& r) {
  validate(r);
  if (r.memory == MemorySpace::Cuda && !timings_.empty()) harvest();
  Family& f = family(r.memory);
  Shape& s = shape(r, f);
  const std::pair<int, uint32_t> layout{s.numFields, s.bytes};
  if (f.compactors.size() > 1 &&
      std::find(f.warmed.begin(), f.warmed.end(), layout) == f.warmed.end()) {
    // A candidate's first run loads its kernels (CUDA loads modules lazily) and may size its
    // scratch: run each once on a short prefix of this stream, so that no timed sample carries
    // that one-off cost. The real compaction below overwrites what these write.
    Request prefix = r;
    prefix.count = std::min<uint32_t>(r.count, kWarmUpCount);
    for (auto& c : f.compactors) c->compact(prefix);
    f.warmed.push_back(layout);
  }
  const ChoicePolicy::Pick pick = s.policy.next();
  run(r, s, pick.candidate, pick.timed);
  if (s.round) {
    // The shape's one round of exploration: every other contender timed on this same stream (a
    // later pass has another count and survival, which would rank the candidates unfairly). The
    // last run's output stands: every candidate writes a valid compaction of the stream.
    s.round = false;
    for (int e; (e = s.policy.issueExploration()) >= 0;) run(r, s, e, true);
  }
}

void AdaptiveCompactor::run(const Request& r, Shape& s, int candidate, bool timed) {
  Compactor& c = *s.family->compactors[candidate];
  lastChoice_ = s.family->specs[candidate];
  if (!timed) {
    c.compact(r);
  } else if (r.memory == MemorySpace::Host) {
    // Host candidates (and the OpenGL family) are synchronous on host memory.
    const auto t0 = std::chrono::steady_clock::now();
    c.compact(r);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    s.policy.record(candidate, ms * 1e6 / std::max<uint32_t>(r.count, 1));
  } else {
    Timing* t = nullptr;
    for (auto& x : timings_)
      if (!x->pending) t = x.get();
    if (!t && timings_.size() < kMaxPendingTimings) {
      auto fresh = std::make_unique<Timing>();
      t = fresh.get();
      timings_.push_back(std::move(fresh));
    }
    if (!t) {  // every timer still in flight: run without one rather than wait
      s.policy.untimed(candidate);
      c.compact(r);
    } else {
      t->start.record(r.stream);
      c.compact(r);
      t->stop.record(r.stream);
      t->pending = true;
      t->shape = &s;
      t->candidate = candidate;
      t->count = r.count;
    }
  }
  lastTransferMs_ = c.lastTransferMs();
}

std::vector<AdaptiveShapeStats> AdaptiveCompactor::shapeStats() const {
  std::vector<AdaptiveShapeStats> out;
  for (const auto& s : shapes_) {
    AdaptiveShapeStats st;
    st.memory = s->memory;
    st.countLog2 = s->countLog2;
    st.numFields = s->numFields;
    st.bytesPerElement = s->bytes;
    st.calls = s->policy.calls();
    st.choice = s->family->specs[s->policy.choice()];
    st.exploring = s->policy.exploring();
    st.calibrated = s->calibrated;
    st.tiny = s->tiny;
    for (int c = 0; c < s->policy.numCandidates(); ++c)
      st.candidates.push_back({s->family->specs[c], s->policy.runs(c), s->policy.samples(c),
                               s->policy.median(c), s->policy.contender(c)});
    out.push_back(std::move(st));
  }
  return out;
}

std::string AdaptiveCompactor::choiceSummary() const {
  std::string out;
  char buf[160];
  for (const AdaptiveShapeStats& st : shapeStats()) {
    std::snprintf(buf, sizeof buf, "%s n<2^%d x %d fields %u B: %s (%llu calls%s",
                  toString(st.memory), st.countLog2, st.numFields, st.bytesPerElement,
                  st.choice.c_str(), static_cast<unsigned long long>(st.calls),
                  st.exploring    ? ", exploring"
                  : st.calibrated ? ", calibrated"
                  : st.tiny       ? ", short: untimed"
                                  : "");
    out += buf;
    auto ranked = st.candidates;
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
      return (a.nsPerElement >= 0) > (b.nsPerElement >= 0) ||
             ((a.nsPerElement >= 0) == (b.nsPerElement >= 0) && a.nsPerElement < b.nsPerElement);
    });
    const char* sep = "; ";
    for (const auto& c : ranked) {
      if (c.nsPerElement < 0) continue;
      std::snprintf(buf, sizeof buf, "%s%s %.4g ns/el x%llu", sep, c.name.c_str(), c.nsPerElement,
                    static_cast<unsigned long long>(c.runs));
      out += buf;
      sep = ", ";
    }
    out += ")\n";
  }
  return out;
}

void registerAdaptiveCompactors(Registry& r) {
  const Registry* registry = &r;
  Info info{kName,
            Device::Any,
            false,
            true,
            {MemorySpace::Host, MemorySpace::Cuda},
            "per stream shape, the fastest registered primitive by measured cost (Moreira 2010's "
            "meta-algorithm): the CUDA ones on CUDA memory, cpu on host"};
  const ChoiceParams defaults;
  info.options = {{"candidates", "",
                   "primitives joined by '+', each with its options after ';' "
                   "(cub+tile-atomic:items=8;preload=0)",
                   [](const std::string&) { return true; }},
                  flagOption("gl", false),
                  flagOption("ordered", false),
                  intOption("samples", defaults.samples, 1, 100),
                  intOption("probe", defaults.probeEvery, 0, 1 << 30),
                  intOption("tiny", int(AdaptiveOptions().tiny), 0, 1 << 30),
                  flagOption("fresh", false)};
  info.picks = true;
  // The candidates are checked here, by name and options, without making any of them.
  info.resolve = [registry](Info& i, const OptionValues& v) {
    AdaptiveOptions o;
    o.gl = v.getInt("gl") == 1;
    o.ordered = v.getInt("ordered") == 1;
    if (v.given("candidates"))
      for (std::string spec : split(v.get("candidates"), '+')) {
        std::replace(spec.begin(), spec.end(), ';', ',');
        o.candidates.push_back(spec);
        Needs needs = candidateNeeds(o, MemorySpace::Host);
        needs.memory.reset();  // a named candidate may take either space
        i.gl = i.gl || registry->check(spec, needs).usesGl();
      }
    else
      i.gl = o.gl;
    // Auto takes the memory spaces it has candidates for, and is ordered when all of them are.
    i.accepts.clear();
    i.ordered = true;
    for (MemorySpace m : {MemorySpace::Host, MemorySpace::Cuda}) {
      const std::vector<std::string> specs = candidatesFor(*registry, o, m);
      for (const std::string& spec : specs)
        i.ordered = i.ordered && registry->find(Registry::nameOf(spec))->ordered;
      if (!specs.empty()) i.accepts.push_back(m);
    }
    if (i.accepts.empty()) throw std::invalid_argument("compaction 'auto': no candidate primitive");
  };
  r.add(std::move(info), [registry](OptionReader& o) {
    return std::make_unique<AdaptiveCompactor>(*registry, AdaptiveOptions::read(o));
  });
}

}  // namespace srt::compaction
