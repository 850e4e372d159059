// Our tile compaction, in one pass over the stream and with the count kept on the device:
//   "lookback"    ordered: a tile's output offset comes from decoupled look-back (Merrill &
//                 Garland 2016) over the tiles before it, as in CUB's select agent;
//   "tile-atomic" unordered: one atomicAdd per tile of 4096 elements.
// What differs from CUB: flags are read first, 16 per thread in one 16-byte load; the block then
// lists its survivors in shared memory and copies only them, chunk by chunk, so dead elements'
// payload is never read and every store is a contiguous 16-byte vector across the block (for
// fields that allow it). The look-back words live in two arrays that calls take in turn, chosen
// on the device: a call clears the words the call before left in the other array, and its last
// tile hands the next call over, so no launch clears them and a launch captured in a CUDA graph
// and replayed finds its array clean (a call number passed as a parameter would repeat in every
// replay). The unordered counter is reset by the last tile to finish, so either variant is one
// launch.
#include <cuda/atomic>

#include "primitives/compaction/cuda/cuda_compactors.h"
#include "primitives/compaction/cuda/field_set.cuh"

namespace srt::compaction {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

// Look-back word: state (2 bits) | value (32 bits); 0 is "not yet published".
constexpr uint64_t kAggregate = 1, kPrefix = 2;

using Status = unsigned long long;

// The ordered variant's look-back arrays: two of `capacity` words; `turn` (device memory) holds
// which array the next call takes and how many words each array's last call published.
struct LookbackArrays {
  Status* words;
  uint32_t capacity;
  uint32_t* turn;  // [0]: the array of the next call; [1 + a]: the tiles of array a's last call
};

__device__ __forceinline__ void storeStatus(Status* s, uint64_t w) {
  ::cuda::atomic_ref<Status, ::cuda::thread_scope_device>(*s).store(w,
                                                                    ::cuda::memory_order_relaxed);
}
__device__ __forceinline__ uint64_t loadStatus(Status* s) {
  return ::cuda::atomic_ref<Status, ::cuda::thread_scope_device>(*s).load(
      ::cuda::memory_order_relaxed);
}

// 4 bits: which of the word's 4 bytes are non-zero (bit 7 of each 0xff byte moved to bits 28..31).
__device__ __forceinline__ uint32_t nonZeroBytes(uint32_t w) {
  return ((__vcmpne4(w, 0) & 0x80808080u) * 0x00204081u) >> 28;
}

template <int Items>
__device__ __forceinline__ uint32_t loadFlags(const uint8_t* __restrict__ keep, uint32_t n,
                                              bool aligned, uint64_t first) {
  uint32_t bits = 0;
  if (aligned && first + Items <= n) {
    if constexpr (Items == 16) {
      const uint4 v = __ldcs(reinterpret_cast<const uint4*>(keep + first));
      bits = nonZeroBytes(v.x) | nonZeroBytes(v.y) << 4 | nonZeroBytes(v.z) << 8 |
             nonZeroBytes(v.w) << 12;
    } else {
      const uint2 v = __ldcs(reinterpret_cast<const uint2*>(keep + first));
      bits = nonZeroBytes(v.x) | nonZeroBytes(v.y) << 4;
    }
  } else {
    for (int k = 0; k < Items; ++k)
      if (first + k < n && keep[first + k] != 0) bits |= 1u << k;
  }
  return bits;
}

// Run by warp 0: publishes this tile's count, sums the predecessors' counts 32 tiles at a time
// until one of them has published an inclusive prefix, and publishes this tile's prefix.
__device__ __forceinline__ uint32_t lookBack(Status* status, uint32_t tile, uint32_t total,
                                             int lane) {
  if (tile == 0) {
    if (lane == 0) storeStatus(&status[0], kPrefix << 32 | total);
    return 0;
  }
  if (lane == 0) storeStatus(&status[tile], kAggregate << 32 | total);
  uint32_t exclusive = 0;
  int64_t pred = int64_t(tile) - 1 - lane;  // lane 0 looks at the nearest predecessor
  while (true) {
    uint64_t w;
    uint32_t state;
    do {
      w = pred >= 0 ? loadStatus(&status[pred]) : (kPrefix << 32);
      state = uint32_t(w >> 32) & 3;
    } while (__any_sync(~0u, state == 0));
    const uint32_t prefixLanes = __ballot_sync(~0u, state == kPrefix);
    const int stop = prefixLanes ? __ffs(prefixLanes) - 1 : 31;
    uint32_t v = lane <= stop ? uint32_t(w) : 0;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(~0u, v, off);
    exclusive += v;
    if (prefixLanes) break;
    pred -= 32;
  }
  if (lane == 0) storeStatus(&status[tile], kPrefix << 32 | (exclusive + total));
  return exclusive;
}

// Preload (a single 4-byte field, the index stream): right after its flags, each thread issues the
// loads of its live keys (a 16-byte vector is skipped when none of its 4 elements survives), so
// their latency overlaps the scan and the look-back; survivors are then staged in shared memory in
// output order and stored contiguously. Otherwise survivors are listed and copied by blockCopy.
template <int Items, bool Ordered, bool Preload>
__global__ void __launch_bounds__(kThreads)
    tileKernel(const uint8_t* __restrict__ keep, uint32_t n, bool keepAligned,
               const gpu::FieldSet fs, uint32_t* __restrict__ numKept, LookbackArrays lookback,
               uint32_t* counters) {
  constexpr uint32_t kTile = kThreads * Items;
  __shared__ uint16_t local[Preload ? 1 : kTile];  // survivors' positions in the tile, in order
  __shared__ uint32_t stage[Preload ? kTile : 1];  // survivors' keys, in order
  __shared__ uint32_t warpTotals[kWarps];
  __shared__ uint32_t tileBase;
  const uint32_t tile = blockIdx.x;
  const uint64_t begin = uint64_t(tile) * kTile;
  const uint64_t first = begin + threadIdx.x * Items;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  Status* status = nullptr;
  uint32_t turn = 0;
  if constexpr (Ordered) {
    // Every tile reads the turn before it publishes, so the last tile (whose look-back waits for
    // all of them) may hand it on. The other array's words from the call before are cleared.
    turn = lookback.turn[0];
    status = lookback.words + size_t(turn) * lookback.capacity;
    Status* other = lookback.words + size_t(turn ^ 1) * lookback.capacity;
    const uint32_t stale = lookback.turn[1 + (turn ^ 1)];
    for (uint32_t i = tile * kThreads + threadIdx.x; i < stale; i += gridDim.x * kThreads)
      storeStatus(&other[i], 0);
  }

  uint32_t bits = loadFlags<Items>(keep, n, keepAligned, first);
  uint32_t keys[Items];
  if constexpr (Preload) {
    const uint32_t* src = reinterpret_cast<const uint32_t*>(fs.src[0]) + first;
    if (first + Items <= n) {
#pragma unroll
      for (int q = 0; q < Items / 4; ++q) {
        uint4 v = make_uint4(0, 0, 0, 0);
        if (bits >> (4 * q) & 0xf) v = __ldcs(reinterpret_cast<const uint4*>(src) + q);
        keys[4 * q] = v.x, keys[4 * q + 1] = v.y, keys[4 * q + 2] = v.z, keys[4 * q + 3] = v.w;
      }
    } else {
#pragma unroll
      for (int k = 0; k < Items; ++k) keys[k] = bits >> k & 1 ? src[k] : 0;
    }
  }
  const uint32_t count = __popc(bits);
  const uint32_t inclusive = gpu::warpInclusiveSum(count, lane);
  if (lane == 31) warpTotals[warp] = inclusive;
  __syncthreads();
  uint32_t rank = inclusive - count, total = 0;
#pragma unroll
  for (int w = 0; w < kWarps; ++w) {
    const uint32_t t = warpTotals[w];
    rank += w < warp ? t : 0;
    total += t;
  }
  // The tile offset first, so that the count is published as early as possible.
  if (Ordered) {
    if (warp == 0) {
      const uint32_t base = lookBack(status, tile, total, lane);
      if (lane == 0) {
        tileBase = base;
        if (tile == gridDim.x - 1) {
          *numKept = base + total;
          lookback.turn[1 + turn] = gridDim.x;  // the next call clears these
          lookback.turn[0] = turn ^ 1;
        }
      }
    }
  } else if (threadIdx.x == 0) {
    // counters[0]: survivors placed so far; counters[1]: tiles done. The last tile publishes the
    // count and clears both for the next call.
    tileBase = total ? atomicAdd(&counters[0], total) : 0;
    __threadfence();
    if (atomicAdd(&counters[1], 1) == gridDim.x - 1) {
      *numKept = atomicExch(&counters[0], 0);
      atomicExch(&counters[1], 0);
    }
  }
  if constexpr (Preload) {
#pragma unroll
    for (int k = 0; k < Items; ++k)
      if (bits >> k & 1) stage[rank++] = keys[k];
  } else {
    while (bits) {
      local[rank++] = uint16_t(threadIdx.x * Items + __ffs(bits) - 1);
      bits &= bits - 1;
    }
  }

  __syncthreads();
  if constexpr (Preload) {
    uint32_t* dst = reinterpret_cast<uint32_t*>(fs.dst[0]) + tileBase;
    for (uint32_t j = threadIdx.x; j < total; j += kThreads) dst[j] = stage[j];
  } else {
    gpu::blockCopy(fs, local, total, begin, tileBase);
  }
}

template <bool Ordered>
auto pickKernel(int items, bool preload) {
  if (items == 16) return preload ? tileKernel<16, Ordered, true> : tileKernel<16, Ordered, false>;
  return preload ? tileKernel<8, Ordered, true> : tileKernel<8, Ordered, false>;
}

template <bool Ordered>
class TileCompactor final : public Compactor {
 public:
  TileCompactor(int items, bool preload) : items_(items), preload_(preload) {}
  void reserve(uint32_t maxCount) override { grow(maxCount); }

  void compact(const Request& r) override {
    gpu::requireCuda(r, Ordered ? "lookback" : "tile-atomic");
    if (r.count == 0) return gpu::writeZeroCount(r);
    grow(r.count);
    const uint32_t tile = kThreads * items_;
    const uint32_t tiles = uint32_t((uint64_t(r.count) + tile - 1) / tile);
    const bool aligned = reinterpret_cast<uintptr_t>(r.keep) % 16 == 0;
    const gpu::FieldSet fs = gpu::makeFieldSet(r);
    const bool preload = preload_ && fs.count == 1 && fs.bytes[0] == 4 &&
                         reinterpret_cast<uintptr_t>(fs.src[0]) % 16 == 0;
    pickKernel<Ordered>(items_, preload)<<<tiles, kThreads, 0, r.stream>>>(
        r.keep, r.count, aligned, fs, r.numKept,
        LookbackArrays{status_.data(), capacity_, turn_.data()}, counters_.data());
    SRT_CUDA_CHECK_LAUNCH();
  }

 private:
  void grow(uint32_t count) {
    if (counters_.empty()) {
      counters_ = Buffer<uint32_t>(MemorySpace::Cuda, 2);
      counters_.fillBytes(0);
    }
    const size_t tiles = (size_t(count) + 8 * kThreads - 1) / (8 * kThreads);  // smallest tile
    if (!Ordered || capacity_ >= tiles) return;
    status_ = Buffer<Status>(MemorySpace::Cuda, 2 * tiles);
    status_.fillBytes(0);
    turn_ = Buffer<uint32_t>(MemorySpace::Cuda, 3);
    turn_.fillBytes(0);
    capacity_ = uint32_t(tiles);
  }

  int items_;
  bool preload_;
  uint32_t capacity_ = 0;  // look-back words in each of the two arrays
  Buffer<Status> status_;
  Buffer<uint32_t> turn_;
  Buffer<uint32_t> counters_;
};

// items and preload were checked against the registration (register_cuda.cpp).
template <bool Ordered>
std::unique_ptr<Compactor> makeTile(OptionReader& o) {
  return std::make_unique<TileCompactor<Ordered>>(o.getInt("items", 16),
                                                  o.getInt("preload", 1) == 1);
}

}  // namespace

std::unique_ptr<Compactor> makeLookback(OptionReader& o) {
  return makeTile<true>(o);
}
std::unique_ptr<Compactor> makeTileAtomic(OptionReader& o) {
  return makeTile<false>(o);
}

}  // namespace srt::compaction
