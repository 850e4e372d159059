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

template <typename T, typename Op>
class CubTemp {
 protected:
  // CUB's two calls of `call(storage, bytes)`: without storage it sizes the temporary storage
  // (grown here, kept for the next reduction), with it it runs.
  template <typename Call>
  void runCub(Call call) {
    size_t bytes = 0;
    SRT_CUDA_CHECK(call(nullptr, bytes));
    if (temp_.bytes() < bytes) temp_ = RawBuffer(MemorySpace::Cuda, bytes);
    SRT_CUDA_CHECK(call(temp_.data(), bytes));
  }
  RawBuffer temp_;
};

template <typename T, typename Op>
class CubReducer final : public Reducer<T, Op>, CubTemp<T, Op> {
 public:
  explicit CubReducer(Info info) : info_(std::move(info)) {}
  void reduce(const Request<T>& r) override {
    validate(info_, r.in, r.count, r.out, r.numSegments, r.owners, r.offsets);
    this->runCub([&](void* storage, size_t& bytes) {
      return cub::DeviceReduce::Reduce(storage, bytes, r.in, r.out, int64_t(r.count), Op{},
                                       Op::identity(), r.stream);
    });
  }

 private:
  Info info_;
};

template <typename T, typename Op>
class CubSegmentedReducer final : public Reducer<T, Op>, CubTemp<T, Op> {
 public:
  explicit CubSegmentedReducer(Info info) : info_(std::move(info)) {}
  void reduce(const Request<T>& r) override {
    validate(info_, r.in, r.count, r.out, r.numSegments, r.owners, r.offsets);
    if (r.numSegments == 0) return;
    this->runCub([&](void* storage, size_t& bytes) {
      return cub::DeviceSegmentedReduce::Reduce(storage, bytes, r.in, r.out, int64_t(r.numSegments),
                                                r.offsets, r.offsets + 1, Op{}, Op::identity(),
                                                r.stream);
    });
  }

 private:
  Info info_;
};

template <typename T>
__global__ void scatterRuns(const uint32_t* __restrict__ keys, const T* __restrict__ values,
                            const uint32_t* __restrict__ numRuns, uint32_t maxRuns,
                            T* __restrict__ out) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < maxRuns && i < *numRuns) out[keys[i]] = values[i];
}

template <typename T, typename Op>
class CubReduceByKeyReducer final : public Reducer<T, Op>, CubTemp<T, Op> {
 public:
  explicit CubReduceByKeyReducer(Info info) : info_(std::move(info)) {}
  void reserve(uint32_t maxCount, uint32_t maxSegments) override {
    const size_t runs = std::min(maxCount, maxSegments);
    grow(keys_, runs);
    grow(values_, runs);
    grow(numRuns_, 1);
  }
  void reduce(const Request<T>& r) override {
    validate(info_, r.in, r.count, r.out, r.numSegments, r.owners, r.offsets);
    fill(r.out, r.numSegments, Op::identity(), r.stream);
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
  Info info_;
  Buffer<uint32_t> keys_;
  Buffer<T> values_;
  Buffer<uint32_t> numRuns_;
};

}  // namespace srt::reduction::detail
