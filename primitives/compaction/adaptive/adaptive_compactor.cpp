#include "primitives/compaction/adaptive/adaptive_compactor.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

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

bool flagOption(OptionReader& o, const char* key) {
  const int v = o.getInt(key, 0);
  if (v != 0 && v != 1)
    throw std::invalid_argument(std::string("compaction 'auto': ") + key + "=" + std::to_string(v) +
                                " must be 0 or 1");
  return v == 1;
}

// Whether a registered primitive may be one of auto's candidates for streams in `m`.
bool fitsByDefault(const Info& i, const AdaptiveOptions& o, MemorySpace m) {
  return i.compacts && i.name != kName && i.accepts_(m) && (o.gl || i.device != Device::Gl) &&
         (!o.ordered || i.ordered) && (m == MemorySpace::Cuda || i.device != Device::Cuda);
}

}  // namespace

AdaptiveOptions AdaptiveOptions::read(OptionReader& o) {
  AdaptiveOptions a;
  const std::string list = o.get("candidates", "");
  a.gl = flagOption(o, "gl");
  a.ordered = flagOption(o, "ordered");
  a.policy.samples = o.getInt("samples", a.policy.samples);
  a.policy.probeEvery = o.getInt("probe", a.policy.probeEvery);
  if (a.policy.samples < 1 || a.policy.samples > 100)
    throw std::invalid_argument("compaction 'auto': samples=" + std::to_string(a.policy.samples) +
                                " must be in [1, 100]");
  if (a.policy.probeEvery < 0)
    throw std::invalid_argument("compaction 'auto': probe=" + std::to_string(a.policy.probeEvery) +
                                " must be 0 (never) or a call count");
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
  bool same(MemorySpace m, int c, int f, uint32_t b) const {
    return memory == m && countLog2 == c && numFields == f && bytes == b;
  }
};

struct AdaptiveCompactor::Timing {
  cudaEvent_t start = nullptr, stop = nullptr;
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
    if (options_.candidates.empty()) {
      for (const auto& e : registry_.entries())
        if (fitsByDefault(e.info, options_, m)) f->specs.push_back(e.info.name);
    } else {
      for (const std::string& spec : options_.candidates) {
        const std::string_view name = Registry::nameOf(spec);
        const Info* info = registry_.find(name);
        if (!info) registry_.create(spec);  // throws, listing the registered names
        if (!info->compacts || info->name == kName)
          throw std::invalid_argument("compaction 'auto': '" + info->name +
                                      "' cannot be a candidate (it does not compact, or is auto)");
        if (options_.ordered && !info->ordered)
          throw std::invalid_argument("compaction 'auto': ordered=1, but candidate '" + info->name +
                                      "' is unordered");
        if (info->accepts_(m)) f->specs.push_back(spec);
      }
    }
    for (const std::string& spec : f->specs) {
      f->infos.push_back(registry_.find(Registry::nameOf(spec)));
      ordered_ = ordered_ && f->infos.back()->ordered;
      // Options are checked now; the OpenGL family may need a context, so it is made on use.
      if (f->infos.back()->device != Device::Gl) registry_.create(spec);
    }
    any = any || !f->specs.empty();
    families_[spaceIndex(m)] = std::move(f);
  }
  if (!any) throw std::invalid_argument("compaction 'auto': no candidate primitive");
}

AdaptiveCompactor::~AdaptiveCompactor() {
  for (auto& t : timings_) {
    if (t->start) cudaEventDestroy(t->start);
    if (t->stop) cudaEventDestroy(t->stop);
  }
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
  shapes_.push_back(std::make_unique<Shape>(
      Shape{r.memory, c, r.numFields, bytes, &f,
            ChoicePolicy(n, options_.policy,
                         seed ? seed->policy.relativeCosts() : std::vector<double>())}));
  return *shapes_.back();
}

void AdaptiveCompactor::harvest() {
  for (auto& t : timings_) {
    if (!t->pending) continue;
    const cudaError_t q = cudaEventQuery(t->stop);
    if (q == cudaErrorNotReady) {
      cudaGetLastError();  // not an error: do not leave it for the next launch check
      continue;
    }
    SRT_CUDA_CHECK(q);
    float ms = 0;
    SRT_CUDA_CHECK(cudaEventElapsedTime(&ms, t->start, t->stop));
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
  Compactor& c = *f.compactors[pick.candidate];
  lastChoice_ = f.specs[pick.candidate];

  if (!pick.timed) {
    c.compact(r);
  } else if (r.memory == MemorySpace::Host) {
    // Host candidates (and the OpenGL family) are synchronous on host memory.
    const auto t0 = std::chrono::steady_clock::now();
    c.compact(r);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    s.policy.record(pick.candidate, ms * 1e6 / std::max<uint32_t>(r.count, 1));
  } else {
    Timing* t = nullptr;
    for (auto& x : timings_)
      if (!x->pending) t = x.get();
    if (!t && timings_.size() < kMaxPendingTimings) {
      auto fresh = std::make_unique<Timing>();
      SRT_CUDA_CHECK(cudaEventCreate(&fresh->start));
      SRT_CUDA_CHECK(cudaEventCreate(&fresh->stop));
      t = fresh.get();
      timings_.push_back(std::move(fresh));
    }
    if (!t) {  // every timer still in flight: run without one rather than wait
      s.policy.untimed(pick.candidate);
      c.compact(r);
    } else {
      SRT_CUDA_CHECK(cudaEventRecord(t->start, r.stream));
      c.compact(r);
      SRT_CUDA_CHECK(cudaEventRecord(t->stop, r.stream));
      t->pending = true;
      t->shape = &s;
      t->candidate = pick.candidate;
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
                  st.exploring ? ", exploring" : "");
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
  r.add({kName,
         Device::Any,
         false,
         true,
         {MemorySpace::Host, MemorySpace::Cuda},
         "per stream shape, the fastest registered primitive by measured cost (Moreira 2010's "
         "meta-algorithm): the CUDA ones on CUDA memory, cpu on host "
         "[candidates=a+b,gl=0,ordered=0,samples=2,probe=64]"},
        [registry](OptionReader& o) {
          return std::make_unique<AdaptiveCompactor>(*registry, AdaptiveOptions::read(o));
        });
}

}  // namespace srt::compaction
