// The roof of an OpenGL fragment pass, measured in the same run as the algorithms: "fragment
// copy" lines, full-target passes that read only, write only, or read and write the same bytes,
// in 8-, 16- and 32-bit formats (one to four channels) and into several render targets; an empty
// pass (one texel), whose time is the cost of a pass that moves nothing; a line-drawing copy (the
// concatenation's way of writing); a gather (an index, then the value it names: the final pass's
// data path); and a compute-shader copy for reference (no algorithm here uses compute shaders). A
// pass's roof is then the empty pass plus its bytes at the read+write rate of its output texel size
// and target count. Beside the bytes, what a fragment executes: "alu", "bitops" and "fetch" lines
// run K dependent integer steps, K dependent popcount steps or K fetches of a small (cached)
// texture per fragment, each at two K, and their difference gives the time of one operation of
// that kind on the units that run fragment work; "gslines" copy the same fragments in lines of 16
// and of 128 texels through a pass-through geometry shader, whose difference is the cost of a line
// (and RGBA32UI lines of 16 texels, the concatenation's target format, for reading beside them).
// A pass's work roof is the empty pass plus the slowest of its fragments times its ALU, bit-op and
// fetch counts (gl_costs.h) and its lines, at those rates; its roof is the larger of the two.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "primitives/compaction/gl/gl_compactors.h"

namespace srt::bench {

struct RoofLine {
  std::string name;    // "rw R32UI", "write 4x RGBA32UI", ...
  std::string mode;    // read, write, rw, empty, lines, compute
  std::string format;  // R8UI ... RGBA32UI
  uint32_t texelBytes = 0;
  uint32_t targets = 1;
  uint64_t bytesRead = 0, bytesWritten = 0;
  uint64_t fragments = 0;
  uint32_t steps = 0;      // alu, bitops, fetch: operations of that kind per fragment
  double ms = 0;
  double gbPerS() const { return ms > 0 ? double(bytesRead + bytesWritten) / (ms * 1e6) : 0; }
};

// Measures every line, each moving `bytes` per direction (per target), median of `repeats`.
std::vector<RoofLine> measureRoof(uint64_t bytes, int repeats);

class RoofModel {
 public:
  explicit RoofModel(std::vector<RoofLine> lines) : lines_(std::move(lines)) {}
  const std::vector<RoofLine>& lines() const { return lines_; }
  // The read+write line a pass is measured against, and the pass's roof in milliseconds.
  const RoofLine& lineFor(const compaction::gl::PassRecord& p) const;
  double passMs(const compaction::gl::PassRecord& p) const;
  double emptyPassMs() const;
  // Milliseconds of one operation of a kind ("alu", "bitops", "fetch", "gslines": a line): the
  // difference of its two lines over the operations (or lines) added; 0 when not measured.
  double opMs(const std::string& mode) const;
  // The pass's work roof (0 when its work is not counted), and the larger of it and passMs().
  double opsMs(const compaction::gl::PassRecord& p) const;
  double workMs(const compaction::gl::PassRecord& p) const;
  // Which roof binds the pass: "bytes", "alu", "bitops", "fetch" or "lines".
  std::string binding(const compaction::gl::PassRecord& p) const;

 private:
  std::vector<RoofLine> lines_;
};

// The sum of the roofs of an algorithm's passes, the copies in and out left aside: for their
// bytes (roofMs), and the larger of bytes and work per pass (workRoofMs).
double roofMs(const RoofModel& roof, const std::vector<compaction::gl::PassRecord>& passes);
double workRoofMs(const RoofModel& roof, const std::vector<compaction::gl::PassRecord>& passes);

}  // namespace srt::bench
