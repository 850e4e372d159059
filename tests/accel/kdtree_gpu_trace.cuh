// Kernels the GPU kd-tree tests share: traversal of a tree and a brute-force reference, one
// thread per ray.
#pragma once

#include "renderer/accel/kdtree.h"

namespace srt::test {

struct Result {
  Hit hit;
  uint32_t closest;  // 1 when the closest-hit query hit
  uint32_t any;      // the any-hit query
};

__global__ void traceKdKernel(KdTreeView tree, const Ray* rays, uint32_t n, Result* out) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Result r;
  r.closest = intersectClosest(tree, rays[i], &r.hit);
  r.any = intersectAny(tree, rays[i]);
  out[i] = r;
}

__global__ void traceBruteKernel(TriangleMeshView mesh, const Ray* rays, uint32_t n, Result* out) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Result r;
  r.closest = 0;
  float tMax = rays[i].tMax;
  for (uint32_t t = 0; t < mesh.triangleCount; ++t)
    if (intersectMeshTriangle(mesh, t, rays[i], tMax, &r.hit)) r.closest = 1, tMax = r.hit.t;
  r.any = r.closest;  // any hit in (0, tMax) exists exactly when a closest one does
  out[i] = r;
}

}  // namespace srt::test
