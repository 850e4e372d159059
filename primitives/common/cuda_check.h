// Checked CUDA calls: every failure throws with file, line and the expression text.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace srt {

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throwCudaError(cudaError_t err, const char* expr, const char* file, int line);

// Whether a CUDA device can be used in this process (false on machines without a GPU or driver).
bool cudaDeviceAvailable();
// One line naming the device ("NVIDIA H100 80GB HBM3, sm_90, 132 SMs"), or why there is none.
std::string cudaDeviceDescription();

}  // namespace srt

#define SRT_CUDA_CHECK(expr)                                                   \
  do {                                                                         \
    const cudaError_t srt_err_ = (expr);                                       \
    if (srt_err_ != cudaSuccess) ::srt::throwCudaError(srt_err_, #expr, __FILE__, __LINE__); \
  } while (0)

// After a kernel launch: catches launch-configuration errors at once, and in a debug build
// (SRT_SYNC_AFTER_LAUNCH) synchronises so a fault is reported at the launch that caused it.
#if defined(SRT_SYNC_AFTER_LAUNCH)
#define SRT_CUDA_CHECK_LAUNCH()                   \
  do {                                            \
    SRT_CUDA_CHECK(cudaGetLastError());           \
    SRT_CUDA_CHECK(cudaDeviceSynchronize());      \
  } while (0)
#else
#define SRT_CUDA_CHECK_LAUNCH() SRT_CUDA_CHECK(cudaGetLastError())
#endif
