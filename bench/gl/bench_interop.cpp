// The interop section of streamrt-bench-gl: the two stream shapes the path tracer compacts (one
// 4-byte field: shadow rays and the index payload; four 16-byte fields: the path state) in CUDA
// memory, through every interop and with the payload moved by GL or gathered by CUDA, beside
// cub. Each line: total (wall, the CUDA tail included), GL passes, interop (lastTransferMs), the
// CUDA gather, the interop's share of the total, and what ran (choiceSummary).
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "bench/gl/bench_timing.h"

namespace srt::bench {
namespace {
nlohmann::json steps(const Timing& t) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, ms] : t.steps) j[name] = ms;
  return j;
}
}  // namespace

void runInterop(uint32_t n, double ratio, int repeats, bool external, nlohmann::json& json) {
  using compaction::Registry;
  // External memory only when asked (a process of its own): where it fails it can leave GL or
  // CUDA unusable for what follows (a wedged hand-off, a fatal CUDA error); host fences first,
  // the semaphores (which hung on the H100) last. --interop-diagnose isolates each.
  const std::vector<const char*> specs =
      external ? std::vector<const char*>{"gl-roger:interop=vulkan,sync=fences",
                                          "gl-roger:interop=vmm,sync=fences",
                                          "gl-roger:interop=vulkan,payload=gl,sync=fences",
                                          "gl-roger:interop=vulkan", "gl-roger:interop=vmm"}
               : std::vector<const char*>{"gl-roger",
                                          "gl-roger:payload=gl",
                                          "gl-roger:map=call",
                                          "gl-roger:indices=texture",
                                          "gl-roger:count=device",
                                          "gl-roger:interop=registered,payload=gl",
                                          "gl-roger:interop=host",
                                          "gl-roger:interop=host,payload=gl"};
  struct Shape {
    const char* name;
    uint32_t fields, bytes;
  };
  const Shape shapes[] = {{"1 x 4 B", 1, 4}, {"4 x 16 B", 4, 16}};
  std::printf(
      "\n== interop, %u elements, keep ratio %.2f, CUDA memory (ms, median of %d): total | GL "
      "passes | interop | CUDA gather | interop share\n",
      n, ratio, repeats);
  for (const Shape& shape : shapes) {
    Stream s = makeStream(n, ratio, shape.bytes, true, 777, shape.fields);
    if (Registry::global().find("cub")) {
      auto cub = Registry::global().create("cub");
      const Timing t = timeOne(*cub, s, shape.bytes, true, repeats);
      std::printf("  %-9s %-40s %8.3f\n", shape.name, "cub", t.totalMs);
      json["interop"].push_back(
          {{"shape", shape.name}, {"spec", "cub"}, {"n", n}, {"total_ms", t.totalMs}});
    }
    for (const char* spec : specs) {
      try {
        auto c = Registry::global().create(spec);
        const Timing t = timeOne(*c, s, shape.bytes, true, repeats);
        const double share = t.totalMs > 0 ? t.transferMs / t.totalMs : 0;
        std::printf("  %-9s %-40s %8.3f | %8.3f | %7.3f | %7.3f | %5.1f%%  %s\n", shape.name, spec,
                    t.totalMs, t.glMs, t.transferMs, t.gatherMs, 100 * share, t.interop.c_str());
        json["interop"].push_back({{"shape", shape.name},
                                   {"spec", spec},
                                   {"n", n},
                                   {"total_ms", t.totalMs},
                                   {"gl_ms", t.glMs},
                                   {"transfer_ms", t.transferMs},
                                   {"gather_ms", t.gatherMs},
                                   {"interop", t.interop},
                                   {"steps", steps(t)}});
        // Where the interop's time goes: host time of maps, unmaps, copies in and waits, GL's
        // read-back into the shared buffer (timer), and the host's own waits for GL.
        std::printf("  %-9s %-40s   ", "", "");
        for (const auto& [name, ms] : t.steps)
          if (name.rfind("host: ", 0) == 0 || name == "readback")
            std::printf(" %s %.3f;", name == "readback" ? "GL read-back" : name.c_str() + 6, ms);
        std::printf("\n");
      } catch (const std::exception& e) {
        std::printf("  %-9s %-40s unavailable: %s\n", shape.name, spec, e.what());
        json["interop"].push_back(
            {{"shape", shape.name}, {"spec", spec}, {"n", n}, {"unavailable", e.what()}});
      }
      std::fflush(stdout);
    }
  }
}

}  // namespace srt::bench
