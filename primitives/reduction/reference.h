// CPU reference reductions (what every GPU variant is tested against) and conversions between
// the two segment descriptions. Plain sequential loops in input order: the definition of right.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace srt::reduction {

template <typename T, typename Op>
T referenceReduce(const std::vector<T>& in, Op op = Op()) {
  T acc = Op::identity();
  for (const T& x : in) acc = op(acc, x);
  return acc;
}

// out[s] = reduction of [offsets[s], offsets[s+1]); empty segments give the identity.
template <typename T, typename Op>
std::vector<T> referenceSegmentedReduce(const std::vector<T>& in,
                                        const std::vector<uint32_t>& offsets, Op op = Op()) {
  if (offsets.empty() || offsets.back() != in.size())
    throw std::invalid_argument("referenceSegmentedReduce: offsets must end at the input size " +
                                std::to_string(in.size()));
  std::vector<T> out(offsets.size() - 1, Op::identity());
  for (size_t s = 0; s + 1 < offsets.size(); ++s)
    for (uint32_t i = offsets[s]; i < offsets[s + 1]; ++i) out[s] = op(out[s], in[i]);
  return out;
}

// owners[i] = the segment holding element i (non-decreasing).
std::vector<uint32_t> ownersFromOffsets(const std::vector<uint32_t>& offsets);
// Throws std::invalid_argument when owners decrease or reach numSegments.
std::vector<uint32_t> offsetsFromOwners(const std::vector<uint32_t>& owners, uint32_t numSegments);

}  // namespace srt::reduction
