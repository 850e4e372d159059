// Streams the GL compaction tests share: named flag patterns, the awkward sizes, the CPU
// reference, and a multi-field check that runs in host or CUDA memory.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "primitives/common/memory.h"
#include "primitives/compaction/compaction.h"
#include "primitives/compaction/gl/gl_compactors.h"

namespace srt::compaction::testing {

// Named flag patterns; `period` ones keep k of every 8, so with 8-element blocks the kept
// prefix reaches a multiple of 64 (the row width of small streams) exactly at block ends (k = 4)
// or crosses row ends inside segments (k = 5, 3).
inline std::vector<uint8_t> makeFlags(const std::string& pattern, uint32_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> f(n);
  auto ratio = [&](double p) {
    std::bernoulli_distribution d(p);
    for (auto& x : f) x = d(rng);
  };
  if (pattern == "none")
    std::fill(f.begin(), f.end(), 0);
  else if (pattern == "all")
    std::fill(f.begin(), f.end(), 1);
  else if (pattern == "half")
    ratio(0.5);
  else if (pattern == "sparse")
    ratio(0.03);
  else if (pattern == "dense")
    ratio(0.97);
  else if (pattern == "runs") {  // long runs of either, lengths up to 3000
    uint8_t v = 1;
    for (uint32_t i = 0; i < n;) {
      const uint32_t len = 1 + rng() % 3000;
      for (uint32_t j = i; j < std::min(n, i + len); ++j) f[j] = v;
      i += len;
      v ^= 1;
    }
  } else if (pattern.rfind("period", 0) == 0) {
    const uint32_t k = uint32_t(pattern.back() - '0');
    for (uint32_t i = 0; i < n; ++i) f[i] = (i % 8) < k;
  } else if (pattern == "last") {
    if (n) f[n - 1] = 1;
  }
  return f;
}

struct Case {
  uint32_t n;
  const char* pattern;
};
// 1 and 7: below every block; 64: exactly one row; 128, 129: one group of flag bits and one
// past it; 2048, 2049: the largest block and one past it; 1000, 5003: not multiples of any block.
inline const std::vector<Case>& awkwardCases() {
  static const std::vector<Case> cases{
      {1, "all"},        {1, "none"},       {7, "half"},     {7, "last"},     {64, "all"},
      {64, "half"},      {64, "period5"},   {100, "dense"},  {128, "half"},   {129, "dense"},
      {129, "last"},     {1000, "half"},    {1000, "none"},  {1000, "all"},   {1000, "period4"},
      {1000, "period5"}, {1000, "period3"}, {2048, "all"},   {2049, "half"},  {4096, "period4"},
      {5003, "half"},    {5003, "sparse"},  {5003, "dense"}, {20000, "runs"}, {33000, "half"}};
  return cases;
}

inline std::vector<uint32_t> reference(const std::vector<uint8_t>& keep) {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < keep.size(); ++i)
    if (keep[i]) out.push_back(i);
  return out;
}

// Compacts fields of the given sizes (word w of element i holds i * 16 + w, so every word says
// where it came from) in `memory`, and checks the count, the permutation the first field shows
// against the reference (sorted first when the primitive is not ordered), every other field
// against it, and that nothing is written past the survivors.
inline ::testing::AssertionResult compactsFields(Compactor& c, bool ordered,
                                                 const std::vector<uint32_t>& sizes,
                                                 const std::vector<uint8_t>& keep,
                                                 MemorySpace memory,
                                                 cudaStream_t stream = nullptr) {
  const uint32_t n = uint32_t(keep.size());
  const size_t numFields = sizes.size();
  std::vector<std::vector<uint32_t>> src(numFields);
  std::vector<Buffer<uint32_t>> dSrc(numFields), dDst(numFields);
  std::vector<Field> fields(numFields);
  for (size_t f = 0; f < numFields; ++f) {
    const uint32_t words = sizes[f] / 4;
    src[f].resize(size_t(n) * words);
    for (uint32_t i = 0; i < n; ++i)
      for (uint32_t w = 0; w < words; ++w) src[f][size_t(i) * words + w] = i * 16 + w;
    dSrc[f] = Buffer<uint32_t>(memory, src[f]);
    dDst[f] = Buffer<uint32_t>(memory, std::vector<uint32_t>(src[f].size(), 0xdeadbeef));
    fields[f] = {dSrc[f].data(), dDst[f].data(), sizes[f]};
  }
  Buffer<uint8_t> dKeep(memory, keep);
  Buffer<uint32_t> dKept(memory, std::vector<uint32_t>{0xffffffffu});
  Request r;
  r.keep = dKeep.data();
  r.fields = fields.data();
  r.numFields = int(numFields);
  r.count = n;
  r.numKept = dKept.data();
  r.memory = memory;
  r.stream = stream;
  c.compact(r);
  if (memory == MemorySpace::Cuda) SRT_CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::vector<uint32_t> want = reference(keep);
  const uint32_t kept = dKept.download()[0];
  if (kept != want.size())
    return ::testing::AssertionFailure()
           << "n = " << n << ": " << kept << " kept, want " << want.size();
  std::vector<std::vector<uint32_t>> dst(numFields);
  for (size_t f = 0; f < numFields; ++f) dst[f] = dDst[f].download();
  std::vector<uint32_t> order(kept);
  const uint32_t words0 = numFields ? sizes[0] / 4 : 0;
  for (uint32_t k = 0; k < kept && numFields; ++k) order[k] = dst[0][size_t(k) * words0] / 16;
  if (numFields == 0) return ::testing::AssertionSuccess();
  std::vector<uint32_t> sorted = order;
  if (!ordered) std::sort(sorted.begin(), sorted.end());
  if (sorted != want)
    return ::testing::AssertionFailure() << "n = " << n << ": the survivors differ from the "
                                         << "reference (first field)";
  for (size_t f = 0; f < numFields; ++f) {
    const uint32_t words = sizes[f] / 4;
    for (uint32_t k = 0; k < kept; ++k)
      for (uint32_t w = 0; w < words; ++w)
        if (dst[f][size_t(k) * words + w] != order[k] * 16 + w)
          return ::testing::AssertionFailure()
                 << "n = " << n << ": field " << f << " (" << sizes[f] << " bytes), element " << k;
    for (size_t w = size_t(kept) * words; w < dst[f].size(); ++w)
      if (dst[f][w] != 0xdeadbeefu)
        return ::testing::AssertionFailure()
               << "n = " << n << ": field " << f << " written past the survivors";
  }
  return ::testing::AssertionSuccess();
}

// Every registered GL primitive's name, then `extra` specs (option combinations worth a run).
inline std::vector<std::string> glSpecs(std::initializer_list<const char*> extra) {
  std::vector<std::string> out;
  for (const auto& e : Registry::global().entries())
    if (e.info.device == Device::Gl) out.push_back(e.info.name);
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

// A spec as a test name: "gl-roger:block=8" -> "gl_roger_block_8".
inline std::string specTestName(const ::testing::TestParamInfo<std::string>& p) {
  std::string s = p.param;
  for (char& ch : s)
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

// Whether the last call ran GL gather passes (the final pass did not write the fields itself).
inline bool ranGlGather(const Compactor& c) {
  for (const auto& [step, ms] : dynamic_cast<const gl::GlCompactor&>(c).lastStepTimes())
    if (step == "gather") return true;
  return false;
}

}  // namespace srt::compaction::testing
