// "mergepath": our segmented reduction, built to hold at both extremes (one huge segment;
// millions of tiny or empty ones). It reads the offsets layout and balances work by items AND
// segment boundaries, as moderngpu's segreduce does: the input is the merge of the N items with the
// S segment ends (end s sorts before item j when offsets[s+1] <= j), and every block takes the
// same number NV = B * VT of merge steps, whatever the segment sizes.
//   1. partition: one binary search per block boundary on the merge path (S + N steps), in a
//      kernel of its own, or inside each block when there are at most 64 segments;
//   2. tiles: a block stages its items and segment ends in shared memory; each thread walks VT
//      steps, writes every segment that starts and ends inside its steps, and keeps the partial
//      before its first end (head) and after its last (tail); a block-wide exclusive scan of
//      (ended, tail) pairs gives each thread the partial its first segment began with;
//      segments that began before the block leave one head value per block;
//   3. fix-up: an exclusive scan of the per-block (ended, tail) pairs (cub::DeviceScan) and one
//      thread per block that writes out[first segment] = carry-in op head. ("mergepath-fused" does
//      both in one single-block launch instead: measured slower on H100, 3-30 us, kept to compare.)
// Every segment is written exactly once (no read-modify-write, no output fill); empty segments
// are merge steps like any other and get the identity. Order is kept: non-commutative is fine.
#pragma once

#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include "primitives/reduction/device_common.cuh"

namespace srt::reduction::detail {

// (ended, value) under "value of the segment in progress": the right operand wins when it ended.
template <typename T>
struct EndedValue {
  uint32_t ended;
  T value;
};
template <typename T, typename Op>
struct EndedOp {
  __host__ __device__ __forceinline__ EndedValue<T> operator()(const EndedValue<T>& a,
                                                               const EndedValue<T>& b) const {
    return {a.ended | b.ended, b.ended ? b.value : Op()(a.value, b.value)};
  }
};

constexpr int kMpThreads = 256;
// Odd VT for 4-byte values: thread t reads shared slots t*VT + k, conflict-free across a warp.
template <typename T>
constexpr int mergePathVt() {
  return sizeof(T) <= 4 ? 15 : 7;
}

// Segment ends consumed before merge step d (A-first on ties): a binary search over offsets.
__device__ __forceinline__ uint32_t mergePathSearch(const uint32_t* __restrict__ offsets,
                                                    uint32_t numSegments, uint32_t count,
                                                    uint64_t d) {
  uint32_t lo = d > count ? uint32_t(d - count) : 0;
  uint32_t hi = uint32_t(min(d, uint64_t(numSegments)));
  while (lo < hi) {
    const uint32_t mid = (lo + hi) / 2;
    if (offsets[mid + 1] <= d - 1 - mid)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// split[t] = segment ends consumed before merge step t * NV.
template <int NV>
__global__ void mergePathPartition(const uint32_t* __restrict__ offsets, uint32_t numSegments,
                                   uint32_t count, uint32_t numTiles,
                                   uint32_t* __restrict__ split) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t > numTiles) return;
  split[t] = mergePathSearch(offsets, numSegments, count,
                             min(uint64_t(t) * NV, uint64_t(count) + numSegments));
}

// With few segments (a kd-tree's large nodes, one huge segment) each tile searches its own two
// splits (at most log2(64) = 6 probes, L2-resident) and saves the partition launch.
constexpr uint32_t kSearchInTileMaxSegments = 64;

template <typename T, typename Op, int VT>
__global__ void __launch_bounds__(kMpThreads)
    mergePathTiles(const T* __restrict__ in, const uint32_t* __restrict__ offsets,
                   uint32_t numSegments, uint32_t count, uint32_t* split, bool searchHere,
                   T* __restrict__ out, EndedValue<T>* __restrict__ tileCarry,
                   T* __restrict__ tileHead) {
  constexpr int NV = kMpThreads * VT;
  using Scan = cub::BlockScan<EndedValue<T>, kMpThreads>;
  __shared__ typename Scan::TempStorage scanStorage;
  extern __shared__ __align__(16) unsigned char smem[];
  T* sv = reinterpret_cast<T*>(smem);
  uint32_t* se = reinterpret_cast<uint32_t*>(sv + NV);

  const Op op{};
  const uint32_t tid = threadIdx.x, tile = blockIdx.x;
  const uint64_t total = uint64_t(count) + numSegments;
  const uint64_t d0 = uint64_t(tile) * NV;
  const uint64_t d1 = min(d0 + NV, total);
  uint32_t s0, s1;
  if (searchHere) {
    __shared__ uint32_t sSplit[2];
    if (tid == 0) sSplit[0] = mergePathSearch(offsets, numSegments, count, d0);
    if (tid == 32) sSplit[1] = mergePathSearch(offsets, numSegments, count, d1);
    __syncthreads();
    s0 = sSplit[0];
    s1 = sSplit[1];
    if (tid == 0) split[tile] = s0;  // for the carry fix-up
    if (tid == 0 && tile + 1 == gridDim.x) split[tile + 1] = s1;
  } else {
    s0 = split[tile];
    s1 = split[tile + 1];
  }
  const uint32_t i0 = uint32_t(d0 - s0), i1 = uint32_t(d1 - s1);
  const uint32_t ni = i1 - i0, ns = s1 - s0;
  {
    // All of a thread's loads are issued before the first shared store: VT loads in flight per
    // thread instead of one (a plain strided copy loop ran at half the bandwidth).
    T rv[VT];
    uint32_t re[VT];
#pragma unroll
    for (int k = 0; k < VT; ++k) {
      const uint32_t j = k * kMpThreads + tid;
      if (j < ni) rv[k] = in[i0 + j];
      if (j < ns) re[k] = offsets[s0 + j + 1];
    }
#pragma unroll
    for (int k = 0; k < VT; ++k) {
      const uint32_t j = k * kMpThreads + tid;
      if (j < ni) sv[j] = rv[k];
      if (j < ns) se[j] = re[k];
    }
  }
  __syncthreads();

  // This thread's start on the tile's merge path.
  const uint32_t steps = ni + ns;
  const uint32_t dt = min(tid * VT, steps);
  uint32_t lo = dt > ni ? dt - ni : 0, hi = min(dt, ns);
  while (lo < hi) {
    const uint32_t mid = (lo + hi) / 2;
    if (se[mid] <= i0 + (dt - 1 - mid))
      lo = mid + 1;
    else
      hi = mid;
  }
  uint32_t si = lo, ii = dt - lo;
  const uint32_t end = min(dt + VT, steps);

  T acc = Op::identity(), head = Op::identity();
  bool ended = false;
  uint32_t headSeg = 0;
#pragma unroll
  for (int k = 0; k < VT; ++k) {
    if (dt + k < end) {
      const bool emit = si < ns && (ii >= ni || se[si] <= i0 + ii);
      if (emit) {
        if (!ended) {
          head = acc;
          headSeg = s0 + si;
          ended = true;
        } else {
          out[s0 + si] = acc;  // began and ended inside this thread's steps
        }
        acc = Op::identity();
        ++si;
      } else {
        acc = op(acc, sv[ii]);
        ++ii;
      }
    }
  }

  EndedValue<T> mine{ended ? 1u : 0u, acc}, before, tileTotal;
  Scan(scanStorage)
      .ExclusiveScan(mine, before, EndedValue<T>{0u, Op::identity()}, EndedOp<T, Op>{}, tileTotal);
  if (ended) {
    const T v = op(before.value, head);
    if (before.ended)
      out[headSeg] = v;  // the segment began inside this tile
    else
      tileHead[tile] = v;  // the tile's first end: its segment may have begun in earlier tiles
  }
  if (tid == 0) tileCarry[tile] = tileTotal;
}

template <typename T, typename Op>
__global__ void mergePathFixup(const uint32_t* __restrict__ split, uint32_t numTiles,
                               const EndedValue<T>* __restrict__ carryIn,
                               const T* __restrict__ tileHead, T* __restrict__ out) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < numTiles && split[t + 1] > split[t]) out[split[t]] = Op()(carryIn[t].value, tileHead[t]);
}

// The fix-up in one launch ("mergepath-fused"): one block scans the per-tile carries in chunks
// (each thread owns Items consecutive tiles) and writes every tile's first segment. Saves two
// launches but runs on one SM: slower than cub::DeviceScan + mergePathFixup from ~10K tiles up.
constexpr int kCarryThreads = 1024;
constexpr int kCarryItems = 8;

template <typename T, typename Op>
__global__ void __launch_bounds__(kCarryThreads)
    mergePathCarry(const uint32_t* __restrict__ split, uint32_t numTiles,
                   const EndedValue<T>* __restrict__ tileCarry, const T* __restrict__ tileHead,
                   T* __restrict__ out) {
  using Scan = cub::BlockScan<EndedValue<T>, kCarryThreads>;
  __shared__ typename Scan::TempStorage storage;
  const Op op{};
  const EndedOp<T, Op> ended{};
  const EndedValue<T> none{0u, Op::identity()};
  EndedValue<T> running = none;  // the carry into the current chunk
  for (uint32_t base = 0; base < numTiles; base += kCarryThreads * kCarryItems) {
    const uint32_t first = base + threadIdx.x * kCarryItems;
    EndedValue<T> v[kCarryItems];
#pragma unroll
    for (int k = 0; k < kCarryItems; ++k) v[k] = first + k < numTiles ? tileCarry[first + k] : none;
    EndedValue<T> mine = v[0];
#pragma unroll
    for (int k = 1; k < kCarryItems; ++k) mine = ended(mine, v[k]);
    EndedValue<T> before, total;
    Scan(storage).ExclusiveScan(mine, before, none, ended, total);
    EndedValue<T> c = ended(running, before);
#pragma unroll
    for (int k = 0; k < kCarryItems; ++k) {
      const uint32_t t = first + k;
      if (t < numTiles && split[t + 1] > split[t]) out[split[t]] = op(c.value, tileHead[t]);
      c = ended(c, v[k]);
    }
    running = ended(running, total);
    __syncthreads();  // the scan storage is reused by the next chunk
  }
}

// FusedCarry = true: the single-block fix-up ("mergepath-fused", for comparison).
template <typename T, typename Op, bool FusedCarry = false>
class MergePathReducer final : public Reducer<T, Op> {
 public:
  static constexpr int VT = mergePathVt<T>();
  static constexpr int NV = kMpThreads * VT;

  explicit MergePathReducer(Info info) : info_(std::move(info)) {}

  void reserve(uint32_t maxCount, uint32_t maxSegments) override {
    const size_t tiles = (uint64_t(maxCount) + maxSegments + NV - 1) / NV + 1;
    grow(split_, tiles + 1);
    grow(carry_, tiles);
    grow(carryIn_, tiles);
    grow(head_, tiles);
    if constexpr (FusedCarry) return;
    size_t bytes = 0;
    SRT_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(
        nullptr, bytes, carry_.data(), carryIn_.data(), EndedOp<T, Op>{},
        EndedValue<T>{0u, Op::identity()}, int64_t(tiles)));
    if (temp_.bytes() < bytes) temp_ = RawBuffer(MemorySpace::Cuda, bytes);
  }

  void reduce(const Request<T>& r) override {
    validate(info_, r.in, r.count, r.out, r.numSegments, r.owners, r.offsets);
    const uint64_t total = uint64_t(r.count) + r.numSegments;
    if (r.numSegments == 0) return;
    reserve(r.count, r.numSegments);
    const uint32_t tiles = uint32_t((total + NV - 1) / NV);
    const bool searchHere = r.numSegments <= kSearchInTileMaxSegments;
    if (!searchHere) {
      mergePathPartition<NV><<<(tiles + 1 + 255) / 256, 256, 0, r.stream>>>(
          r.offsets, r.numSegments, r.count, tiles, split_.data());
      SRT_CUDA_CHECK_LAUNCH();
    }
    const size_t smem = size_t(NV) * (sizeof(T) + sizeof(uint32_t));
    allowSharedMemory(mergePathTiles<T, Op, VT>, smem);
    mergePathTiles<T, Op, VT><<<tiles, kMpThreads, smem, r.stream>>>(
        r.in, r.offsets, r.numSegments, r.count, split_.data(), searchHere, r.out, carry_.data(),
        head_.data());
    SRT_CUDA_CHECK_LAUNCH();
    if constexpr (FusedCarry) {
      mergePathCarry<T, Op><<<1, kCarryThreads, 0, r.stream>>>(split_.data(), tiles, carry_.data(),
                                                               head_.data(), r.out);
      SRT_CUDA_CHECK_LAUNCH();
      return;
    }
    size_t bytes = temp_.bytes();
    SRT_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(
        temp_.data(), bytes, carry_.data(), carryIn_.data(), EndedOp<T, Op>{},
        EndedValue<T>{0u, Op::identity()}, int64_t(tiles), r.stream));
    mergePathFixup<T, Op><<<(tiles + 255) / 256, 256, 0, r.stream>>>(
        split_.data(), tiles, carryIn_.data(), head_.data(), r.out);
    SRT_CUDA_CHECK_LAUNCH();
  }

 private:
  Info info_;
  Buffer<uint32_t> split_;
  Buffer<EndedValue<T>> carry_, carryIn_;
  Buffer<T> head_;
  RawBuffer temp_;
};

}  // namespace srt::reduction::detail
