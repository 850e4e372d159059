// Streams, timing of one primitive (GL timer queries per step, wall time with the copies) and the
// sweeps of Roger 2007's figures, for streamrt-bench-gl.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "bench/gl/roof.h"
#include "primitives/common/memory.h"
#include "primitives/compaction/compaction.h"
#include "primitives/compaction/gl/gl_compactors.h"

namespace srt::bench {

struct Stream {
  uint32_t n = 0;
  uint32_t fields = 1;  // fields of `bytes` each, side by side in src/dst
  std::vector<uint8_t> keep;
  std::vector<uint32_t> src, dst;
  Buffer<uint8_t> dKeep;
  Buffer<uint32_t> dSrc, dDst, dCount;
  uint32_t hostCount = 0;
};
// n elements, a fraction `ratio` kept at random, `fields` fields of `bytes` bytes.
Stream makeStream(uint32_t n, double ratio, uint32_t bytes, bool cuda, uint32_t seed,
                  uint32_t fields = 1);

struct Timing {
  double glMs = 0;        // GL passes (timer queries), without the copies
  double totalMs = 0;     // compact() wall time, with the copies (and the stream side's work)
  double transferMs = 0;  // lastTransferMs()
  double gatherMs = 0;    // the stream side's payload gather ("payload gather (...)" step)
  std::string interop;    // choiceSummary()
  std::vector<std::pair<std::string, double>> steps;
  std::vector<compaction::gl::PassRecord> passes;  // of the last repeat
};
Timing timeOne(compaction::Compactor& c, Stream& s, uint32_t bytes, bool cuda, int repeats);
double deviceCopyMs(uint32_t n, uint32_t bytes, int repeats);
// GL time of a step that is not one of the algorithm's passes (interop, the stream side's gather,
// diag=concat's decomposition).
bool outsideGl(const std::string& step);

// The tracer's shapes (one 4-byte field; the path state's four 16-byte fields) through every
// interop and payload side, with cub for scale (CUDA only); `external`: external memory only.
void runInterop(uint32_t n, double ratio, int repeats, bool external, nlohmann::json& json);

// Fig. 9 (keep ratio), Figs. 10-11 (block size, per step, with roofs) and Fig. 12 (variants).
void runSweeps(const RoofModel& roof, Stream& s, uint32_t n, double ratio, uint32_t bytes,
               bool cuda, int repeats, nlohmann::json& json);

}  // namespace srt::bench
