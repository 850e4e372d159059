// streamrt-bench-gl: the OpenGL compaction family measured the way Roger et al. 2007 report it.
// Table I (speed-up of the block algorithm over Horn, Horn+Blelloch, geometry-shader packing and
// CUB), the keep-ratio sweep (Fig. 9), the block-size sweep with time per step (Figs. 10, 11).
// GL times come from GL timer queries (the passes alone, "no copies"); "with copies" is the wall
// time of compact() including uploads/read-backs or the CUDA-GL interop copies. CUB is timed with
// CUDA events, next to a device-to-device copy of the same bytes. Medians of repeats after a
// warm-up. Prints tables and writes JSON.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>

#include "primitives/common/memory.h"
#include "primitives/compaction/compaction.h"
#include "primitives/compaction/gl/gl_compactors.h"
#include "primitives/gl/gl_context.h"

using namespace srt;
using namespace srt::compaction;
using Json = nlohmann::json;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Stream {
  uint32_t n = 0;
  std::vector<uint8_t> keep;
  std::vector<uint32_t> src, dst;
  Buffer<uint8_t> dKeep;
  Buffer<uint32_t> dSrc, dDst, dCount;
  uint32_t hostCount = 0;
};

Stream makeStream(uint32_t n, double ratio, uint32_t bytes, bool cuda, uint32_t seed) {
  Stream s;
  s.n = n;
  std::mt19937 rng(seed);
  std::bernoulli_distribution d(ratio);
  s.keep.resize(n);
  for (auto& k : s.keep) k = d(rng);
  const size_t words = size_t(n) * bytes / 4;
  s.src.resize(words);
  for (size_t i = 0; i < words; ++i) s.src[i] = uint32_t(i);
  s.dst.resize(words);
  if (cuda) {
    s.dKeep = Buffer<uint8_t>(MemorySpace::Cuda, s.keep);
    s.dSrc = Buffer<uint32_t>(MemorySpace::Cuda, s.src);
    s.dDst = Buffer<uint32_t>(MemorySpace::Cuda, words);
    s.dCount = Buffer<uint32_t>(MemorySpace::Cuda, 1);
  }
  return s;
}

struct Timing {
  double glMs = 0;        // GL passes (timer queries), without the copies
  double totalMs = 0;     // compact() wall time, with the copies
  double transferMs = 0;  // lastTransferMs()
  std::vector<std::pair<std::string, double>> steps;
};

Timing timeOne(Compactor& c, Stream& s, uint32_t bytes, bool cuda, int repeats) {
  Field f{cuda ? (const void*)s.dSrc.data() : s.src.data(),
          cuda ? (void*)s.dDst.data() : s.dst.data(), bytes};
  Request r;
  r.keep = cuda ? s.dKeep.data() : s.keep.data();
  r.fields = &f;
  r.numFields = 1;
  r.count = s.n;
  r.numKept = cuda ? s.dCount.data() : &s.hostCount;
  r.memory = cuda ? MemorySpace::Cuda : MemorySpace::Host;
  auto* gl = dynamic_cast<srt::compaction::gl::GlCompactor*>(&c);
  std::vector<double> g, t, x;
  std::map<std::string, std::vector<double>> steps;
  std::vector<std::string> order;
  c.reserve(s.n);
  for (int i = -1; i < repeats; ++i) {
    double ms = 0;
    if (cuda) {
      cudaEvent_t a, b;
      SRT_CUDA_CHECK(cudaEventCreate(&a));
      SRT_CUDA_CHECK(cudaEventCreate(&b));
      SRT_CUDA_CHECK(cudaEventRecord(a));
      const auto t0 = std::chrono::steady_clock::now();
      c.compact(r);
      SRT_CUDA_CHECK(cudaEventRecord(b));
      SRT_CUDA_CHECK(cudaEventSynchronize(b));
      float evMs = 0;
      SRT_CUDA_CHECK(cudaEventElapsedTime(&evMs, a, b));
      // GL compactors are synchronous: their wall time is the honest total; CUB's is the events'.
      ms = gl ? std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count()
              : evMs;
      cudaEventDestroy(a);
      cudaEventDestroy(b);
    } else {
      const auto t0 = std::chrono::steady_clock::now();
      c.compact(r);
      ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
    if (i < 0) continue;  // warm-up
    t.push_back(ms);
    x.push_back(c.lastTransferMs());
    double passes = ms;
    if (gl) {
      passes = 0;
      for (const auto& [name, stepMs] : gl->lastStepTimes()) {
        if (!steps.count(name)) order.push_back(name);
        steps[name].push_back(stepMs);
        if (name != "upload" && name != "readback") passes += stepMs;
      }
    }
    g.push_back(passes);
  }
  Timing out{median(g), median(t), median(x), {}};
  for (const auto& name : order) out.steps.emplace_back(name, median(steps[name]));
  return out;
}

double copyMs(uint32_t n, uint32_t bytes, int repeats) {
  Buffer<uint8_t> a(MemorySpace::Cuda, size_t(n) * bytes), b(MemorySpace::Cuda, size_t(n) * bytes);
  std::vector<double> v;
  for (int i = -1; i < repeats; ++i) {
    cudaEvent_t e0, e1;
    SRT_CUDA_CHECK(cudaEventCreate(&e0));
    SRT_CUDA_CHECK(cudaEventCreate(&e1));
    SRT_CUDA_CHECK(cudaEventRecord(e0));
    SRT_CUDA_CHECK(
        cudaMemcpyAsync(b.data(), a.data(), size_t(n) * bytes, cudaMemcpyDeviceToDevice));
    SRT_CUDA_CHECK(cudaEventRecord(e1));
    SRT_CUDA_CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    SRT_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    if (i >= 0) v.push_back(ms);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
  }
  return median(v);
}

std::string sizeName(uint32_t n) {
  return n >= (1u << 20) ? std::to_string(n >> 20) + "M" : std::to_string(n >> 10) + "K";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("OpenGL stream compaction benchmark (Roger 2007, Table I and Figs. 9-11)");
  std::vector<uint32_t> sizes{1u << 18, 1u << 20, 1u << 22, 1u << 24};
  double ratio = 0.6;
  uint32_t sweepN = 1u << 22, bytes = 4;
  int repeats = 7;
  std::string jsonPath = "bench_gl.json";
  bool quick = false;
  app.add_option("--sizes", sizes, "stream sizes for Table I");
  app.add_option("--ratio", ratio, "kept fraction for Table I (the paper: 0.6)");
  app.add_option("--sweep-n", sweepN, "stream size of the ratio and block sweeps");
  app.add_option("--bytes", bytes, "payload bytes per element (one field)");
  app.add_option("--repeats", repeats, "timed repeats after one warm-up (median)");
  app.add_option("--json", jsonPath, "JSON output");
  app.add_flag("--quick", quick, "small sizes for a CPU GL (llvmpipe)");
  CLI11_PARSE(app, argc, argv);
  if (quick) {
    sizes = {1u << 14, 1u << 16};
    sweepN = 1u << 16;
    repeats = 3;
  }
  std::string why;
  if (!srt::gl::glAvailable(&why)) {
    std::fprintf(stderr, "%s\n", why.c_str());
    return 1;
  }
  const bool cuda = cudaDeviceAvailable();
  std::printf("GL: %s\nCUDA: %s\npayload %u bytes, memory %s\n\n",
              srt::gl::currentContextDescription().c_str(), cudaDeviceDescription().c_str(), bytes,
              cuda ? "cuda (interop)" : "host (uploads)");
  Json json;
  json["gl"] = srt::gl::currentContextDescription();
  json["cuda"] = cudaDeviceDescription();
  json["bytes"] = bytes;

  // Table I and the comparison at each size.
  const std::vector<std::string> algos{"gl-roger",      "gl-horn",         "gl-horn-blelloch",
                                       "gl-gs-packing", "gl-jumping-jack", "gl-rlz",
                                       "gl-binary-tree"};
  std::map<std::string, std::unique_ptr<Compactor>> made;
  for (const auto& a : algos) made[a] = Registry::global().create(a);
  std::unique_ptr<Compactor> cub;
  if (cuda && Registry::global().find("cub")) cub = Registry::global().create("cub");

  std::printf("== times at keep ratio %.2f (ms, median of %d): GL passes | with copies | copies\n",
              ratio, repeats);
  std::printf("%-18s", "algorithm");
  for (uint32_t n : sizes) std::printf(" %26s", sizeName(n).c_str());
  std::printf("\n");
  std::map<std::string, std::vector<Timing>> table;
  std::vector<double> cubMs, memcpyMs;
  std::vector<Stream> streams;
  for (uint32_t n : sizes) streams.push_back(makeStream(n, ratio, bytes, cuda, n));
  for (const auto& a : algos) {
    std::printf("%-18s", a.c_str());
    for (auto& s : streams) {
      Timing t = timeOne(*made[a], s, bytes, cuda, repeats);
      std::printf(" %8.3f | %7.3f | %6.3f", t.glMs, t.totalMs, t.transferMs);
      std::fflush(stdout);
      table[a].push_back(t);
      Json j{{"algorithm", a},        {"n", s.n},
             {"ratio", ratio},        {"gl_ms", t.glMs},
             {"total_ms", t.totalMs}, {"transfer_ms", t.transferMs}};
      for (const auto& [name, ms] : t.steps) j["steps"][name] = ms;
      json["table"].push_back(j);
    }
    std::printf("\n");
  }
  if (cub) {
    std::printf("%-18s", "cub");
    for (auto& s : streams) {
      cubMs.push_back(timeOne(*cub, s, bytes, true, repeats).totalMs);
      memcpyMs.push_back(copyMs(s.n, bytes, repeats));
      std::printf(" %26.3f", cubMs.back());
      json["table"].push_back({{"algorithm", "cub"},
                               {"n", s.n},
                               {"ratio", ratio},
                               {"total_ms", cubMs.back()},
                               {"d2d_copy_ms", memcpyMs.back()}});
    }
    std::printf("\n%-18s", "d2d copy");
    for (double m : memcpyMs) std::printf(" %26.3f", m);
    std::printf("\n");
  }

  std::printf(
      "\n== Table I, measured: speed-up of gl-roger (GL passes) over each; cub row: roger/cub\n");
  std::printf("%-10s %10s %10s %10s %12s\n", "elements", "Horn", "Blelloch", "G.Shaders",
              "CUB (x slower)");
  for (size_t i = 0; i < sizes.size(); ++i) {
    const double roger = table["gl-roger"][i].glMs;
    std::printf("%-10s %10.2f %10.2f %10.2f", sizeName(sizes[i]).c_str(),
                table["gl-horn"][i].glMs / roger, table["gl-horn-blelloch"][i].glMs / roger,
                table["gl-gs-packing"][i].glMs / roger);
    if (cub) std::printf(" %12.2f", roger / cubMs[i]);
    std::printf("\n");
    json["table1"].push_back(
        {{"n", sizes[i]},
         {"horn", table["gl-horn"][i].glMs / roger},
         {"horn_blelloch", table["gl-horn-blelloch"][i].glMs / roger},
         {"gs_packing", table["gl-gs-packing"][i].glMs / roger},
         {"roger_over_cub", cub ? roger / cubMs[i] : 0.0},
         {"roger_with_copies_over_cub", cub ? table["gl-roger"][i].totalMs / cubMs[i] : 0.0}});
  }

  // Fig. 9: keep-ratio sweep.
  std::printf("\n== keep-ratio sweep, gl-roger, %s (Fig. 9): ratio  GL ms  with copies\n",
              sizeName(sweepN).c_str());
  for (int k = 0; k <= 10; ++k) {
    Stream s = makeStream(sweepN, k / 10.0, bytes, cuda, 1000 + k);
    Timing t = timeOne(*made["gl-roger"], s, bytes, cuda, repeats);
    std::printf("  %.1f  %8.3f  %8.3f\n", k / 10.0, t.glMs, t.totalMs);
    json["ratio_sweep"].push_back(
        {{"ratio", k / 10.0}, {"gl_ms", t.glMs}, {"total_ms", t.totalMs}});
  }

  // Figs. 10 and 11: block-size sweep with time per step.
  std::printf("\n== block-size sweep, gl-roger, %s, ratio %.2f (Figs. 10, 11): ms per step\n",
              sizeName(sweepN).c_str(), ratio);
  Stream s = makeStream(sweepN, ratio, bytes, cuda, 4242);
  for (uint32_t b = 8; b <= 2048; b *= 2) {
    auto c = Registry::global().create("gl-roger:block=" + std::to_string(b));
    Timing t = timeOne(*c, s, bytes, cuda, repeats);
    std::printf("  block %4u  total %8.3f :", b, t.glMs);
    Json j{{"block", b}, {"gl_ms", t.glMs}};
    for (const auto& [name, ms] : t.steps) {
      if (name == "upload" || name == "readback") continue;
      std::printf("  %s %.3f", name.c_str(), ms);
      j["steps"][name] = ms;
    }
    std::printf("\n");
    json["block_sweep"].push_back(j);
  }
  // Options of the paper's comparison (Fig. 12) and the scans.
  std::printf("\n== gl-roger variants, %s: GL ms\n", sizeName(sweepN).c_str());
  for (const char* spec :
       {"gl-roger", "gl-roger:search=plain", "gl-roger:wrap=draw-twice",
        "gl-roger:search=plain,wrap=draw-twice", "gl-roger:scan=blelloch", "gl-roger:scan=sengupta",
        "gl-rlz:runs=sweep", "gl-horn:scan=sengupta"}) {
    auto c = Registry::global().create(spec);
    Timing t = timeOne(*c, s, bytes, cuda, repeats);
    std::printf("  %-40s %8.3f\n", spec, t.glMs);
    json["variants"].push_back({{"spec", spec}, {"gl_ms", t.glMs}, {"total_ms", t.totalMs}});
  }
  std::ofstream(jsonPath) << json.dump(2) << "\n";
  std::printf("\nwrote %s\n", jsonPath.c_str());
  return 0;
}
