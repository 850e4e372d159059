#include <algorithm>
#include <cstring>

#include "primitives/common/cuda_check.h"
#include "primitives/compaction/cuda/field_set.cuh"
#include "primitives/compaction/gl/gl_stream_gather.h"

namespace srt::compaction::gl {
namespace {

// One thread per survivor; consecutive survivors are written to consecutive slots, and read from
// increasing (ordered variants) indices.
// `moved` survivors are gathered (0 for a count-only request), `kept` goes to numKept.
__global__ void gatherKernel(gpu::FieldSet fs, const uint32_t* __restrict__ indices, uint32_t moved,
                             uint32_t kept, uint32_t* numKept) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k == 0) *numKept = kept;
  if (k < moved) gpu::copyElement(fs, indices[k], k);
}

}  // namespace

void gatherOnCuda(const Request& r, const uint32_t* indices, uint32_t kept, cudaStream_t stream) {
  const gpu::FieldSet fs = gpu::makeFieldSet(r);
  const uint32_t threads = 256;
  const uint32_t moved = fs.count > 0 && indices ? kept : 0;
  const uint32_t blocks = std::max(1u, (moved + threads - 1) / threads);
  gatherKernel<<<blocks, threads, 0, stream>>>(fs, indices, moved, kept, r.numKept);
  SRT_CUDA_CHECK_LAUNCH();
}

void gatherOnHost(const Request& r, const uint32_t* indices, uint32_t kept) {
  for (int f = 0; f < r.numFields && kept > 0; ++f) {
    const auto* src = static_cast<const char*>(r.fields[f].src);
    auto* dst = static_cast<char*>(r.fields[f].dst);
    const size_t bytes = r.fields[f].bytes;
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < int64_t(kept); ++k)
      std::memcpy(dst + size_t(k) * bytes, src + size_t(indices[k]) * bytes, bytes);
  }
  *r.numKept = kept;
}

}  // namespace srt::compaction::gl
