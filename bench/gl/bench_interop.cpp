// The interop section of streamrt-bench-gl: the two stream shapes the path tracer compacts (one
// 4-byte field: shadow rays and the index payload; four 16-byte fields: the path state) in CUDA
// memory, through every interop and with the payload moved by GL or gathered by CUDA, beside
// cub. Each line: total (wall, the CUDA tail included), GL passes, interop (lastTransferMs), the
// CUDA gather, the interop's share of the total, and what ran (choiceSummary).
#include <cstdio>
#include <stdexcept>

#include "bench/gl/bench_timing.h"

namespace srt::bench {

void runInterop(uint32_t n, double ratio, int repeats, nlohmann::json& json) {
  using compaction::Registry;
  // External memory last: where it fails it can leave GL or CUDA unusable for what follows (a
  // wedged hand-off, a fatal CUDA error); --interop-diagnose runs each in a process of its own.
  const char* specs[] = {"gl-roger",
                         "gl-roger:payload=gl",
                         "gl-roger:interop=registered",
                         "gl-roger:interop=registered,payload=gl",
                         "gl-roger:interop=host",
                         "gl-roger:interop=host,payload=gl",
                         "gl-roger:interop=vulkan",
                         "gl-roger:interop=vulkan,sync=fences",
                         "gl-roger:interop=vulkan,payload=gl",
                         "gl-roger:interop=vmm",
                         "gl-roger:interop=vmm,sync=fences"};
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
                                   {"interop", t.interop}});
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
