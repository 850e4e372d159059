#include <stdexcept>
#include <string>

#include "primitives/compaction/cuda/field_set.cuh"

namespace srt::compaction::gpu {

FieldSet makeFieldSet(const Request& r) {
  FieldSet fs;
  fs.count = r.numFields;
  for (int f = 0; f < r.numFields; ++f) {
    const Field& fd = r.fields[f];
    fs.src[f] = static_cast<const char*>(fd.src);
    fs.dst[f] = static_cast<char*>(fd.dst);
    fs.bytes[f] = fd.bytes;
    // The widest access that every element start of both arrays is aligned to.
    const uintptr_t align =
        reinterpret_cast<uintptr_t>(fd.src) | reinterpret_cast<uintptr_t>(fd.dst) | fd.bytes;
    fs.chunkLog[f] = (align & 15) == 0 ? 4 : (align & 7) == 0 ? 3 : 2;
  }
  return fs;
}

void writeZeroCount(const Request& r) {
  SRT_CUDA_CHECK(cudaMemsetAsync(r.numKept, 0, sizeof(uint32_t), r.stream));
}

void requireCuda(const Request& r, const char* primitive) {
  validate(r);
  if (r.memory != MemorySpace::Cuda)
    throw std::invalid_argument(std::string("compaction '") + primitive +
                                "' needs streams in CUDA memory");
}

}  // namespace srt::compaction::gpu
