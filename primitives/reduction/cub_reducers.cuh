// The baselines, from CCCL/CUB in the CUDA toolkit: cub::DeviceReduce::Reduce (unsegmented),
// cub::DeviceSegmentedReduce::Reduce (offsets) and cub::DeviceReduce::ReduceByKey (owners as keys).
// CUB documents DeviceReduce and DeviceSegmentedReduce as needing a commutative operator;
// ReduceByKey keeps order. ReduceByKey writes one value per non-empty run, so its entry also
// fills the output with the identity and scatters the runs to their segments: the same output
// contract as the others, at the cost of those two extra passes (the bench says so).
#pragma once

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>

#include "primitives/reduction/device_common.cuh"

namespace srt::reduction::detail {

// What the CUB baselines share: their registry entry (for validate's messages) and CUB's
// temporary storage, grown as needed and kept for the next reduction.
template <typename T, typename Op>
class CubBase : public Reducer<T, Op> {
 public:
  explicit CubBase(Info info) : info_(std::move(info)) {}

 protected:
  void check(const Request<T>& r) const {
    validate(info_, r.in, r.count, r.out, r.numSegments, r.owners, r.offsets);
  }
  // CUB's two calls of `call(storage, bytes)`: without storage it sizes the temporary storage,
  // with it it runs.
  template <typename Call>
  void runCub(Call call) {
    size_t bytes = 0;
    SRT_CUDA_CHECK(call(nullptr, bytes));
    if (temp_.bytes() < bytes) temp_ = RawBuffer(MemorySpace::Cuda, bytes);
    SRT_CUDA_CHECK(call(temp_.data(), bytes));
  }

 private:
  Info info_;
  RawBuffer temp_;
};

// cub::DeviceReduce::Reduce over the whole input, or (Segmented) cub::DeviceSegmentedReduce::Reduce
// over the offsets.
template <typename T, typename Op, bool Segmented>
class CubReducer final : public CubBase<T, Op> {
 public:
  using CubBase<T, Op>::CubBase;
  void reduce(const Request<T>& r) override {
    this->check(r);
    if (Segmented && r.numSegments == 0) return;
    this->runCub([&](void* storage, size_t& bytes) {
      if constexpr (Segmented)
        return cub::DeviceSegmentedReduce::Reduce(storage, bytes, r.in, r.out,
                                                  int64_t(r.numSegments), r.offsets, r.offsets + 1,
                                                  Op{}, Op::identity(), r.stream);
      else
        return cub::DeviceReduce::Reduce(storage, bytes, r.in, r.out, int64_t(r.count), Op{},
                                         Op::identity(), r.stream);
    });
  }
};

template <typename T>
__global__ void scatterRuns(const uint32_t* __restrict__ keys, const T* __restrict__ values,
                            const uint32_t* __restrict__ numRuns, uint32_t maxRuns,
                            T* __restrict__ out) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < maxRuns && i < *numRuns) out[keys[i]] = values[i];
}

template <typename T, typename Op>
class CubReduceByKeyReducer final : public CubBase<T, Op> {
 public:
  using CubBase<T, Op>::CubBase;
  void reserve(uint32_t maxCount, uint32_t maxSegments) override {
    const size_t runs = std::min(maxCount, maxSegments);
    grow(keys_, runs);
    grow(values_, runs);
    grow(numRuns_, 1);
  }
  void reduce(const Request<T>& r) override {
    this->check(r);
    if (!r.outHoldsIdentity) fill(r.out, r.numSegments, Op::identity(), r.stream);
    if (r.count == 0) return;
    reserve(r.count, r.numSegments);
    this->runCub([&](void* storage, size_t& bytes) {
      return cub::DeviceReduce::ReduceByKey(storage, bytes, r.owners, keys_.data(), r.in,
                                            values_.data(), numRuns_.data(), Op{}, int64_t(r.count),
                                            r.stream);
    });
    const uint32_t maxRuns = std::min(r.count, r.numSegments);
    scatterRuns<<<(maxRuns + 255) / 256, 256, 0, r.stream>>>(keys_.data(), values_.data(),
                                                             numRuns_.data(), maxRuns, r.out);
    SRT_CUDA_CHECK_LAUNCH();
  }

 private:
  Buffer<uint32_t> keys_;
  Buffer<T> values_;
  Buffer<uint32_t> numRuns_;
};

}  // namespace srt::reduction::detail
