#include "bench/compaction/bench_verify.h"

#include <algorithm>

#include "primitives/compaction/cuda/test_streams.h"

namespace srt::compaction::bench {

std::string verifyOutput(const std::vector<uint8_t>& flags, const std::vector<uint32_t>& out,
                         uint32_t kept, uint32_t words, uint32_t seed, bool ordered) {
  const int64_t n = int64_t(flags.size());
  std::vector<uint32_t> expected;
  expected.reserve(kept);
  for (int64_t i = 0; i < n; ++i)
    if (flags[i]) expected.push_back(uint32_t(i));
  if (expected.size() != kept)
    return "numKept " + std::to_string(kept) + ", expected " + std::to_string(expected.size());
  const uint32_t mask = testing::fieldMask(0, seed);
  std::vector<uint8_t> seen(ordered ? 0 : n, 0);
  int64_t bad = -1;
#pragma omp parallel for reduction(max : bad)
  for (int64_t k = 0; k < int64_t(kept); ++k) {
    const uint32_t i = out[size_t(k) * words] ^ mask;
    bool ok = i < n && flags[i] != 0 && (!ordered || i == expected[k]);
    for (uint32_t w = 1; ok && w < words; ++w)
      ok = out[size_t(k) * words + w] == testing::wordAt(0, seed, i, w);
    if (ok && !ordered) {
      uint8_t prev;
#pragma omp atomic capture
      {
        prev = seen[i];
        seen[i] = 1;
      }
      ok = prev == 0;  // each survivor once
    }
    if (!ok) bad = std::max<int64_t>(bad, int64_t(kept) - k);
  }
  if (bad >= 0) return "wrong element at output slot " + std::to_string(int64_t(kept) - bad);
  return {};
}

}  // namespace srt::compaction::bench
