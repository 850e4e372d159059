// The default Compactor::prepare(): scratch reserved, then a short compaction of every layout the
// caller will use, so that lazy kernel loading and first-use allocation happen before its frames.
#include <algorithm>

#include "primitives/compaction/compaction.h"

namespace srt::compaction {
namespace {
constexpr uint32_t kPrepareCount = 1000;  // not a multiple of any block: partial tiles load too
}  // namespace

void Compactor::prepare(const Preparation& p) {
  reserve(p.maxCount);
  const uint32_t n = std::min(p.maxCount, kPrepareCount);
  if (n == 0) return;
  Buffer<uint8_t> keep(p.memory, n);
  std::vector<uint8_t> flags(n);
  for (uint32_t i = 0; i < n; ++i) flags[i] = uint8_t(i % 3 != 0);
  keep.upload(flags);
  Buffer<uint32_t> numKept(p.memory, 1);
  for (const std::vector<uint32_t>& layout : p.layouts) {
    if (int(layout.size()) > kMaxFields) continue;  // compact() would refuse it anyway
    std::vector<Buffer<uint8_t>> storage;
    std::vector<Field> fields;
    for (uint32_t bytes : layout) {
      storage.emplace_back(p.memory, size_t(n) * bytes);
      storage.back().fillBytes(0);
      storage.emplace_back(p.memory, size_t(n) * bytes);
      fields.push_back({storage[storage.size() - 2].data(), storage.back().data(), bytes});
    }
    Request r;
    r.keep = keep.data();
    r.fields = fields.data();
    r.numFields = int(fields.size());
    r.count = n;
    r.numKept = numKept.data();
    r.memory = p.memory;
    r.stream = p.stream;
    compact(r);
  }
  if (p.memory == MemorySpace::Cuda) SRT_CUDA_CHECK(cudaStreamSynchronize(p.stream));
}

}  // namespace srt::compaction
