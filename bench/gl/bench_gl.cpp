// streamrt-bench-gl: the OpenGL compaction family against its roof, and measured the way Roger et
// al. 2007 report it. First the roof: fragment-copy lines (roof.h). Then every algorithm at every
// size: GL time (timer queries of its passes), the sum of its passes' roofs for the bytes each
// pass moves, and the wall time with the copies in and out. Then Table I (speed-up of the block
// algorithm over Horn, Horn+Blelloch, geometry-shader packing; CUB for scale), the bytes and roof
// of every pass of gl-roger, the keep-ratio sweep (Fig. 9), the block-size sweep with time per
// step (Figs. 10, 11) and the variants (Fig. 12). Medians of repeats after a warm-up. Prints
// tables and writes JSON.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>

#include "bench/gl/bench_timing.h"
#include "bench/gl/interop_diagnose.h"
#include "bench/gl/roof.h"
#include "bench/gl/shader_stats.h"
#include "primitives/gl/gl_context.h"

using namespace srt;
using namespace srt::bench;
using namespace srt::compaction;
using srt::compaction::gl::OpCount;
using Json = nlohmann::json;

namespace {

std::string sizeName(uint32_t n) {
  return n >= (1u << 20) ? std::to_string(n >> 20) + "M" : std::to_string(n >> 10) + "K";
}

Json passesJson(const RoofModel& roof, const Timing& t) {
  Json out = Json::array();
  for (const auto& p : t.passes) {
    out.push_back({{"step", p.step},
                   {"read", p.read},
                   {"written", p.written},
                   {"texel_bytes", p.texelBytes},
                   {"targets", p.targets},
                   {"lines", p.lines},
                   {"roof_line", roof.lineFor(p).name},
                   {"roof_ms", roof.passMs(p)},
                   {"fragments", p.fragments},
                   {"alu", p.ops.alu},
                   {"bit_ops", p.ops.bitOps},
                   {"fetches", p.ops.fetches},
                   {"ops_roof_ms", roof.opsMs(p)},
                   {"work_roof_ms", roof.workMs(p)},
                   {"binding", roof.binding(p)}});
    const ShaderStats d = fragmentShaderStats(p.program);
    if (d.available)
      out.back()["driver"] = {
          {"alu", d.alu}, {"bit_ops", d.bitOps}, {"fetches", d.fetches}, {"control", d.control}};
  }
  return out;
}

void printRoof(const RoofModel& roof, Json& json) {
  std::printf("== roof: fragment copy lines (median GL time)\n");
  std::printf("%-50s %10s %10s %10s %9s %8s\n", "line", "fragments", "MB read", "MB written", "ms",
              "GB/s");
  for (const RoofLine& l : roof.lines()) {
    std::printf("%-50s %10llu %10.2f %10.2f %9.4f %8.1f\n", l.name.c_str(),
                (unsigned long long)l.fragments, l.bytesRead / 1e6, l.bytesWritten / 1e6, l.ms,
                l.gbPerS());
    json["roof"].push_back({{"name", l.name},
                            {"mode", l.mode},
                            {"format", l.format},
                            {"texel_bytes", l.texelBytes},
                            {"targets", l.targets},
                            {"fragments", l.fragments},
                            {"bytes_read", l.bytesRead},
                            {"bytes_written", l.bytesWritten},
                            {"ms", l.ms},
                            {"gb_per_s", l.gbPerS()}});
  }
  std::printf(
      "A pass's byte roof: the empty pass + (bytes read + written) / the rw GB/s of its output "
      "texel size and target count.\n");
  std::printf("Work rates (the difference of each kind's two lines):");
  for (const char* mode : {"alu", "bitops", "fetch", "gslines"}) {
    const double ms = roof.opMs(mode);
    std::printf("  %s %.4f ns/op (%.2f G/s)", mode, ms * 1e6, ms > 0 ? 1e-6 / ms : 0.0);
    json["op_ns"][mode] = ms * 1e6;
  }
  std::printf(
      "\nA pass's work roof: the empty pass + the slowest of fragments x its ALU, bit-op and fetch "
      "counts a fragment (counted from the shaders: primitives/compaction/gl/gl_costs.h) and its "
      "lines (gslines: a line through a geometry shader), at these rates; its roof: the larger of "
      "the two.\n\n");
}

// Per step of one algorithm: passes, bytes, fragments and the work of each, the byte roof, the
// roof (the larger of bytes and work, per pass) and what binds it, and the measured time.
void printSteps(const RoofModel& roof, const std::string& name, const Timing& t) {
  std::printf("  %-26s %6s %8s %8s %9s %17s %9s %9s %9s %7s %7s %s\n", "step", "passes", "MB read",
              "MB wrote", "fragments", "alu/bit/fetch", "roof ms", "max roof", "GL ms", "x roof",
              "x max", "bound by");
  for (const auto& [step, ms] : t.steps) {
    if (step.rfind("host: ", 0) == 0 && ms == 0) continue;  // host rows: only where time went
    int passes = 0;
    uint64_t read = 0, written = 0, fragments = 0;
    double r = 0, w = 0;
    OpCount most;  // the pass of this step with the most work a fragment
    std::string bound;
    for (const auto& p : t.passes)
      if (p.step == step) {
        ++passes;
        read += p.read;
        written += p.written;
        fragments += p.fragments;
        r += roof.passMs(p);
        w += roof.workMs(p);
        if (p.ops.alu + p.ops.bitOps + p.ops.fetches >= most.alu + most.bitOps + most.fetches) {
          most = p.ops;
          bound = roof.binding(p);
        }
      }
    char ops[32];
    std::snprintf(ops, sizeof ops, "%.0f/%.0f/%.0f", most.alu, most.bitOps, most.fetches);
    std::printf("  %-26s %6d %8.3f %8.3f %9llu %17s %9.4f %9.4f %9.4f %7.2f %7.2f %s\n",
                step.c_str(), passes, read / 1e6, written / 1e6, (unsigned long long)fragments, ops,
                r, w, ms, r > 0 ? ms / r : 0.0, w > 0 ? ms / w : 0.0, bound.c_str());
  }
  const double r = roofMs(roof, t.passes), w = workRoofMs(roof, t.passes);
  std::printf("  %-26s %6s %8s %8s %9s %17s %9.4f %9.4f %9.4f %7.2f %7.2f   (%s, without upload/readback)\n",
              "total", "", "", "", "", "", r, w, t.glMs, t.glMs / r, t.glMs / w, name.c_str());
}

// What one run measures, from the command line.
struct Settings {
  std::vector<uint32_t> sizes{1u << 18, 1u << 20, 1u << 22, 1u << 24};
  double ratio = 0.6;
  uint32_t sweepN = 1u << 22, bytes = 4, interopN = 1u << 23;
  uint64_t roofBytes = 16u << 20;
  int repeats = 7;
  std::string jsonPath = "bench_gl.json";
  bool quick = false, noSweeps = false, interopOnly = false, interopExternal = false;
  std::vector<std::string> algos{"gl-roger",        "gl-horn", "gl-horn-blelloch", "gl-gs-packing",
                                 "gl-jumping-jack", "gl-rlz",  "gl-binary-tree"};
  bool diagnose = false;
  double diagnoseSeconds = 30;
  std::string diagnoseOne;
};

void addOptions(CLI::App& app, Settings& s) {
  app.add_option("--sizes", s.sizes, "stream sizes for Table I");
  app.add_option("--algorithms", s.algos,
                 "primitives (specs) to time; Table I needs the first four");
  app.add_option("--ratio", s.ratio, "kept fraction for Table I (the paper: 0.6)");
  app.add_option("--sweep-n", s.sweepN, "stream size of the per-pass table and the sweeps");
  app.add_option("--bytes", s.bytes, "payload bytes per element (one field)");
  app.add_option("--roof-bytes", s.roofBytes, "bytes per direction of each roof line");
  app.add_option("--repeats", s.repeats, "timed repeats after one warm-up (median)");
  app.add_option("--json", s.jsonPath, "JSON output");
  app.add_flag("--quick", s.quick, "small sizes for a CPU GL (llvmpipe)");
  app.add_flag("--no-sweeps", s.noSweeps, "skip the keep-ratio and block sweeps and the variants");
  app.add_option("--interop-n", s.interopN, "stream size of the interop section (CUDA)");
  app.add_flag("--interop-only", s.interopOnly, "only the interop section (CUDA)");
  app.add_flag("--interop-external", s.interopExternal,
               "the interop section over external memory (Vulkan, VMM) instead; can wedge GL");
  app.add_flag("--interop-diagnose", s.diagnose,
               "every CUDA-GL interop step by step, each in a child process with a time limit");
  app.add_option("--interop-diagnose-seconds", s.diagnoseSeconds,
                 "time limit of each --interop-diagnose child (seconds)")
      ->check(CLI::Range(5.0, 600.0));
  app.add_option("--interop-diagnose-one", s.diagnoseOne,
                 "(a child of --interop-diagnose: one spec)");
}

// Every algorithm at every size (GL passes, roofs, with copies), and cub's time for scale.
struct TimesTable {
  std::map<std::string, std::vector<Timing>> byAlgorithm;
  std::vector<double> cubMs;
};

TimesTable runTimes(const Settings& st, const RoofModel& roof, bool cuda, Json& json) {
  std::map<std::string, std::unique_ptr<Compactor>> made;
  for (const auto& a : st.algos) made[a] = Registry::global().create(a);
  std::printf(
      "== times at keep ratio %.2f (ms, median of %d): GL passes | roof | x roof | "
      "with copies | copies\n",
      st.ratio, st.repeats);
  std::printf("%-18s", "algorithm");
  for (uint32_t n : st.sizes) std::printf(" %44s", sizeName(n).c_str());
  std::printf("\n");
  TimesTable out;
  std::vector<Stream> streams;
  for (uint32_t n : st.sizes) streams.push_back(makeStream(n, st.ratio, st.bytes, cuda, n));
  for (const auto& a : st.algos) {
    std::printf("%-18s", a.c_str());
    for (auto& s : streams) {
      Timing t = timeOne(*made[a], s, st.bytes, cuda, st.repeats);
      const double r = roofMs(roof, t.passes);
      std::printf(" %8.3f | %7.3f | %5.2f | %7.3f | %6.3f", t.glMs, r, t.glMs / r, t.totalMs,
                  t.transferMs);
      std::fflush(stdout);
      Json j{{"algorithm", a},        {"n", s.n},
             {"ratio", st.ratio},     {"gl_ms", t.glMs},
             {"roof_ms", r},          {"work_roof_ms", workRoofMs(roof, t.passes)},
             {"total_ms", t.totalMs}, {"transfer_ms", t.transferMs},
             {"interop", t.interop}};
      for (const auto& [name, ms] : t.steps) j["steps"][name] = ms;
      j["passes"] = passesJson(roof, t);
      json["table"].push_back(j);
      out.byAlgorithm[a].push_back(std::move(t));
    }
    std::printf("\n");
  }
  for (const auto& a : st.algos)
    std::printf("%-18s %s\n", a.c_str(),
                out.byAlgorithm[a].empty() ? "" : out.byAlgorithm[a][0].interop.c_str());
  if (!cuda || !Registry::global().find("cub")) return out;
  auto cub = Registry::global().create("cub");
  std::printf("%-18s", "cub");
  std::vector<double> copy;
  for (auto& s : streams) {
    out.cubMs.push_back(timeOne(*cub, s, st.bytes, true, st.repeats).totalMs);
    copy.push_back(deviceCopyMs(s.n, st.bytes, st.repeats));
    std::printf(" %44.3f", out.cubMs.back());
    json["table"].push_back({{"algorithm", "cub"},
                             {"n", s.n},
                             {"ratio", st.ratio},
                             {"total_ms", out.cubMs.back()},
                             {"d2d_copy_ms", copy.back()}});
  }
  std::printf("\n%-18s", "d2d copy");
  for (double m : copy) std::printf(" %44.3f", m);
  std::printf("\n");
  return out;
}

void printTableOne(const Settings& st, const RoofModel& roof, TimesTable& times, Json& json) {
  std::printf(
      "\n== Table I, measured: speed-up of gl-roger (GL passes) over each, and the same "
      "ratio of their roofs; cub: roger is x slower\n");
  std::printf("%-10s %16s %16s %16s %14s\n", "elements", "Horn (roof)", "Blelloch (roof)",
              "G.Shaders (roof)", "CUB");
  auto& table = times.byAlgorithm;
  const bool cub = !times.cubMs.empty();
  for (size_t i = 0; i < st.sizes.size() && table.count("gl-roger"); ++i) {
    const Timing& roger = table["gl-roger"][i];
    const double rogerRoof = roofMs(roof, roger.passes);
    Json row{{"n", st.sizes[i]}};
    std::printf("%-10s", sizeName(st.sizes[i]).c_str());
    for (const char* other : {"gl-horn", "gl-horn-blelloch", "gl-gs-packing"}) {
      if (!table.count(other)) continue;
      const Timing& t = table[other][i];
      const double speedup = t.glMs / roger.glMs, roofRatio = roofMs(roof, t.passes) / rogerRoof;
      std::printf(" %7.2f (%6.2f)", speedup, roofRatio);
      row[other] = speedup;
      row[std::string(other) + "_roof_ratio"] = roofRatio;
    }
    if (cub) std::printf(" %14.1f", roger.glMs / times.cubMs[i]);
    std::printf("\n");
    row["roger_over_cub"] = cub ? roger.glMs / times.cubMs[i] : 0.0;
    row["roger_with_copies_over_cub"] = cub ? roger.totalMs / times.cubMs[i] : 0.0;
    json["table1"].push_back(row);
  }
}

// The driver's static count of each program's instructions beside ours, where it gives one.
void printDriverStats(const Timing& t) {
  std::vector<uint32_t> seen;
  for (const auto& p : t.passes) {
    if (p.program == 0 || std::find(seen.begin(), seen.end(), p.program) != seen.end()) continue;
    seen.push_back(p.program);
    const ShaderStats d = fragmentShaderStats(p.program);
    if (!d.available) {
      std::printf("  (the driver gives no instruction counts: NVIDIA's program binary does)\n");
      return;
    }
    std::printf("  %-26s driver (static) alu/bit/fetch/control %u/%u/%u/%u; counted %.0f/%.0f/%.0f\n",
                p.step.c_str(), d.alu, d.bitOps, d.fetches, d.control, p.ops.alu, p.ops.bitOps,
                p.ops.fetches);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("OpenGL stream compaction benchmark: roof, Table I and Figs. 9-12 of Roger 2007");
  Settings st;
  addOptions(app, st);
  CLI11_PARSE(app, argc, argv);
  if (!st.diagnoseOne.empty()) return runInteropDiagnoseOne(st.diagnoseOne);
  if (st.diagnose) return runInteropDiagnose(st.diagnoseSeconds);
  if (st.quick) {
    st.sizes = {1u << 14, 1u << 16};
    st.sweepN = 1u << 16;
    st.roofBytes = 1u << 18;
    st.repeats = 3;
    st.interopN = 1u << 16;
  }
  std::string why;
  if (!srt::gl::glAvailable(&why)) {
    std::fprintf(stderr, "%s\n", why.c_str());
    return 1;
  }
  const bool cuda = cudaDeviceAvailable();
  std::printf("GL: %s\nCUDA: %s\npayload %u bytes, memory %s\n\n",
              srt::gl::currentContextDescription().c_str(), cudaDeviceDescription().c_str(),
              st.bytes, cuda ? "cuda (interop)" : "host (uploads)");
  Json json;
  json["gl"] = srt::gl::currentContextDescription();
  json["cuda"] = cudaDeviceDescription();
  json["bytes"] = st.bytes;
  if (st.interopOnly) {
    if (!cuda) {
      std::fprintf(stderr, "--interop-only needs a CUDA device\n");
      return 1;
    }
    runInterop(st.interopN, st.ratio, st.repeats, st.interopExternal, json);
    std::ofstream(st.jsonPath) << json.dump(2) << "\n";
    std::printf("\nwrote %s\n", st.jsonPath.c_str());
    return 0;
  }
  const RoofModel roof(measureRoof(st.roofBytes, st.repeats));
  printRoof(roof, json);
  TimesTable times = runTimes(st, roof, cuda, json);
  printTableOne(st, roof, times, json);

  std::printf("\n== bytes, roof and time per step at %s, keep ratio %.2f\n",
              sizeName(st.sweepN).c_str(), st.ratio);
  Stream s = makeStream(st.sweepN, st.ratio, st.bytes, cuda, 4242);
  for (const auto& a : st.algos) {
    auto c = Registry::global().create(a);
    const Timing t = timeOne(*c, s, st.bytes, cuda, st.repeats);
    printSteps(roof, a, t);
    printDriverStats(t);
    Json row{{"algorithm", a},
             {"n", st.sweepN},
             {"gl_ms", t.glMs},
             {"roof_ms", roofMs(roof, t.passes)},
             {"work_roof_ms", workRoofMs(roof, t.passes)},
             {"passes", passesJson(roof, t)}};
    for (const auto& [name, ms] : t.steps) row["steps"][name] = ms;
    json["per_pass"].push_back(row);
  }
  if (cuda) runInterop(st.interopN, st.ratio, st.repeats, false, json);
  if (!st.noSweeps) runSweeps(roof, s, st.sweepN, st.ratio, st.bytes, cuda, st.repeats, json);
  std::ofstream(st.jsonPath) << json.dump(2) << "\n";
  std::printf("\nwrote %s\n", st.jsonPath.c_str());
  return 0;
}
