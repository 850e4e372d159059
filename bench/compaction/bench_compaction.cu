// streamrt-bench-compaction: sweeps stream length, keep ratio, flag pattern and record size over
// every registered CUDA compaction primitive, cub::DeviceSelect::Flagged and ::If called directly,
// and a device-to-device copy of the same bytes, all timed in the same run.
//
// Timing: CUDA events around each call, warm-up first, the median of the repeats. Inputs rotate
// through enough buffer sets that each call reads data not in L2 (sets * input >= 4 * L2).
// Bytes that must move: read the flags and every record, write the survivors (If: no flags).
// The copy moves that many bytes in all (it reads and writes half of them each).
// Each timed method's output is checked once, on freshly generated data.
#include <CLI/CLI.hpp>
#include <cub/device/device_select.cuh>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>

#include "bench/compaction/bench_verify.h"
#include "primitives/common/memory.h"
#include "primitives/compaction/compaction.h"
#include "primitives/compaction/cuda/test_streams.h"

namespace srt::compaction::bench {
namespace {

using testing::FlagPattern;
using testing::FlagSpec;

template <int Words>
struct alignas(Words % 4 == 0 ? 16 : 4) Record {
  uint32_t w[Words];
};

// cub::DeviceSelect::If's predicate: the flag recomputed from the key (key = index ^ mask).
struct KeyPredicate {
  FlagPattern pattern;
  uint64_t threshold;
  uint32_t seed, mask;
  __host__ __device__ bool operator()(uint32_t key) const {
    return testing::flagAt(pattern, threshold, seed, false, key ^ mask) != 0;
  }
};

struct Config {
  uint32_t n;
  uint32_t recordBytes;
  double ratio;
  FlagPattern pattern;
};

struct Row {
  Config cfg;
  std::string method;
  bool ordered;
  double ms, bytes, kept;
  std::string check;
};

// One config's buffers: `sets` copies of flags, records and outputs, plus a copy arena.
struct Arena {
  size_t sets = 1, recStride = 0, keepStride = 0, copyBytes = 0;
  RawBuffer keep, src, dst, copySrc, copyDst;
  Buffer<uint32_t> numKept{MemorySpace::Cuda, 1};
  uint8_t* keepAt(size_t s) const { return static_cast<uint8_t*>(keep.data()) + s * keepStride; }
  char* srcAt(size_t s) const { return static_cast<char*>(src.data()) + s * recStride; }
  char* dstAt(size_t s) const { return static_cast<char*>(dst.data()) + s * recStride; }
};

size_t roundUp(size_t x, size_t a) {
  return (x + a - 1) / a * a;
}

class Bench {
 public:
  int warmup = 3, repeats = 30;
  double l2Multiple = 4, maxGiB = 40;
  std::vector<std::string> primitives;

  void run(const Config& cfg, std::vector<Row>& rows) {
    const size_t n = cfg.n, R = cfg.recordBytes;
    const double keptEstimate = cfg.ratio * n;
    const double flaggedBytes = n + n * R + keptEstimate * R;
    Arena a;
    if (!allocate(a, cfg, flaggedBytes)) return;
    std::vector<Method> methods;
    std::vector<std::unique_ptr<Compactor>> keepAlive;
    addPrimitives(methods, keepAlive, a, cfg, flaggedBytes);
    addCubForRecordSize(methods, a, cfg, flaggedBytes);
    addCopy(methods, a);
    for (size_t m = 0; m < methods.size(); ++m)
      rows.push_back(measure(methods[m], m, a, cfg, keptEstimate));
  }

 private:
  struct Method {
    std::string name;
    bool ordered;
    double bytes;
    std::function<void(size_t set)> call;
  };

  // Sizes the arena's sets and fills them; false (with a note) where they would pass --max-gib.
  bool allocate(Arena& a, const Config& cfg, double flaggedBytes) const {
    const size_t n = cfg.n, R = cfg.recordBytes;
    a.keepStride = roundUp(n, 256);
    a.recStride = roundUp(n * R, 256);
    a.copyBytes = roundUp(size_t(flaggedBytes / 2), 256);
    int l2 = 0;
    SRT_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    a.sets = std::max<size_t>(1, size_t(std::ceil(l2Multiple * l2 / double(n * (1 + R)))));
    const double setBytes = a.keepStride + 2.0 * a.recStride + 2.0 * a.copyBytes;
    if (a.sets * setBytes > maxGiB * (1ull << 30)) {
      std::fprintf(stderr, "skipped n=%zu record=%zu: %.1f GiB exceeds --max-gib\n", n, R,
                   a.sets * setBytes / (1ull << 30));
      return false;
    }
    a.keep = RawBuffer(MemorySpace::Cuda, a.sets * a.keepStride);
    a.src = RawBuffer(MemorySpace::Cuda, a.sets * a.recStride);
    a.dst = RawBuffer(MemorySpace::Cuda, a.sets * a.recStride);
    a.copySrc = RawBuffer(MemorySpace::Cuda, a.sets * a.copyBytes);
    a.copyDst = RawBuffer(MemorySpace::Cuda, a.sets * a.copyBytes);
    for (size_t s = 0; s < a.sets; ++s) fill(a, cfg, s, seedOf(s));
    SRT_CUDA_CHECK(cudaMemset(a.copySrc.data(), 1, a.copySrc.bytes()));
    return true;
  }

  // One method per registered primitive asked for; keepAlive owns the compactors they call.
  void addPrimitives(std::vector<Method>& methods,
                     std::vector<std::unique_ptr<Compactor>>& keepAlive, Arena& a,
                     const Config& cfg, double flaggedBytes) {
    for (const std::string& spec : primitives) {
      const Info* info = Registry::global().find(Registry::nameOf(spec));
      auto c = Registry::global().create(spec);
      c->reserve(cfg.n);
      Compactor* cp = c.get();
      keepAlive.push_back(std::move(c));
      methods.push_back({spec, info->ordered, flaggedBytes, [this, cp, &a, cfg](size_t s) {
                           Field f{a.srcAt(s), a.dstAt(s), cfg.recordBytes};
                           Request r;
                           r.keep = a.keepAt(s), r.fields = &f, r.numFields = 1, r.count = cfg.n;
                           r.numKept = a.numKept.data(), r.memory = MemorySpace::Cuda;
                           cp->compact(r);
                         }});
    }
  }

  // CUB's selects are typed: one record type per record size the bench takes.
  void addCubForRecordSize(std::vector<Method>& methods, Arena& a, const Config& cfg,
                           double flaggedBytes) {
    switch (cfg.recordBytes) {
      case 4:
        addCub<Record<1>>(methods, a, cfg, flaggedBytes);
        break;
      case 32:
        addCub<Record<8>>(methods, a, cfg, flaggedBytes);
        break;
      case 64:
        addCub<Record<16>>(methods, a, cfg, flaggedBytes);
        break;
      default:
        throw std::invalid_argument("--records takes 4, 32 or 64");
    }
  }

  static void addCopy(std::vector<Method>& methods, Arena& a) {
    methods.push_back({"memcpy-d2d", true, 2.0 * a.copyBytes, [&a](size_t s) {
                         SRT_CUDA_CHECK(
                             cudaMemcpyAsync(static_cast<char*>(a.copyDst.data()) + s * a.copyBytes,
                                             static_cast<char*>(a.copySrc.data()) + s * a.copyBytes,
                                             a.copyBytes, cudaMemcpyDeviceToDevice));
                       }});
  }

  // The method's row: checked once (all but the copy), then timed over every set.
  Row measure(const Method& method, size_t index, Arena& a, const Config& cfg,
              double keptEstimate) {
    const size_t n = cfg.n, R = cfg.recordBytes;
    Row row{cfg, method.name, method.ordered, 0, method.bytes, keptEstimate, "-"};
    if (method.name != "memcpy-d2d") {
      // Fresh data in set 0, poisoned output, one call, checked on the host.
      const uint32_t seed = 0x51ed270bu + uint32_t(index) * 7919u + cfg.n;
      fill(a, cfg, 0, seed);
      set0Seed_ = seed;
      SRT_CUDA_CHECK(cudaMemset(a.dst.data(), 0xab, a.recStride));
      method.call(0);
      SRT_CUDA_CHECK(cudaDeviceSynchronize());
      row.check = check(a, cfg, seed, method.ordered);
      row.kept = a.numKept.download(1)[0];
      if (method.name == "cub-if")
        row.bytes = double(n) * R + row.kept * R;
      else
        row.bytes = double(n) + double(n) * R + row.kept * R;
      fill(a, cfg, 0, seedOf(0));
      set0Seed_ = seedOf(0);
    }
    row.ms = time(method.call, a.sets);
    return row;
  }

  static uint32_t seedOf(size_t set) { return 1234u + uint32_t(set); }

  static void fill(Arena& a, const Config& cfg, size_t s, uint32_t seed) {
    testing::fillFlags(a.keepAt(s), cfg.n, FlagSpec{cfg.pattern, cfg.ratio, seed, false});
    testing::fillField(a.srcAt(s), cfg.n, cfg.recordBytes, 0, seed);
  }

  static std::string check(const Arena& a, const Config& cfg, uint32_t seed, bool ordered) {
    std::vector<uint8_t> flags(cfg.n);
    SRT_CUDA_CHECK(cudaMemcpy(flags.data(), a.keepAt(0), cfg.n, cudaMemcpyDeviceToHost));
    const uint32_t kept = a.numKept.download(1)[0];
    if (kept > cfg.n) return "FAIL numKept " + std::to_string(kept) + " > n";
    const uint32_t words = cfg.recordBytes / 4;
    std::vector<uint32_t> out(size_t(kept) * words);
    SRT_CUDA_CHECK(cudaMemcpy(out.data(), a.dstAt(0), out.size() * 4, cudaMemcpyDeviceToHost));
    const std::string err = verifyOutput(flags, out, kept, words, seed, ordered);
    return err.empty() ? "ok" : "FAIL " + err;
  }

  template <typename T, typename Methods>
  void addCub(Methods& methods, Arena& a, const Config& cfg, double flaggedBytes) {
    size_t bytes = 0;
    SRT_CUDA_CHECK(cub::DeviceSelect::Flagged(
        nullptr, bytes, static_cast<const T*>(nullptr), static_cast<const uint8_t*>(nullptr),
        static_cast<T*>(nullptr), static_cast<uint32_t*>(nullptr), int64_t(cfg.n)));
    size_t ifBytes = 0;
    SRT_CUDA_CHECK(cub::DeviceSelect::If(
        nullptr, ifBytes, static_cast<const uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr),
        static_cast<uint32_t*>(nullptr), int64_t(cfg.n), KeyPredicate{}));
    cubTemp_ = RawBuffer(MemorySpace::Cuda, std::max({bytes, ifBytes, size_t(16)}));
    methods.push_back({"cub-flagged", true, flaggedBytes, [this, &a, cfg](size_t s) {
                         size_t b = cubTemp_.bytes();
                         SRT_CUDA_CHECK(cub::DeviceSelect::Flagged(
                             cubTemp_.data(), b, reinterpret_cast<const T*>(a.srcAt(s)),
                             a.keepAt(s), reinterpret_cast<T*>(a.dstAt(s)), a.numKept.data(),
                             int64_t(cfg.n)));
                       }});
    if (cfg.recordBytes != 4) return;
    methods.push_back({"cub-if", true, flaggedBytes - cfg.n, [this, &a, cfg](size_t s) {
                         // Set s was filled with seed seedOf(s), except set 0 while checking:
                         // the predicate's seed follows the key mask stored with the data.
                         size_t b = cubTemp_.bytes();
                         const uint32_t seed = s == 0 ? set0Seed_ : seedOf(s);
                         const FlagSpec spec{cfg.pattern, cfg.ratio, seed, false};
                         KeyPredicate pred{cfg.pattern, testing::flagThreshold(spec), seed,
                                           testing::fieldMask(0, seed)};
                         SRT_CUDA_CHECK(cub::DeviceSelect::If(
                             cubTemp_.data(), b, reinterpret_cast<const uint32_t*>(a.srcAt(s)),
                             reinterpret_cast<uint32_t*>(a.dstAt(s)), a.numKept.data(),
                             int64_t(cfg.n), pred));
                       }});
  }

  double time(const std::function<void(size_t)>& call, size_t sets) {
    for (int i = 0; i < warmup; ++i) call(i % sets);
    std::vector<cudaEvent_t> ev(2 * repeats);
    for (auto& e : ev) SRT_CUDA_CHECK(cudaEventCreate(&e));
    for (int i = 0; i < repeats; ++i) {
      SRT_CUDA_CHECK(cudaEventRecord(ev[2 * i]));
      call((warmup + i) % sets);
      SRT_CUDA_CHECK(cudaEventRecord(ev[2 * i + 1]));
    }
    SRT_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> ms(repeats);
    for (int i = 0; i < repeats; ++i)
      SRT_CUDA_CHECK(cudaEventElapsedTime(&ms[i], ev[2 * i], ev[2 * i + 1]));
    for (auto& e : ev) SRT_CUDA_CHECK(cudaEventDestroy(e));
    std::nth_element(ms.begin(), ms.begin() + repeats / 2, ms.end());
    return ms[repeats / 2];
  }

 public:
  uint32_t set0Seed_ = seedOf(0);

 private:
  RawBuffer cubTemp_;
};

// What the sweep covers and where it goes (the command line, less the Bench's own settings).
struct Sweep {
  std::vector<int> logSizes{16, 18, 20, 22, 24, 26, 28};
  std::vector<double> ratios{0.6};
  std::vector<std::string> patterns{"uniform"};
  std::vector<int> records{4};
  std::vector<std::string> primitives;
  std::string jsonPath, preset;
};

void addOptions(CLI::App& app, Sweep& sweep, Bench& bench) {
  app.add_option("--log-sizes", sweep.logSizes, "stream lengths as powers of two (16..28)")
      ->delimiter(',');
  app.add_option("--ratios", sweep.ratios, "keep ratios in [0, 1]")->delimiter(',');
  app.add_option("--patterns", sweep.patterns, "flag patterns: uniform, runs, blobs")
      ->delimiter(',');
  app.add_option("--records", sweep.records, "record sizes in bytes: 4, 32, 64")->delimiter(',');
  app.add_option("--primitives", sweep.primitives,
                 "registered primitives (with options), default: every CUDA one")
      ->delimiter(',');
  app.add_option("--preset", sweep.preset,
                 "'issue': u32 at 2^20, 2^24, 2^26, 2^28 60% kept, and 32-byte records at 2^21 "
                 "50% kept (overrides sizes, ratios, records)");
  app.add_option("--repeats", bench.repeats, "timed calls per method (median reported)");
  app.add_option("--warmup", bench.warmup, "untimed calls first");
  app.add_option("--l2-multiple", bench.l2Multiple, "rotate inputs over this many L2 sizes");
  app.add_option("--max-gib", bench.maxGiB, "skip configurations needing more device memory");
  app.add_option("--json", sweep.jsonPath, "write the rows as JSON");
}

std::vector<std::string> everyCudaPrimitive() {
  std::vector<std::string> names;
  for (const auto& e : Registry::global().entries())
    if (e.info.accepts_(srt::MemorySpace::Cuda) && e.info.compacts) names.push_back(e.info.name);
  return names;
}

std::vector<Config> configsOf(const Sweep& sweep) {
  std::vector<Config> configs;
  if (sweep.preset == "issue") {
    for (int lg : {20, 24, 26, 28}) configs.push_back({1u << lg, 4, 0.6, FlagPattern::Uniform});
    configs.push_back({1u << 21, 32, 0.5, FlagPattern::Uniform});
  } else if (!sweep.preset.empty()) {
    throw std::invalid_argument("unknown --preset '" + sweep.preset + "' (known: issue)");
  } else {
    for (int R : sweep.records)
      for (const std::string& p : sweep.patterns)
        for (double ratio : sweep.ratios)
          for (int lg : sweep.logSizes) {
            if (lg < 1 || lg > 31) throw std::invalid_argument("--log-sizes out of range");
            if (ratio < 0 || ratio > 1) throw std::invalid_argument("--ratios out of [0,1]");
            configs.push_back({1u << lg, uint32_t(R), ratio, testing::parseFlagPattern(p)});
          }
  }
  return configs;
}

// The baselines' times in one config's rows (0 where a baseline did not run).
struct BaselineMs {
  double copy = 0, flagged = 0, cubIf = 0;
};

BaselineMs baselinesOf(const std::vector<Row>& rows) {
  BaselineMs b;
  for (const Row& r : rows) {
    if (r.method == "memcpy-d2d") b.copy = r.ms;
    if (r.method == "cub-flagged") b.flagged = r.ms;
    if (r.method == "cub-if") b.cubIf = r.ms;
  }
  return b;
}

// Prints one config's rows against its baselines and appends them to the JSON.
void reportRows(const Config& cfg, const std::vector<Row>& rows, nlohmann::json& json) {
  const BaselineMs base = baselinesOf(rows);
  for (const Row& r : rows) {
    const double gbs = r.bytes / (r.ms * 1e-3) / 1e9;
    const double pctCopy = 100.0 * base.copy / r.ms;
    const double xFlag = base.flagged / r.ms, xIf = base.cubIf > 0 ? base.cubIf / r.ms : 0;
    char xIfText[16] = "-";
    if (base.cubIf > 0) std::snprintf(xIfText, sizeof xIfText, "%.2f", xIf);
    std::printf("2^%-7.2f %4u %5.3f %-8s %-18s %3s %10.1f %8.1f %8.0f %6.1f%% %7.2f %7s %s\n",
                std::log2(double(cfg.n)), cfg.recordBytes, cfg.ratio,
                testing::toString(cfg.pattern), r.method.c_str(), r.ordered ? "yes" : "no",
                r.ms * 1e3, r.bytes / 1e6, gbs, pctCopy, xFlag, xIfText, r.check.c_str());
    json.push_back({{"n", cfg.n},
                    {"record_bytes", cfg.recordBytes},
                    {"ratio", cfg.ratio},
                    {"pattern", testing::toString(cfg.pattern)},
                    {"method", r.method},
                    {"ordered", r.ordered},
                    {"median_ms", r.ms},
                    {"kept", r.kept},
                    {"bytes", r.bytes},
                    {"gb_per_s", gbs},
                    {"percent_of_copy", pctCopy},
                    {"x_cub_flagged", xFlag},
                    {"x_cub_if", base.cubIf > 0 ? nlohmann::json(xIf) : nlohmann::json()},
                    {"check", r.check}});
  }
}

void writeJson(const std::string& path, const Bench& bench, const nlohmann::json& rows) {
  if (path.empty()) return;
  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot write --json file '" + path + "'");
  f << nlohmann::json{{"device", srt::cudaDeviceDescription()},
                      {"repeats", bench.repeats},
                      {"warmup", bench.warmup},
                      {"rows", rows}}
           .dump(1)
    << "\n";
}

void runSweep(const Sweep& sweep, Bench& bench) {
  const std::vector<Config> configs = configsOf(sweep);
  std::printf("device: %s\n", srt::cudaDeviceDescription().c_str());
  std::printf("%-9s %4s %5s %-8s %-18s %3s %10s %8s %8s %7s %7s %7s %s\n", "n", "rec", "ratio",
              "pattern", "method", "ord", "time_us", "MB", "GB/s", "%copy", "xFlag", "xIf",
              "check");
  nlohmann::json json = nlohmann::json::array();
  for (const Config& cfg : configs) {
    std::vector<Row> rows;
    bench.run(cfg, rows);
    reportRows(cfg, rows, json);
    std::fflush(stdout);
  }
  writeJson(sweep.jsonPath, bench, json);
}

}  // namespace
}  // namespace srt::compaction::bench

int main(int argc, char** argv) {
  using namespace srt::compaction::bench;
  CLI::App app{"streamrt-bench-compaction: CUDA stream compaction against CUB and a copy"};
  Sweep sweep;
  Bench bench;
  addOptions(app, sweep, bench);
  CLI11_PARSE(app, argc, argv);

  try {
    if (!srt::cudaDeviceAvailable()) {
      std::fprintf(stderr, "no CUDA device: %s\n", srt::cudaDeviceDescription().c_str());
      return 2;
    }
    bench.primitives = sweep.primitives.empty() ? everyCudaPrimitive() : sweep.primitives;
    runSweep(sweep, bench);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
