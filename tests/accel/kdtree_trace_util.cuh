// The closest hits of a set of rays on the device through the renderer's traversal (kdtree.h),
// one thread per ray, shared by the kd-tree tests (which keep every hit) and benches (which
// count them): what is done with a ray's hit is the caller's functor.
#pragma once

#include "primitives/common/cuda_check.h"
#include "renderer/accel/kdtree.h"

namespace srt::test {

// out(i, hit, h): ray i's closest hit; `h` is meaningless when `hit` is false.
template <typename Out>
__global__ void closestHitsKernel(KdTreeView tree, const Ray* rays, uint32_t n, Out out) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Hit h;
  const bool hit = intersectClosest(tree, rays[i], &h);
  out(i, hit, h);
}

// Launches it on the default stream over `n` rays in device memory (n > 0), without waiting.
template <typename Out>
void launchClosestHits(const KdTreeView& tree, const Ray* rays, uint32_t n, Out out) {
  closestHitsKernel<<<(n + 127) / 128, 128>>>(tree, rays, n, out);
  SRT_CUDA_CHECK_LAUNCH();
}

}  // namespace srt::test
