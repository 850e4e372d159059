// Validation and the owners <-> offsets conversions on the GPU.
#include <stdexcept>

#include "primitives/reduction/device_common.cuh"

namespace srt::reduction {

void validate(const Info& info, const void* in, uint32_t count, const void* out,
              uint32_t numSegments, const uint32_t* owners, const uint32_t* offsets) {
  const std::string who =
      std::string(info.segmented ? "segmented reduction '" : "reduction '") + info.name + "': ";
  if (count > 0 && !in) throw std::invalid_argument(who + "input is null");
  if (!out && (!info.segmented || numSegments > 0))
    throw std::invalid_argument(who + "output is null");
  if (!info.segmented) return;
  if (numSegments == 0 && count > 0)
    throw std::invalid_argument(who + std::to_string(count) + " elements but no segments");
  if (info.layout == Layout::Owners && count > 0 && !owners)
    throw std::invalid_argument(who + "needs the owners array (it is null)");
  if (info.layout == Layout::Offsets && !offsets)
    throw std::invalid_argument(who + "needs the offsets array (it is null)");
}

namespace detail {

int multiprocessorCount() {
  int device = 0, sms = 0;
  SRT_CUDA_CHECK(cudaGetDevice(&device));
  SRT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

// One thread per segment writes its owner entries (segments are short where this is hot).
__global__ void ownersKernel(const uint32_t* offsets, uint32_t numSegments, uint32_t* owners) {
  const uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= numSegments) return;
  for (uint32_t i = offsets[s]; i < offsets[s + 1]; ++i) owners[i] = s;
}

// offsets[s] = first i with owners[i] >= s: each element i writes the starts of the segments
// between its predecessor's owner and its own (empty segments included).
__global__ void offsetsKernel(const uint32_t* owners, uint32_t count, uint32_t* offsets,
                              uint32_t numSegments) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > count) return;
  const uint32_t from = i == 0 ? 0 : owners[i - 1] + 1;
  const uint32_t to = i == count ? numSegments : owners[i];
  for (uint32_t s = from; s <= to && s <= numSegments; ++s) offsets[s] = i;
}

}  // namespace detail

void ownersFromOffsets(const uint32_t* offsets, uint32_t numSegments, uint32_t* owners,
                       uint32_t count, cudaStream_t stream) {
  if (numSegments == 0 || count == 0) return;
  detail::ownersKernel<<<(numSegments + 255) / 256, 256, 0, stream>>>(offsets, numSegments, owners);
  SRT_CUDA_CHECK_LAUNCH();
}

void offsetsFromOwners(const uint32_t* owners, uint32_t count, uint32_t* offsets,
                       uint32_t numSegments, cudaStream_t stream) {
  const uint32_t threads = count + 1;
  detail::offsetsKernel<<<(threads + 255) / 256, 256, 0, stream>>>(owners, count, offsets,
                                                                   numSegments);
  SRT_CUDA_CHECK_LAUNCH();
}

}  // namespace srt::reduction
