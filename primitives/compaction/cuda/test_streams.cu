#include <stdexcept>

#include "primitives/common/cuda_check.h"
#include "primitives/compaction/cuda/test_streams.h"

namespace srt::compaction::testing {

FlagPattern parseFlagPattern(const std::string& name) {
  if (const std::optional<FlagPattern> p = enumFromString<FlagPattern>(name)) return *p;
  throw std::invalid_argument("unknown flag pattern '" + name + "' (known: " +
                              enumChoiceList<FlagPattern>() + ")");
}

uint64_t flagThreshold(const FlagSpec& s) {
  const double r = s.ratio < 0 ? 0 : s.ratio > 1 ? 1 : s.ratio;
  const double scale = s.pattern == FlagPattern::Blobs ? double(1 << 28) : 4294967296.0;
  return uint64_t(r * scale);
}

namespace {

__global__ void flagsKernel(uint8_t* keep, uint32_t n, FlagPattern p, uint64_t threshold,
                            uint32_t seed, bool varied) {
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += uint64_t(gridDim.x) * blockDim.x)
    keep[i] = flagAt(p, threshold, seed, varied, uint32_t(i));
}

__global__ void fieldKernel(uint32_t* dst, uint64_t words, uint32_t perElem, uint32_t field,
                            uint32_t seed) {
  for (uint64_t j = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < words;
       j += uint64_t(gridDim.x) * blockDim.x)
    dst[j] = wordAt(field, seed, uint32_t(j / perElem), uint32_t(j % perElem));
}

}  // namespace

void fillFlags(uint8_t* keep, uint32_t n, const FlagSpec& s, cudaStream_t stream) {
  if (n == 0) return;
  flagsKernel<<<2048, 256, 0, stream>>>(keep, n, s.pattern, flagThreshold(s), s.seed,
                                        s.variedValues);
  SRT_CUDA_CHECK_LAUNCH();
}

void fillField(void* dst, uint32_t n, uint32_t bytes, uint32_t field, uint32_t seed,
               cudaStream_t stream) {
  if (n == 0) return;
  fieldKernel<<<2048, 256, 0, stream>>>(static_cast<uint32_t*>(dst), uint64_t(n) * (bytes / 4),
                                        bytes / 4, field, seed);
  SRT_CUDA_CHECK_LAUNCH();
}

}  // namespace srt::compaction::testing
