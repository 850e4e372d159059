// The roof of an OpenGL fragment pass, measured in the same run as the algorithms: "fragment
// copy" lines, full-target passes that read only, write only, or read and write the same bytes,
// in 8-, 16- and 32-bit formats (one to four channels) and into several render targets; an empty
// pass (one texel), whose time is the cost of a pass that moves nothing; a line-drawing copy (the
// concatenation's way of writing); a gather (an index, then the value it names: the final pass's
// data path); and a compute-shader copy for reference (no algorithm here uses compute shaders). A
// pass's roof is then the empty pass plus its bytes at the read+write rate of its output texel size
// and target count.
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

 private:
  std::vector<RoofLine> lines_;
};

// The sum of the roofs of an algorithm's passes, the copies in and out left aside.
double roofMs(const RoofModel& roof, const std::vector<compaction::gl::PassRecord>& passes);

}  // namespace srt::bench
