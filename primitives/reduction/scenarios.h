// Segment layouts the tests and the benchmark share: the paper's three scenarios (one segment,
// random sizes 10-50, all of size 3) plus size 1, empty segments and a million segments.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "primitives/common/enum_names.h"

namespace srt::reduction {

struct Segments {
  std::vector<uint32_t> offsets;  // numSegments + 1 entries, offsets.back() == count
  std::vector<uint32_t> owners;   // count entries
  uint32_t count() const { return offsets.empty() ? 0 : offsets.back(); }
  uint32_t numSegments() const { return offsets.empty() ? 0 : uint32_t(offsets.size() - 1); }
};

enum class Scenario {
  OneSegment,    // one segment over everything (count 0 gives one empty segment)
  Random10To50,  // sizes uniform in [10, 50], the last one cut to fit
  Fixed,         // all of size `size` (the last one shorter when size does not divide count)
  WithEmpty,     // random sizes 0-5, about a third of them empty, empty first and last too
};

constexpr EnumNames<Scenario, 4> enumNames(Scenario) {
  return {{{{Scenario::OneSegment, "one"},
            {Scenario::Random10To50, "random"},
            {Scenario::Fixed, "fixed"},
            {Scenario::WithEmpty, "empty"}}}};
}
// Throws std::invalid_argument on an unknown name (one, random, fixed, empty).
Scenario scenarioFromString(const std::string& name);

// Deterministic for a given seed. `size` is used by Fixed only (>= 1).
Segments makeSegments(Scenario s, uint32_t count, uint32_t size = 3, uint64_t seed = 1);

}  // namespace srt::reduction
