// The baseline: cub::DeviceSelect::Flagged, called once per field on the field's own element
// type, so CUB moves whole records exactly as it would in a user's code. Sizes without a record
// type here go through CUB on the index stream and one gather per field.
#include <thrust/iterator/counting_iterator.h>
#include <cub/device/device_select.cuh>
#include <cuda/std/iterator>

#include "primitives/compaction/cuda/cuda_compactors.h"
#include "primitives/compaction/cuda/field_set.cuh"

namespace srt::compaction {
namespace {

template <int Words>
struct alignas(Words % 4 == 0 ? 16 : (Words % 2 == 0 ? 8 : 4)) Record {
  uint32_t w[Words];
};

__global__ void gatherKernel(const uint32_t* __restrict__ index,
                             const uint32_t* __restrict__ numKept, const uint32_t* __restrict__ src,
                             uint32_t* __restrict__ dst, uint32_t words) {
  const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint64_t i = t / words, w = t % words;
  if (i >= *numKept) return;
  dst[i * words + w] = src[uint64_t(index[i]) * words + w];
}

class CubCompactor final : public Compactor {
 public:
  void reserve(uint32_t maxCount) override {
    growTemp(queryBytes<Record<16>>(maxCount));
    growTemp(queryBytes<uint32_t>(maxCount));
    if (index_.size() < maxCount) index_ = Buffer<uint32_t>(MemorySpace::Cuda, maxCount);
  }

  void compact(const Request& r) override {
    gpu::requireCuda(r, "cub");
    if (r.numFields == 0) {
      selectIndices(r);
      return;
    }
    bool gathered = false;
    for (int f = 0; f < r.numFields; ++f) {
      const Field& fd = r.fields[f];
      if (selectRecord<1, 2, 3, 4, 8, 16>(r, fd)) continue;
      if (!gathered) selectIndices(r);
      gathered = true;
      gather(r, fd);
    }
  }

 private:
  template <typename T>
  size_t queryBytes(uint32_t n) {
    size_t bytes = 0;
    SRT_CUDA_CHECK(cub::DeviceSelect::Flagged(
        nullptr, bytes, static_cast<const T*>(nullptr), static_cast<const uint8_t*>(nullptr),
        static_cast<T*>(nullptr), static_cast<uint32_t*>(nullptr), int64_t(n)));
    return bytes;
  }
  void growTemp(size_t bytes) {
    if (temp_.bytes() < bytes) temp_ = RawBuffer(MemorySpace::Cuda, bytes);
  }

  // cub::DeviceSelect::Flagged from `in` to `out`: one call sizes its temporary storage, the
  // next runs.
  template <typename In, typename T>
  void selectFlagged(const Request& r, In in, T* out) {
    size_t bytes = 0;
    SRT_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, bytes, in, r.keep, out, r.numKept,
                                              int64_t(r.count), r.stream));
    growTemp(bytes);
    SRT_CUDA_CHECK(cub::DeviceSelect::Flagged(temp_.data(), bytes, in, r.keep, out, r.numKept,
                                              int64_t(r.count), r.stream));
  }
  // Selects the field as Record<W> for the W of these (in words) that is its size; false when
  // none is.
  template <int... Words>
  bool selectRecord(const Request& r, const Field& fd) {
    return ((fd.bytes == Words * 4u && (select<Record<Words>>(r, fd), true)) || ...);
  }
  template <typename T>
  void select(const Request& r, const Field& fd) {
    selectFlagged(r, static_cast<const T*>(fd.src), static_cast<T*>(fd.dst));
  }
  void selectIndices(const Request& r) {
    if (index_.size() < r.count) index_ = Buffer<uint32_t>(MemorySpace::Cuda, r.count);
    selectFlagged(r, thrust::counting_iterator<uint32_t>(0), index_.data());
  }

  void gather(const Request& r, const Field& fd) {
    const uint32_t words = fd.bytes / 4;
    const uint64_t threads = uint64_t(r.count) * words;
    if (threads == 0) return;
    gatherKernel<<<unsigned((threads + 255) / 256), 256, 0, r.stream>>>(
        index_.data(), r.numKept, static_cast<const uint32_t*>(fd.src),
        static_cast<uint32_t*>(fd.dst), words);
    SRT_CUDA_CHECK_LAUNCH();
  }

  RawBuffer temp_;
  Buffer<uint32_t> index_;
};

}  // namespace

std::unique_ptr<Compactor> makeCubCompactor() {
  return std::make_unique<CubCompactor>();
}

}  // namespace srt::compaction
