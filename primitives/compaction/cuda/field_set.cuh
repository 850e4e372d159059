// The fields of a compaction Request as one kernel parameter, and the two ways the CUDA family
// moves a survivor: one thread copies a whole element (the papers' kernels), or a thread block
// copies a tile's survivors chunk by chunk so that loads and stores are contiguous 16-byte
// vectors across the block (our tile kernels).
#pragma once

#include "primitives/compaction/cuda/warp_ops.cuh"

#include <cuda_runtime.h>

#include <cstdint>

#include "primitives/compaction/compaction.h"

namespace srt::compaction::gpu {

// Passed by value (about 330 bytes of kernel parameters). chunkLog is log2 of the widest access
// (4, 8 or 16 bytes) that divides the element size and both pointers' alignment.
struct FieldSet {
  const char* src[kMaxFields];
  char* dst[kMaxFields];
  uint32_t bytes[kMaxFields];
  uint8_t chunkLog[kMaxFields];
  int count = 0;
};

// Host side: copies the Request's fields and picks each field's vector width.
FieldSet makeFieldSet(const Request& r);

// Writes 0 to numKept (stream-ordered), for empty streams.
void writeZeroCount(const Request& r);

// Throws unless the Request lives in CUDA memory (the family's one memory space).
void requireCuda(const Request& r, const char* primitive);

template <int Log>
struct Chunk;
template <>
struct Chunk<2> {
  using T = uint32_t;
};
template <>
struct Chunk<3> {
  using T = uint2;
};
template <>
struct Chunk<4> {
  using T = uint4;
};

template <int Log>
__device__ __forceinline__ void copyChunks(const char* __restrict__ src, char* __restrict__ dst,
                                           uint32_t bytes) {
  using T = typename Chunk<Log>::T;
  const T* s = reinterpret_cast<const T*>(src);
  T* d = reinterpret_cast<T*>(dst);
  const uint32_t n = bytes >> Log;
#pragma unroll 4
  for (uint32_t c = 0; c < n; ++c) d[c] = s[c];
}

// One thread moves element `from` of every field to slot `to` (papers' kernels: thread = element).
__device__ __forceinline__ void copyElement(const FieldSet& fs, uint64_t from, uint64_t to) {
  for (int f = 0; f < fs.count; ++f) {
    const uint32_t b = fs.bytes[f];
    const char* s = fs.src[f] + from * b;
    char* d = fs.dst[f] + to * b;
    switch (fs.chunkLog[f]) {
      case 4:
        copyChunks<4>(s, d, b);
        break;
      case 3:
        copyChunks<3>(s, d, b);
        break;
      default:
        copyChunks<2>(s, d, b);
        break;
    }
  }
}

// A block moves `kept` survivors of one tile: survivor k is element tileBegin + local[k] and goes
// to slot base + k. Work item j is chunk j % perElem of survivor j / perElem, so consecutive
// threads touch consecutive chunks: stores are fully coalesced vectors, loads read only live
// elements. Each thread issues kBatch loads before its stores, so several are in flight even
// where the compiler cannot prove that src and dst do not alias.
template <int Log, typename Index, typename Slot>
__device__ __forceinline__ void blockCopyBatched(const typename Chunk<Log>::T* s,
                                                 typename Chunk<Log>::T* d, uint32_t items,
                                                 Slot slot) {
  constexpr int kBatch = 4;
  using T = typename Chunk<Log>::T;
  for (uint32_t j0 = threadIdx.x; j0 < items; j0 += kBatch * blockDim.x) {
    T v[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const uint32_t j = j0 + u * blockDim.x;
      if (j < items) v[u] = s[slot(j)];
    }
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const uint32_t j = j0 + u * blockDim.x;
      if (j < items) d[j] = v[u];
    }
  }
}

template <int Log, typename Index>
__device__ __forceinline__ void blockCopyField(const char* __restrict__ src, char* __restrict__ dst,
                                               uint32_t bytes, const Index* local, uint32_t kept,
                                               uint64_t tileBegin, uint64_t base) {
  using T = typename Chunk<Log>::T;
  const uint32_t perElem = bytes >> Log;
  const T* s = reinterpret_cast<const T*>(src);
  T* d = reinterpret_cast<T*>(dst) + base * perElem;
  const uint32_t items = kept * perElem;
  if (perElem == 1) {
    blockCopyBatched<Log, Index>(s, d, items, [&](uint32_t j) { return tileBegin + local[j]; });
  } else if ((perElem & (perElem - 1)) == 0) {
    const uint32_t shift = __ffs(perElem) - 1;
    blockCopyBatched<Log, Index>(s, d, items, [&](uint32_t j) {
      return (tileBegin + local[j >> shift]) * perElem + (j & (perElem - 1));
    });
  } else {
    blockCopyBatched<Log, Index>(s, d, items, [&](uint32_t j) {
      const uint32_t k = j / perElem;
      return (tileBegin + local[k]) * perElem + (j - k * perElem);
    });
  }
}

template <typename Index>
__device__ __forceinline__ void blockCopy(const FieldSet& fs, const Index* local, uint32_t kept,
                                          uint64_t tileBegin, uint64_t base) {
  for (int f = 0; f < fs.count; ++f) {
    switch (fs.chunkLog[f]) {
      case 4:
        blockCopyField<4>(fs.src[f], fs.dst[f], fs.bytes[f], local, kept, tileBegin, base);
        break;
      case 3:
        blockCopyField<3>(fs.src[f], fs.dst[f], fs.bytes[f], local, kept, tileBegin, base);
        break;
      default:
        blockCopyField<2>(fs.src[f], fs.dst[f], fs.bytes[f], local, kept, tileBegin, base);
        break;
    }
  }
}

}  // namespace srt::compaction::gpu
