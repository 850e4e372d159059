#include "renderer/backend/backend.h"

#include <omp.h>

#include <fstream>
#include <stdexcept>
#include <thread>

namespace srt {
namespace {
std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  return "CPU";
}
}  // namespace

std::string Backend::deviceDescription() const {
  if (isCuda()) return cudaDeviceDescription();
  return cpuModel() + ", " + std::to_string(omp_get_max_threads()) + " threads";
}

void Backend::synchronize() const {
  if (isCuda()) SRT_CUDA_CHECK(cudaStreamSynchronize(stream));
}

Backend selectBackend(const std::string& name, std::string* notice) {
  Backend b;
  if (name == "cpu") return b;
  if (name == "cuda" || name == "auto") {
    if (!cudaDeviceAvailable()) {
      if (name == "cuda") throw std::invalid_argument("--backend cuda: " + cudaDeviceDescription());
      if (notice) *notice = "no CUDA device found: rendering on the CPU (--backend cpu)";
      return b;
    }
    b.kind = BackendKind::Cuda;
    return b;
  }
  throw std::invalid_argument("--backend must be auto, cuda or cpu (got '" + name + "')");
}

}  // namespace srt
