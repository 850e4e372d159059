// The replayed level loop as a CUDA graph (GpuKdLevels::Graph): captured on a stream of the
// builder's own (the caller's may be the legacy default stream, which cannot be captured) and
// launched on the caller's. Host-only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "renderer/accel/gpu/build_scratch.h"

namespace srt::kdgpu {

// A stream of the builder's own (cudaStreamNonBlocking), destroyed with it.
class OwnedStream {
 public:
  OwnedStream() = default;
  static OwnedStream nonBlocking();
  ~OwnedStream();
  OwnedStream(OwnedStream&& o) noexcept;
  OwnedStream& operator=(OwnedStream&& o) noexcept;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// What the captured kernels and primitives were given: the arrays, the mesh, the counters and
// every level's caps. A graph is relaunched only for an equal key.
std::vector<uintptr_t> levelGraphKey(const BuildArrays& a, const TriangleMeshView& mesh,
                                     uint32_t validTriangles, const void* counters,
                                     const void* state, const std::vector<LevelCaps>& caps);

// Runs `body` (which enqueues on `captureStream`) under capture and instantiates the graph into
// `graph` with `key`. False, with graph.unsupported set, when the capture or the instantiation
// failed (an enqueued call that cannot be captured, a synchronisation); then nothing ran and the
// caller runs the body on its own stream.
bool captureLevelGraph(LevelGraph& graph, std::vector<uintptr_t> key, cudaStream_t captureStream,
                       const std::function<void()>& body);
void launchLevelGraph(const LevelGraph& graph, cudaStream_t stream);

}  // namespace srt::kdgpu
