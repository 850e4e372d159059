// Device trace time of a kd-tree for the kd benches: closest hits of random rays, one thread per
// ray through the renderer's traversal (the kd-tree tests' kernel), timed with CUDA events.
#include <algorithm>

#include "bench/accel/bench_mesh.h"
#include "primitives/common/cuda_check.h"
#include "primitives/common/cuda_resources.h"
#include "primitives/common/memory.h"
#include "tests/accel/kdtree_trace_util.cuh"

namespace srt::bench {
namespace {

// Only how many rays hit: the trace is timed without writing its hits out.
struct CountHits {
  uint32_t* count;
  __device__ void operator()(uint32_t, bool hit, const Hit&) const {
    if (hit) atomicAdd(count, 1u);
  }
};

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
    test::launchClosestHits(tree, rays, n, CountHits{count.data()});
    stop.record(nullptr);
    stop.synchronize();
    if (r > 0) best = std::min(best, double(CudaEvent::elapsedMs(start, stop)));
    SRT_CUDA_CHECK(cudaMemcpy(&h, count.data(), sizeof(h), cudaMemcpyDeviceToHost));
  }
  *hits = h;
  return best;
}

}  // namespace srt::bench
