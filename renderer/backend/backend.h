// Where the renderer runs its stages: CUDA kernels or CPU threads. Stage bodies are written once
// (host-device lambdas) and launched through parallelFor() (parallel_for.h), which picks.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "primitives/common/memory.h"

namespace srt {

enum class BackendKind { Cpu, Cuda };

struct Backend {
  BackendKind kind = BackendKind::Cpu;
  cudaStream_t stream = nullptr;  // the stream every stage of a render is ordered on (CUDA)

  bool isCuda() const { return kind == BackendKind::Cuda; }
  MemorySpace memory() const { return isCuda() ? MemorySpace::Cuda : MemorySpace::Host; }
  const char* name() const { return isCuda() ? "cuda" : "cpu"; }
  // One line naming the device: the GPU, or the CPU and its thread count.
  std::string deviceDescription() const;
  // Waits for all work queued on this backend (a no-op on the CPU, whose stages are synchronous).
  void synchronize() const;
};

// `auto` takes CUDA when a device is present and otherwise the CPU, setting *notice to a one-line
// explanation. `cuda` without a device throws naming the reason. Anything else is an error.
Backend selectBackend(const std::string& name, std::string* notice = nullptr);

}  // namespace srt
