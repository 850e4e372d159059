// Device trace time of a kd-tree for the kd benches: closest hits of random rays, one thread per
// ray through the renderer's traversal (kdtree.h), timed with CUDA events.
#include <algorithm>

#include "bench/accel/bench_mesh.h"
#include "primitives/common/cuda_check.h"
#include "primitives/common/cuda_resources.h"
#include "primitives/common/memory.h"

namespace srt::bench {
namespace {

__global__ void closestHitsKernel(KdTreeView tree, const Ray* rays, uint32_t n, uint32_t* hits) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Hit h;
  if (intersectClosest(tree, rays[i], &h)) atomicAdd(hits, 1u);
}

}  // namespace

double traceOnDevice(const KdTreeView& tree, const Ray* rays, uint32_t n, int repeats,
                     size_t* hits) {
  Buffer<uint32_t> count(MemorySpace::Cuda, 1);
  CudaEvent start(cudaEventDefault), stop(cudaEventDefault);
  double best = 1e30;
  uint32_t h = 0;
  for (int r = 0; r < repeats + 1; ++r) {  // the first pass warms the caches
    SRT_CUDA_CHECK(cudaMemset(count.data(), 0, sizeof(uint32_t)));
    start.record(nullptr);
    closestHitsKernel<<<(n + 127) / 128, 128>>>(tree, rays, n, count.data());
    SRT_CUDA_CHECK_LAUNCH();
    stop.record(nullptr);
    stop.synchronize();
    if (r > 0) best = std::min(best, double(CudaEvent::elapsedMs(start, stop)));
    SRT_CUDA_CHECK(cudaMemcpy(&h, count.data(), sizeof(h), cudaMemcpyDeviceToHost));
  }
  *hits = h;
  return best;
}

}  // namespace srt::bench
