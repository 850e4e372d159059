// streamrt-bench-reduction: the paper's scenarios (one segment; random sizes 10-50; all of size
// 3) plus size-1 segments, at N = m x 2^20, for every registered reduction of float sum (or of
// Aabb union, --type aabb: the kd-tree's per-node bounds) and the CUB baselines, in one run. Per
// entry: median time over repeats (CUDA events, after warm-up), effective GB/s (the bytes the
// variant must read and write with its segment layout), % of a device-to-device copy timed in the
// same run (copy GB/s counts read + write), and the speed-up over cub-segmented and
// cub-reduce-by-key. Prints a table, writes JSON.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>

#include "primitives/common/memory.h"
#include "primitives/reduction/reduction.h"
#include "primitives/reduction/scenarios.h"

using namespace srt;
using namespace srt::reduction;

namespace {

struct Timer {
  cudaEvent_t a, b;
  Timer() {
    SRT_CUDA_CHECK(cudaEventCreate(&a));
    SRT_CUDA_CHECK(cudaEventCreate(&b));
  }
  ~Timer() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  template <typename F>
  double medianMs(F&& f, int warmup, int repeats) {
    for (int i = 0; i < warmup; ++i) f();
    std::vector<double> ms;
    for (int i = 0; i < repeats; ++i) {
      SRT_CUDA_CHECK(cudaEventRecord(a));
      f();
      SRT_CUDA_CHECK(cudaEventRecord(b));
      SRT_CUDA_CHECK(cudaEventSynchronize(b));
      float t = 0;
      SRT_CUDA_CHECK(cudaEventElapsedTime(&t, a, b));
      ms.push_back(t);
    }
    std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
    return ms[ms.size() / 2];
  }
};

std::vector<int> parseSizes(const std::string& s) {
  std::vector<int> out;
  size_t at = 0;
  while (at < s.size()) {
    const size_t comma = s.find(',', at);
    const std::string item =
        s.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    const size_t dash = item.find('-');
    try {
      const int lo = std::stoi(item.substr(0, dash));
      const int hi = dash == std::string::npos ? lo : std::stoi(item.substr(dash + 1));
      if (lo < 1 || hi < lo || hi > 64) throw std::out_of_range("range");
      for (int m = lo; m <= hi; ++m) out.push_back(m);
    } catch (const std::exception&) {
      throw std::invalid_argument("--sizes: '" + item + "' is not m or m-n with 1 <= m <= n <= 64");
    }
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

struct Options {
  std::vector<int> ms;
  int repeats = 20, warmup = 3;
  bool unsegmented = true;
  std::string only, device;
};

template <typename T>
void fillRandom(std::vector<T>& v, int seed);
template <>
void fillRandom<float>(std::vector<float>& v, int seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  for (float& x : v) x = u(rng);
}
template <>
void fillRandom<Aabb>(std::vector<Aabb>& v, int seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-100.f, 100.f);
  for (Aabb& b : v)
    for (int k = 0; k < 3; ++k) {
      b.lo[k] = u(rng);
      b.hi[k] = b.lo[k] + 1.f;
    }
}

// The paper's scenarios plus size-1 segments.
struct NamedScenario {
  std::string name;
  Scenario s;
  uint32_t size;
};

// Everything one N's entries share: the input, the copy it is measured against, the results.
template <typename T, typename Op>
struct SizeRun {
  const Registry<T, Op>& registry;
  const Options& opt;
  Timer& timer;
  int m;
  uint32_t n;
  const Buffer<T>& in;
  double copyMs, copyGBs;
  nlohmann::json& results;

  // Appends one JSON entry and keeps its time for the table's speed-up columns.
  void record(const std::string& scenario, const Info& info, double ms, double bytes,
              std::map<std::string, double>& times) const {
    times[info.name] = ms;
    const double gbs = bytes / (ms * 1e6);
    results.push_back({{"n", n},
                       {"m", m},
                       {"scenario", scenario},
                       {"variant", info.name},
                       {"type", sizeof(T) == 4 ? "float" : "aabb"},
                       {"segmented", info.segmented},
                       {"ms", ms},
                       {"bytes", bytes},
                       {"gbs", gbs},
                       {"copy_pct", 100.0 * gbs / copyGBs},
                       {"copy_ms", copyMs},
                       {"device", opt.device}});
  }
};

template <typename T>
std::vector<T> randomValues(uint32_t n, int seed) {
  std::vector<T> host(n);
  fillRandom(host, seed);
  return host;
}

template <typename T>
double timeCopy(Timer& timer, const Buffer<T>& in, Buffer<T>& copyDst, const Options& opt) {
  return timer.medianMs(
      [&] {
        SRT_CUDA_CHECK(cudaMemcpyAsync(copyDst.data(), in.data(), in.size() * sizeof(T),
                                       cudaMemcpyDeviceToDevice));
      },
      opt.warmup, opt.repeats);
}

// Every unsegmented reduction (only the one asked for, plus cub) over the whole input.
template <typename T, typename Op>
void benchUnsegmented(const SizeRun<T, Op>& run) {
  const uint32_t n = run.n;
  const std::string& only = run.opt.only;
  Buffer<T> out(MemorySpace::Cuda, 1);
  std::map<std::string, double> times;
  std::printf("\n  unsegmented             ms      GB/s   %%copy   x cub\n");
  for (const auto& e : run.registry.entries()) {
    if (e.info.segmented || (!only.empty() && e.info.name != only && e.info.name != "cub"))
      continue;
    auto red = e.factory();
    red->reserve(n, 1);
    Request<T> r;
    r.in = run.in.data();
    r.count = n;
    r.out = out.data();
    const double ms = run.timer.medianMs([&] { red->reduce(r); }, run.opt.warmup, run.opt.repeats);
    run.record("unsegmented", e.info, ms, double(n) * sizeof(T), times);
  }
  for (auto& [name, t] : times)
    std::printf("  %-20s %7.3f %8.0f %6.1f %7.2f\n", name.c_str(), t,
                double(n) * sizeof(T) / (t * 1e6),
                100.0 * double(n) * sizeof(T) / (t * 1e6) / run.copyGBs, times["cub"] / t);
}

// Every segmented reduction (only the one asked for, plus the cub ones) on one scenario.
template <typename T, typename Op>
void benchScenario(const SizeRun<T, Op>& run, const NamedScenario& sc) {
  const uint32_t n = run.n;
  const std::string& only = run.opt.only;
  const Segments seg = makeSegments(sc.s, n, sc.size, 7);
  Buffer<uint32_t> owners(MemorySpace::Cuda, seg.owners);
  Buffer<uint32_t> offsets(MemorySpace::Cuda, seg.offsets);
  const uint32_t S = seg.numSegments();
  Buffer<T> out(MemorySpace::Cuda, S);
  std::map<std::string, double> times;
  std::map<std::string, double> bytesOf;
  for (const auto& e : run.registry.entries()) {
    if (!e.info.segmented) continue;
    if (!only.empty() && e.info.name != only && e.info.name.rfind("cub", 0) != 0) continue;
    auto red = e.factory();
    red->reserve(n, S);
    Request<T> r;
    r.in = run.in.data();
    r.count = n;
    r.out = out.data();
    r.numSegments = S;
    r.owners = owners.data();
    r.offsets = offsets.data();
    const double layoutBytes = e.info.layout == Layout::Owners ? 4.0 * n : 4.0 * (S + 1);
    const double bytes = double(n) * sizeof(T) + layoutBytes + double(S) * sizeof(T);
    const double ms = run.timer.medianMs([&] { red->reduce(r); }, run.opt.warmup, run.opt.repeats);
    bytesOf[e.info.name] = bytes;
    run.record(sc.name, e.info, ms, bytes, times);
  }
  std::printf("\n  %-14s (%u segments)   ms      GB/s   %%copy  x cub-seg  x cub-rbk\n",
              sc.name.c_str(), S);
  for (auto& [name, t] : times) {
    const double gbs = bytesOf[name] / (t * 1e6);
    std::printf("  %-20s %8.3f %8.0f %6.1f %9.2f %9.2f\n", name.c_str(), t, gbs,
                100.0 * gbs / run.copyGBs, times["cub-segmented"] / t,
                times["cub-reduce-by-key"] / t);
  }
}

template <typename T, typename Op>
void runBench(const Options& opt, nlohmann::json& results) {
  const Registry<T, Op>& registry = Registry<T, Op>::global();
  Timer timer;
  const std::vector<NamedScenario> scenarios = {{"one segment", Scenario::OneSegment, 0},
                                                {"random 10-50", Scenario::Random10To50, 0},
                                                {"size 3", Scenario::Fixed, 3},
                                                {"size 1", Scenario::Fixed, 1}};
  for (int m : opt.ms) {
    const uint32_t n = uint32_t(m) << 20;
    Buffer<T> in(MemorySpace::Cuda, n);
    in.upload(randomValues<T>(n, m));
    Buffer<T> copyDst(MemorySpace::Cuda, n);
    const double copyMs = timeCopy(timer, in, copyDst, opt);
    const double copyGBs = 2.0 * n * sizeof(T) / (copyMs * 1e6);
    std::printf(
        "\nN = %d x 2^20 = %u: device-to-device copy of %zu MB: %.3f ms, %.0f GB/s "
        "(read + write)\n",
        m, n, size_t(n) * sizeof(T) >> 20, copyMs, copyGBs);
    const SizeRun<T, Op> run{registry, opt, timer, m, n, in, copyMs, copyGBs, results};
    if (opt.unsegmented) benchUnsegmented(run);
    for (const NamedScenario& sc : scenarios) benchScenario(run, sc);
  }
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Reduction and segmented-reduction benchmark (Martin et al. 2012 scenarios)"};
  std::string sizes = "16,24,31", json = "bench_reduction.json", type = "float";
  Options opt;
  app.add_option("--sizes", sizes, "N = m x 2^20 for each m: list and ranges, e.g. 16-31");
  app.add_option("--type", type, "value type and operator: float (sum) or aabb (union)")
      ->check(CLI::IsMember({"float", "aabb"}));
  app.add_option("--repeats", opt.repeats, "timed repeats per entry (median reported)");
  app.add_option("--warmup", opt.warmup, "untimed runs before timing");
  app.add_option("--json", json, "JSON output file");
  app.add_option("--only", opt.only, "run only this variant name (plus the baselines)");
  app.add_flag("!--no-unsegmented", opt.unsegmented, "skip the unsegmented reductions");
  CLI11_PARSE(app, argc, argv);

  try {
    opt.ms = parseSizes(sizes);
    if (opt.repeats < 1 || opt.warmup < 0)
      throw std::invalid_argument("--repeats must be >= 1 and --warmup >= 0");
    if (!cudaDeviceAvailable()) {
      std::fprintf(stderr, "no CUDA device: %s\n", cudaDeviceDescription().c_str());
      return 1;
    }
    opt.device = cudaDeviceDescription();
    std::printf("device: %s\nvalue: %s, repeats %d (median), warm-up %d\n", opt.device.c_str(),
                type == "float" ? "float, operator sum" : "Aabb (24 B), operator union",
                opt.repeats, opt.warmup);
    nlohmann::json results = nlohmann::json::array();
    if (type == "float")
      runBench<float, Sum<float>>(opt, results);
    else
      runBench<Aabb, AabbUnion>(opt, results);
    std::ofstream(json) << nlohmann::json{{"device", opt.device}, {"results", results}}.dump(1);
    std::printf("\nwrote %s\n", json.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "streamrt-bench-reduction: %s\n", e.what());
    return 1;
  }
  return 0;
}
