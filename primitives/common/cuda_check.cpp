#include "primitives/common/cuda_check.h"

#include <cstdio>

namespace srt {

void throwCudaError(cudaError_t err, const char* expr, const char* file, int line) {
  std::string msg = std::string("CUDA error ") + cudaGetErrorName(err) + " (" +
                    cudaGetErrorString(err) + ") in " + expr + " at " + file + ":" +
                    std::to_string(line);
  if (err == cudaErrorMemoryAllocation) msg += " — the request does not fit in GPU memory";
  throw CudaError(msg);
}

bool cudaDeviceAvailable() {
  static const bool available = [] {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();  // clear the sticky "no device" error
      return false;
    }
    return count > 0;
  }();
  return available;
}

std::string cudaDeviceDescription() {
  if (!cudaDeviceAvailable()) return "no CUDA device (none visible, or no driver)";
  int dev = 0;
  SRT_CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  SRT_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s, sm_%d%d, %d SMs, %.1f GiB", prop.name, prop.major,
                prop.minor, prop.multiProcessorCount,
                double(prop.totalGlobalMem) / double(1ull << 30));
  return buf;
}

}  // namespace srt
