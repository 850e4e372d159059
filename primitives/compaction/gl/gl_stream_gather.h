// The payload moved on the stream's own side, from the survivors' indices GL computed: a CUDA
// gather for streams in CUDA memory, a host loop for host streams. GL then writes four bytes per
// survivor (its index) instead of every field; the fields move where they live, at that memory's
// speed.
#pragma once

#include <cuda_runtime_api.h>

#include "primitives/compaction/compaction.h"

namespace srt::compaction::gl {

// dst[k] = src[indices[k]] for k < kept in every field of `r`, then kept to r.numKept, queued on
// `stream` (`indices` in CUDA memory; null when there are no fields or kept is 0).
void gatherOnCuda(const Request& r, const uint32_t* indices, uint32_t kept, cudaStream_t stream);
// The same with the indices read from GL's output texture through `texture` (a CUDA texture
// object over it): index k in texel k / perTexel (1 or 4 per texel) of a row-major texture
// 2^widthLog2 texels wide. With `deviceCount` (CUDA memory) the count is read there and `kept` is
// only its upper bound (the grid's size).
// With `bands` (quad texels only), texel t lies in bands of two rows: column (t mod 2w) / 2, row
// 2 (t / 2w) + t mod 2.
void gatherOnCudaFromTexture(const Request& r, cudaTextureObject_t texture, uint32_t widthLog2,
                             uint32_t perTexel, uint32_t kept, cudaStream_t stream,
                             const uint32_t* deviceCount = nullptr, bool bands = false);
// The same for host memory (OpenMP threads), done when it returns.
void gatherOnHost(const Request& r, const uint32_t* indices, uint32_t kept);

}  // namespace srt::compaction::gl
