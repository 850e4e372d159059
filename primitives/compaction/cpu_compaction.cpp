// The CPU family: a parallel ordered compaction (count per chunk, scan the chunk counts, copy)
// and "none", the baseline that keeps dead lanes in place.
#include <omp.h>

#include <cstring>
#include <stdexcept>
#include <vector>

#include "primitives/compaction/compaction.h"

namespace srt::compaction {
namespace {

class CpuCompactor final : public Compactor {
 public:
  void compact(const Request& r) override {
    validate(r);
    if (r.memory != MemorySpace::Host)
      throw std::invalid_argument("compaction 'cpu' needs streams in host memory");
    const int64_t n = r.count;
    // Chunks of at least 64K elements: below that, threads cost more than they save.
    const int chunks = int(std::max<int64_t>(1, std::min<int64_t>(omp_get_max_threads(), n >> 16)));
    std::vector<uint32_t> offset(chunks + 1, 0);
    auto chunkBegin = [&](int c) { return n * c / chunks; };

#pragma omp parallel for num_threads(chunks) schedule(static, 1)
    for (int c = 0; c < chunks; ++c) {
      uint32_t kept = 0;
      for (int64_t i = chunkBegin(c); i < chunkBegin(c + 1); ++i) kept += r.keep[i] != 0;
      offset[c + 1] = kept;
    }
    for (int c = 0; c < chunks; ++c) offset[c + 1] += offset[c];

#pragma omp parallel for num_threads(chunks) schedule(static, 1)
    for (int c = 0; c < chunks; ++c) {
      uint32_t out = offset[c];
      for (int64_t i = chunkBegin(c); i < chunkBegin(c + 1); ++i) {
        if (!r.keep[i]) continue;
        for (int f = 0; f < r.numFields; ++f) {
          const Field& fd = r.fields[f];
          std::memcpy(static_cast<char*>(fd.dst) + size_t(out) * fd.bytes,
                      static_cast<const char*>(fd.src) + size_t(i) * fd.bytes, fd.bytes);
        }
        ++out;
      }
    }
    *r.numKept = offset[chunks];
  }
};

// "none" moves nothing: the caller sees compacts == false and keeps dead lanes in the stream,
// which return early in every stage. The count it reports is the stream's full length.
class NoCompactor final : public Compactor {
 public:
  void compact(const Request& r) override {
    validate(r);
    if (r.memory == MemorySpace::Cuda)
      SRT_CUDA_CHECK(cudaMemcpyAsync(r.numKept, &r.count, sizeof(uint32_t),
                                     cudaMemcpyHostToDevice, r.stream));
    else
      *r.numKept = r.count;
  }
};

}  // namespace

void registerCpuCompactors(Registry& r) {
  r.add({"cpu", Device::Cpu, true, true, {MemorySpace::Host},
         "parallel CPU compaction: per-thread counts, scan, ordered copy (OpenMP)"},
        [](OptionReader&) { return std::make_unique<CpuCompactor>(); });
  r.add({"none", Device::Any, true, false, {MemorySpace::Host, MemorySpace::Cuda},
         "no compaction: dead rays stay in the stream and return early (the baseline)"},
        [](OptionReader&) { return std::make_unique<NoCompactor>(); });
}

}  // namespace srt::compaction
