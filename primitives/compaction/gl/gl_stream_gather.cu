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

// The same, each index read from GL's output texture: consecutive threads read the same texel
// (4 per texel) or neighbours in a row, so the texture cache serves them.
template <bool Quad>
__global__ void gatherTextureKernel(gpu::FieldSet fs, cudaTextureObject_t texture,
                                    uint32_t widthLog2, bool fields, uint32_t kept,
                                    const uint32_t* __restrict__ deviceCount, uint32_t* numKept,
                                    bool bands) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (deviceCount) kept = *deviceCount;
  if (k == 0) *numKept = kept;
  if (!fields || k >= kept) return;
  const uint32_t t = Quad ? k >> 2 : k;
  float x = float(t & ((1u << widthLog2) - 1)) + 0.5f, y = float(t >> widthLog2) + 0.5f;
  if (Quad && bands) {  // bands of two rows: column (t mod 2w) / 2, row 2 (t / 2w) + t mod 2
    x = float((t & ((2u << widthLog2) - 1)) >> 1) + 0.5f;
    y = float(((t >> (widthLog2 + 1)) << 1) | (t & 1)) + 0.5f;
  }
  uint32_t index;
  if (Quad) {
    const uint4 v = tex2D<uint4>(texture, x, y);
    const uint32_t c = k & 3;
    index = c == 0 ? v.x : c == 1 ? v.y : c == 2 ? v.z : v.w;
  } else {
    index = tex2D<uint32_t>(texture, x, y);
  }
  gpu::copyElement(fs, index, k);
}

}  // namespace

void gatherOnCudaFromTexture(const Request& r, cudaTextureObject_t texture, uint32_t widthLog2,
                             uint32_t perTexel, uint32_t kept, cudaStream_t stream,
                             const uint32_t* deviceCount, bool bands) {
  const gpu::FieldSet fs = gpu::makeFieldSet(r);
  const uint32_t threads = 256;
  const bool fields = fs.count > 0;
  const uint32_t blocks = std::max(1u, ((fields ? kept : 0) + threads - 1) / threads);
  if (perTexel == 4)
    gatherTextureKernel<true><<<blocks, threads, 0, stream>>>(fs, texture, widthLog2, fields, kept,
                                                              deviceCount, r.numKept, bands);
  else
    gatherTextureKernel<false><<<blocks, threads, 0, stream>>>(fs, texture, widthLog2, fields, kept,
                                                               deviceCount, r.numKept, false);
  SRT_CUDA_CHECK_LAUNCH();
}

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
