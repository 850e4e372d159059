// The reductions of Martín et al. 2012, unsegmented (Seg = false) and segmented with an owner
// array (Seg = true), as one data-block per CUDA-block and a multi-pass host loop (paper §III-A):
//   TB2       tree over D = 2B in shared memory with one pad per 32 (Alg. 1), left-storing;
//   TB4-warp  intra-warp trees over 4 data-warps per warp, then one warp over the 32 results
//             (Alg. 2; shuffles instead of the paper's implicit warp-synchronous shared memory);
//   Matrix    H = W = 32 rows reduced sequentially by one warp, then a warp tree (Alg. 3),
//             right-storing; Persistent: grid = SMs x resident blocks, each block reduces q or
//             q+1 consecutive data-blocks (§III-B1); ProdCons: 1 consumer + 8 producer warps over
//             two shared buffers (Alg. 4, "Diffwarps"); W = 16 gives Diffwarps16.
// Every pass writes one (value, owner) carry per block; the single-block last pass writes the
// result (unsegmented) or flushes its carry (segmented). Padding past the input is the identity
// with the last real owner, so it joins the last segment instead of starting a new one.
// Ordering: all keep input order, so non-commutative operators are fine.
#pragma once

#include "primitives/reduction/device_common.cuh"

namespace srt::reduction::detail {

enum class PaperAlg { Tb2, Tb4Warp, Matrix };

// A block's (value, owner) result, by the thread that holds it: the carry of this pass, or on the
// single-block last pass the result (unsegmented) or its flush into the output (segmented). The
// owner is read only when segmented.
template <Dir D, bool Seg, typename T, typename Op>
__device__ __forceinline__ void storeBlockResult(const T& v, const uint32_t& o, T* carryV,
                                                 uint32_t* carryO, T* out, bool last, Op op) {
  if (!last) {
    carryV[blockIdx.x] = v;
    if constexpr (Seg) carryO[blockIdx.x] = o;
  } else if constexpr (Seg) {
    flushPiece<D>(out, o, v, op);
  } else {
    out[0] = v;
  }
}

// ---- TB2: B = 256, D = 512 --------------------------------------------------------------------
constexpr int kTb2Threads = 256;
constexpr int kTb2Items = 2 * kTb2Threads;
constexpr int kTb2Slots = kTb2Items + kTb2Items / 32;

template <typename T, typename Op, bool Seg>
__global__ void __launch_bounds__(kTb2Threads)
    tb2Kernel(const T* __restrict__ in, const uint32_t* __restrict__ owners, uint32_t n, T* carryV,
              uint32_t* carryO, T* out, bool last) {
  extern __shared__ __align__(16) unsigned char smem[];
  T* sv = reinterpret_cast<T*>(smem);
  uint32_t* so = reinterpret_cast<uint32_t*>(sv + kTb2Slots);
  const Op op{};
  const uint32_t tid = threadIdx.x;
  const size_t base = size_t(blockIdx.x) * kTb2Items;
  for (uint32_t j = tid; j < kTb2Items; j += kTb2Threads) {
    const size_t g = base + j;
    sv[j + (j >> 5)] = g < n ? in[g] : Op::identity();
    if constexpr (Seg) so[j + (j >> 5)] = owners[g < n ? g : n - 1];
  }
  uint32_t stride = 1;
  for (uint32_t d = kTb2Threads; d > 0; d >>= 1) {
    __syncthreads();
    if (tid < d) {
      uint32_t ai = 2 * stride * tid, bi = ai + stride;
      ai += ai >> 5;
      bi += bi >> 5;
      if constexpr (Seg) {
        if (so[ai] != so[bi])
          flushPiece<Dir::Left>(out, so[bi], sv[bi], op);
        else
          sv[ai] = op(sv[ai], sv[bi]);
      } else {
        sv[ai] = op(sv[ai], sv[bi]);
      }
    }
    stride <<= 1;
  }
  if (tid == 0) storeBlockResult<Dir::Left, Seg>(sv[0], so[0], carryV, carryO, out, last, op);
}

// ---- TB4-warp: B = 256, D = 1024 --------------------------------------------------------------
constexpr int kTb4Threads = 256;
constexpr int kTb4Items = 4 * kTb4Threads;

// Left-storing warp tree: lane 0 ends with the first segment's prefix; other pieces are flushed.
template <typename T, typename Op, bool Seg>
__device__ __forceinline__ void warpReduceLeft(T& v, uint32_t& o, uint32_t lane, T* out, Op op) {
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const T vr = shflDown(v, off);
    const uint32_t orr = Seg ? __shfl_down_sync(kFullMask, o, off) : 0;
    if ((lane & (2 * off - 1)) == 0) {
      if (Seg && orr != o)
        flushPiece<Dir::Left>(out, orr, vr, op);
      else
        v = op(v, vr);
    }
    if constexpr (Seg) __syncwarp();  // a later level may flush the same segment
  }
}

template <typename T, typename Op, bool Seg>
__global__ void __launch_bounds__(kTb4Threads)
    tb4WarpKernel(const T* __restrict__ in, const uint32_t* __restrict__ owners, uint32_t n,
                  T* carryV, uint32_t* carryO, T* out, bool last) {
  __shared__ T sRes[32];
  __shared__ uint32_t sResO[32];
  const Op op{};
  const uint32_t tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const size_t base = size_t(blockIdx.x) * kTb4Items;
#pragma unroll
  for (uint32_t k = 0; k < 4; ++k) {
    const uint32_t w = k * (kTb4Threads / 32) + warp;  // data-warp index, in input order
    const size_t g = base + w * 32 + lane;
    T v = g < n ? in[g] : Op::identity();
    uint32_t o = Seg ? owners[g < n ? g : n - 1] : 0;
    warpReduceLeft<T, Op, Seg>(v, o, lane, out, op);
    if (lane == 0) {
      sRes[w] = v;
      sResO[w] = o;
    }
  }
  __syncthreads();
  if (warp == 0) {
    T v = sRes[lane];
    uint32_t o = sResO[lane];
    warpReduceLeft<T, Op, Seg>(v, o, lane, out, op);
    if (lane == 0) storeBlockResult<Dir::Left, Seg>(v, o, carryV, carryO, out, last, op);
  }
}

// ---- Matrix family: H = 32 rows of W, right-storing -------------------------------------------
constexpr int kMatrixH = 32;
constexpr int kLoaderThreads = 256;

template <int W, bool ProdCons>
struct MatrixShape {
  static constexpr int kItems = kMatrixH * W;
  static constexpr int kSlots = kMatrixH * (W + 1);  // one pad per row against bank conflicts
  static constexpr int kThreads = ProdCons ? 32 + kLoaderThreads : kLoaderThreads;
  static constexpr int kBuffers = ProdCons ? 2 : 1;
};

template <typename T, bool Seg, int W, bool ProdCons>
constexpr size_t matrixSharedBytes() {
  using S = MatrixShape<W, ProdCons>;
  return size_t(S::kBuffers) * S::kSlots * (sizeof(T) + (Seg ? sizeof(uint32_t) : 0));
}

// Warp 0 reduces one data-block held as a matrix: lane r reduces row r left to right (flushing
// every segment that ends in the row), then a right-storing warp tree; lane 31 gets the last
// segment's suffix.
template <typename T, typename Op, bool Seg, int W>
__device__ __forceinline__ void matrixReduceBlock(const T* sv, const uint32_t* so, uint32_t lane,
                                                  T* out, Op op, T& v, uint32_t& o) {
  const T* row = sv + lane * (W + 1);
  v = row[0];
  o = Seg ? so[lane * (W + 1)] : 0;
#pragma unroll 8
  for (int k = 1; k < W; ++k) {
    if constexpr (Seg) {
      const uint32_t ok = so[lane * (W + 1) + k];
      if (ok != o) {
        flushPiece<Dir::Right>(out, o, v, op);
        o = ok;
        v = row[k];
        continue;
      }
    }
    v = op(v, row[k]);
  }
  if constexpr (Seg) __syncwarp();
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const T vl = shflUp(v, off);
    const uint32_t ol = Seg ? __shfl_up_sync(kFullMask, o, off) : 0;
    if ((lane & (2 * off - 1)) == uint32_t(2 * off - 1)) {
      if (Seg && ol != o)
        flushPiece<Dir::Right>(out, ol, vl, op);
      else
        v = op(vl, v);
    }
    if constexpr (Seg) __syncwarp();
  }
}

template <typename T, typename Op, bool Seg, int W>
__device__ __forceinline__ void matrixLoad(const T* __restrict__ in,
                                           const uint32_t* __restrict__ owners, uint32_t n,
                                           size_t dataBlock, uint32_t ltid, T* sv, uint32_t* so) {
  constexpr int kItems = kMatrixH * W;
  const size_t base = dataBlock * kItems;
#pragma unroll
  for (int j = ltid; j < kItems; j += kLoaderThreads) {
    const size_t g = base + j;
    const int slot = (j / W) * (W + 1) + j % W;
    sv[slot] = g < n ? in[g] : Op::identity();
    if constexpr (Seg) so[slot] = owners[g < n ? g : n - 1];
  }
}

// Persistent: block b reduces data-blocks [b*q + min(b, r), ... + q + (b < r)).
template <typename T, typename Op, bool Seg, int W, bool Persistent, bool ProdCons>
__global__ void __launch_bounds__(MatrixShape<W, ProdCons>::kThreads)
    matrixKernel(const T* __restrict__ in, const uint32_t* __restrict__ owners, uint32_t n,
                 T* carryV, uint32_t* carryO, T* out, bool last, uint32_t q, uint32_t r) {
  using S = MatrixShape<W, ProdCons>;
  extern __shared__ __align__(16) unsigned char smem[];
  T* sv[2];
  uint32_t* so[2];
  {
    unsigned char* p = smem;
    for (int b = 0; b < S::kBuffers; ++b) {
      sv[b] = reinterpret_cast<T*>(p);
      p += S::kSlots * sizeof(T);
      so[b] = reinterpret_cast<uint32_t*>(p);
      p += Seg ? S::kSlots * sizeof(uint32_t) : 0;
    }
    if constexpr (S::kBuffers == 1) {
      sv[1] = sv[0];
      so[1] = so[0];
    }
  }
  const Op op{};
  const uint32_t tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  size_t first = blockIdx.x;
  uint32_t count = 1;
  if constexpr (Persistent) {
    first = size_t(blockIdx.x) * q + min(blockIdx.x, r);
    count = q + (blockIdx.x < r ? 1 : 0);
  }
  // The running carry of this block lives in lane 31 of warp 0.
  T rv = Op::identity();
  uint32_t ro = 0;
  bool have = false;
  auto consume = [&](int buf) {
    T v;
    uint32_t o;
    matrixReduceBlock<T, Op, Seg, W>(sv[buf], so[buf], lane, out, op, v, o);
    if (lane == 31) {
      if (have && Seg && ro != o) flushPiece<Dir::Right>(out, ro, rv, op);  // after the block's own
      rv = (have && (!Seg || ro == o)) ? op(rv, v) : v;
      ro = o;
      have = true;
    }
  };
  if constexpr (!ProdCons) {
    for (uint32_t k = 0; k < count; ++k) {
      if (k > 0) __syncthreads();  // warp 0 is done with the buffer
      matrixLoad<T, Op, Seg, W>(in, owners, n, first + k, tid, sv[0], so[0]);
      __syncthreads();
      if (warp == 0) consume(0);
    }
  } else {
    // Algorithm 4: warp 0 consumes block k-1 while warps 1..8 load block k into the other buffer.
    if (warp >= 1) matrixLoad<T, Op, Seg, W>(in, owners, n, first, tid - 32, sv[0], so[0]);
    __syncthreads();
    for (uint32_t k = 1; k < count; ++k) {
      if (warp == 0)
        consume((k - 1) & 1);
      else
        matrixLoad<T, Op, Seg, W>(in, owners, n, first + k, tid - 32, sv[k & 1], so[k & 1]);
      __syncthreads();
    }
    if (warp == 0) consume((count - 1) & 1);
  }
  if (warp == 0 && lane == 31)
    storeBlockResult<Dir::Right, Seg>(rv, ro, carryV, carryO, out, last, op);
}

// ---- Host: the multi-pass loop ----------------------------------------------------------------
template <typename T, typename Op, bool Seg, PaperAlg Alg, int W = 32, bool Persistent = false,
          bool ProdCons = false>
class PaperReducer final : public Reducer<T, Op> {
 public:
  explicit PaperReducer(Info info) : info_(std::move(info)) {}

  void reserve(uint32_t maxCount, uint32_t) override {
    const size_t g = (maxCount + itemsPerBlock() - 1) / itemsPerBlock() + 1;
    grow(carryV_[0], g);
    grow(carryV_[1], g / 32 + 2);
    if (Seg) {
      grow(carryO_[0], g);
      grow(carryO_[1], g / 32 + 2);
    }
  }

  void reduce(const Request<T>& r) override {
    validate(info_, r.in, r.count, r.out, r.numSegments, r.owners, r.offsets);
    if (Seg && !r.outHoldsIdentity) fill(r.out, r.numSegments, Op::identity(), r.stream);
    if (r.count == 0) {
      if (!Seg) fill(r.out, 1, Op::identity(), r.stream);
      return;
    }
    reserve(r.count, r.numSegments);
    const T* v = r.in;
    const uint32_t* o = Seg ? r.owners : nullptr;
    uint32_t n = r.count;
    int ping = 0;
    for (bool firstPass = true;; firstPass = false) {
      const uint32_t blocks = uint32_t((size_t(n) + itemsPerBlock() - 1) / itemsPerBlock());
      uint32_t grid = blocks;
      if (Persistent && firstPass) grid = std::min<uint32_t>(blocks, persistentGrid());
      const bool last = grid == 1;
      launch(Persistent && firstPass, grid, blocks, v, o, n, carryV_[ping].data(),
             Seg ? carryO_[ping].data() : nullptr, r.out, last, r.stream);
      if (last) break;
      v = carryV_[ping].data();
      o = Seg ? carryO_[ping].data() : nullptr;
      n = grid;
      ping ^= 1;
    }
  }

 private:
  static constexpr int itemsPerBlock() {
    return Alg == PaperAlg::Tb2 ? kTb2Items : (Alg == PaperAlg::Tb4Warp ? kTb4Items : kMatrixH * W);
  }

  uint32_t persistentGrid() {
    if (persistentGrid_ == 0) {
      auto kernel = matrixKernel<T, Op, Seg, W, true, ProdCons>;
      const size_t smem = matrixSharedBytes<T, Seg, W, ProdCons>();
      allowSharedMemory(kernel, smem);
      int perSm = 0;
      SRT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &perSm, kernel, MatrixShape<W, ProdCons>::kThreads, smem));
      persistentGrid_ = uint32_t(std::max(1, perSm) * multiprocessorCount());
    }
    return persistentGrid_;
  }

  void launch(bool persistent, uint32_t grid, uint32_t blocks, const T* v, const uint32_t* o,
              uint32_t n, T* cv, uint32_t* co, T* out, bool last, cudaStream_t stream) {
    if constexpr (Alg == PaperAlg::Tb2) {
      const size_t smem = kTb2Slots * (sizeof(T) + (Seg ? 4 : 0));
      allowSharedMemory(tb2Kernel<T, Op, Seg>, smem);
      tb2Kernel<T, Op, Seg><<<grid, kTb2Threads, smem, stream>>>(v, o, n, cv, co, out, last);
    } else if constexpr (Alg == PaperAlg::Tb4Warp) {
      tb4WarpKernel<T, Op, Seg><<<grid, kTb4Threads, 0, stream>>>(v, o, n, cv, co, out, last);
    } else if (persistent) {
      auto kernel = matrixKernel<T, Op, Seg, W, true, ProdCons>;
      const size_t smem = matrixSharedBytes<T, Seg, W, ProdCons>();
      allowSharedMemory(kernel, smem);
      kernel<<<grid, MatrixShape<W, ProdCons>::kThreads, smem, stream>>>(
          v, o, n, cv, co, out, last, blocks / grid, blocks % grid);
    } else {
      // Later passes (and plain Matrix) reduce one data-block per block.
      auto kernel = matrixKernel<T, Op, Seg, W, false, false>;
      const size_t smem = matrixSharedBytes<T, Seg, W, false>();
      allowSharedMemory(kernel, smem);
      kernel<<<grid, kLoaderThreads, smem, stream>>>(v, o, n, cv, co, out, last, 1, 0);
    }
    SRT_CUDA_CHECK_LAUNCH();
  }

  Info info_;
  Buffer<T> carryV_[2];
  Buffer<uint32_t> carryO_[2];
  uint32_t persistentGrid_ = 0;
};

}  // namespace srt::reduction::detail
