#include "bench/gl/bench_timing.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <random>

namespace srt::bench {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

double wallMs(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

Stream makeStream(uint32_t n, double ratio, uint32_t bytes, bool cuda, uint32_t seed,
                  uint32_t fields) {
  Stream s;
  s.n = n;
  s.fields = fields;
  std::mt19937 rng(seed);
  std::bernoulli_distribution d(ratio);
  s.keep.resize(n);
  for (auto& k : s.keep) k = d(rng);
  const size_t words = size_t(n) * bytes / 4 * fields;
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

bool outsideGl(const std::string& step) {
  return step == "upload" || step.rfind("diag: ", 0) == 0 || step == "readback" || step.rfind("payload gather", 0) == 0 ||
         step.rfind("host: ", 0) == 0;
}

Timing timeOne(compaction::Compactor& c, Stream& s, uint32_t bytes, bool cuda, int repeats) {
  std::vector<compaction::Field> fields;
  const size_t words = size_t(s.n) * bytes / 4;
  for (uint32_t f = 0; f < s.fields; ++f)
    fields.push_back({(cuda ? s.dSrc.data() : s.src.data()) + f * words,
                      (cuda ? s.dDst.data() : s.dst.data()) + f * words, bytes});
  compaction::Request r;
  r.keep = cuda ? s.dKeep.data() : s.keep.data();
  r.fields = fields.data();
  r.numFields = int(fields.size());
  r.count = s.n;
  r.numKept = cuda ? s.dCount.data() : &s.hostCount;
  r.memory = cuda ? MemorySpace::Cuda : MemorySpace::Host;
  auto* gl = dynamic_cast<compaction::gl::GlCompactor*>(&c);
  std::vector<double> g, t, x, gathers;
  std::map<std::string, std::vector<double>> steps;
  std::vector<std::string> order;
  Timing out;
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
      ms = gl ? wallMs(t0) : evMs;
      cudaEventDestroy(a);
      cudaEventDestroy(b);
    } else {
      const auto t0 = std::chrono::steady_clock::now();
      c.compact(r);
      ms = wallMs(t0);
    }
    if (i < 0) continue;  // warm-up
    t.push_back(ms);
    x.push_back(c.lastTransferMs());
    double passes = ms;
    double gather = 0;
    if (gl) {
      passes = 0;
      for (const auto& [name, stepMs] : gl->lastStepTimes()) {
        if (!steps.count(name)) order.push_back(name);
        steps[name].push_back(stepMs);
        if (!outsideGl(name)) passes += stepMs;
        if (name.rfind("payload gather", 0) == 0) gather += stepMs;
      }
      out.passes = gl->lastPasses();
      out.interop = c.choiceSummary();
    }
    gathers.push_back(gather);
    g.push_back(passes);
  }
  out.glMs = median(g);
  out.totalMs = median(t);
  out.transferMs = median(x);
  out.gatherMs = median(gathers);
  for (const auto& name : order) out.steps.emplace_back(name, median(steps[name]));
  return out;
}

double deviceCopyMs(uint32_t n, uint32_t bytes, int repeats) {
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

void runSweeps(const RoofModel& roof, Stream& s, uint32_t n, double ratio, uint32_t bytes,
               bool cuda, int repeats, nlohmann::json& json) {
  using compaction::Registry;
  const std::string size =
      n >= (1u << 20) ? std::to_string(n >> 20) + "M" : std::to_string(n >> 10) + "K";
  std::printf("\n== keep-ratio sweep, gl-roger, %s (Fig. 9): ratio  GL ms  roof ms  with copies\n",
              size.c_str());
  auto roger = Registry::global().create("gl-roger");
  for (int k = 0; k <= 10; ++k) {
    Stream r = makeStream(n, k / 10.0, bytes, cuda, 1000 + k);
    const Timing t = timeOne(*roger, r, bytes, cuda, repeats);
    const double rm = roofMs(roof, t.passes);
    std::printf("  %.1f  %8.3f  %8.3f  %8.3f\n", k / 10.0, t.glMs, rm, t.totalMs);
    json["ratio_sweep"].push_back(
        {{"ratio", k / 10.0}, {"gl_ms", t.glMs}, {"roof_ms", rm}, {"total_ms", t.totalMs}});
  }

  std::printf("\n== block-size sweep, %s, ratio %.2f (Figs. 10, 11): GL ms (roof ms) per step\n",
              size.c_str(), ratio);
  for (const char* algo : {"gl-roger", "gl-jumping-jack", "gl-rlz", "gl-binary-tree"})
    for (uint32_t b = 8; b <= 2048; b *= 2) {
      auto c = Registry::global().create(std::string(algo) + ":block=" + std::to_string(b));
      const Timing t = timeOne(*c, s, bytes, cuda, repeats);
      const double rm = roofMs(roof, t.passes);
      std::printf("  %-16s block %4u  total %8.3f (%7.3f) :", algo, b, t.glMs, rm);
      nlohmann::json j{{"algorithm", algo}, {"block", b}, {"gl_ms", t.glMs}, {"roof_ms", rm}};
      for (const auto& [name, ms] : t.steps) {
        if (outsideGl(name)) continue;
        double stepRoof = 0;
        for (const auto& p : t.passes)
          if (p.step == name) stepRoof += roof.passMs(p);
        std::printf("  %s %.3f (%.3f)", name.c_str(), ms, stepRoof);
        j["steps"][name] = ms;
        j["step_roofs"][name] = stepRoof;
      }
      std::printf("\n");
      json["block_sweep"].push_back(j);
    }

  std::printf("\n== variants, %s: GL ms, roof ms\n", size.c_str());
  for (const char* spec : {"gl-roger",
                           "gl-roger:output=element",
                           "gl-roger:search=improved",
                           "gl-roger:search=plain",
                           "gl-roger:offsets=aligned",
                           "gl-roger:offsets=wide",
                           "gl-roger:offsets=wide,search=plain",
                           "gl-roger:offsets=wide,wrap=draw-twice",
                           "gl-roger:wrap=draw-twice",
                           "gl-roger:search=improved,output=element",
                           "gl-roger:scan=blelloch",
                           "gl-roger:scan=sengupta",
                           "gl-roger:block=512,scan=blelloch",
                           "gl-roger:radix=4",
                           "gl-roger:radix=8",
                           "gl-roger:radix=16",
                           "gl-roger:radix=32",
                           "gl-roger:block=256,radix=16",
                           "gl-roger:block=512,radix=16",
                           "gl-horn:radix=8",
                           "gl-roger:block=64,output=element,search=improved",
                           "gl-jumping-jack:output=element",
                           "gl-rlz:runs=sweep",
                           "gl-binary-tree:output=element",
                           "gl-horn:output=element",
                           "gl-horn:scan=sengupta",
                           "gl-horn-blelloch:output=element"}) {
    auto c = Registry::global().create(spec);
    const Timing t = timeOne(*c, s, bytes, cuda, repeats);
    const double rm = roofMs(roof, t.passes);
    std::printf("  %-40s %8.3f %8.3f\n", spec, t.glMs, rm);
    json["variants"].push_back(
        {{"spec", spec}, {"gl_ms", t.glMs}, {"roof_ms", rm}, {"total_ms", t.totalMs}});
  }
}

}  // namespace srt::bench
