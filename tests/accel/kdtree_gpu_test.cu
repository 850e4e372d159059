// kd-tree traversal in a CUDA kernel: against a brute-force kernel on the device and against the
// CPU traversal of the same tree, with either triangle test. Both spell out every fused
// multiply-add, so the device's FMA contraction changes nothing and both comparisons are strict,
// edge-aimed rays too.
#include <gtest/gtest.h>

#include <iostream>

#include "primitives/common/cuda_check.h"
#include "primitives/common/memory.h"
#include "renderer/accel/device_kdtree.h"
#include "renderer/accel/kdtree_build_sah.h"
#include "tests/accel/kdtree_gpu_trace.cuh"
#include "tests/accel/kdtree_test_util.h"

namespace srt::test {
namespace {

std::vector<Result> launch(bool kd, const KdTreeView& tree, const Buffer<Ray>& rays) {
  const uint32_t n = uint32_t(rays.size());
  Buffer<Result> out(MemorySpace::Cuda, n);
  const uint32_t block = 128, grid = (n + block - 1) / block;
  if (n > 0) {
    if (kd)
      traceKdKernel<<<grid, block>>>(tree, rays.data(), n, out.data());
    else
      traceBruteKernel<<<grid, block>>>(tree.mesh, rays.data(), n, out.data());
    SRT_CUDA_CHECK_LAUNCH();
  }
  SRT_CUDA_CHECK(cudaDeviceSynchronize());
  return out.download();
}

// With the watertight test, or (`unit`) the unit-triangle test the renderer uses.
void checkOnDevice(const TestMesh& mesh, size_t raysPerFamily, bool unit) {
  SCOPED_TRACE(mesh.name + (unit ? " (unit-triangle test)" : " (watertight test)"));
  const KdTree tree = buildKdTreeSah(mesh.view());
  const DeviceKdTree deviceTree(tree, MemorySpace::Cuda);
  const Buffer<Vec3f> positions(MemorySpace::Cuda, mesh.positions);
  const Buffer<uint32_t> indices(MemorySpace::Cuda, mesh.indices);
  const std::vector<UnitTriangleRow> rows = unitTriangleRowsOf(mesh);
  const Buffer<UnitTriangleRow> deviceRows(MemorySpace::Cuda, rows);
  TriangleMeshView deviceMesh;
  deviceMesh.positions = positions.data();
  deviceMesh.indices = indices.data();
  deviceMesh.triangleCount = mesh.triangleCount();
  if (unit) deviceMesh.unitTriangles = deviceRows.data();
  const KdTreeView gpuView = deviceTree.view(deviceMesh);
  const KdTreeView cpuView =
      hostView(tree, unit ? withUnitTriangles(mesh.view(), rows) : mesh.view());

  for (RayFamily family : kAllRayFamilies) {
    const std::vector<Ray> rays = makeRays(mesh, family, raysPerFamily, 77 + size_t(family));
    const Buffer<Ray> deviceRays(MemorySpace::Cuda, rays);
    const std::vector<Result> kd = launch(true, gpuView, deviceRays);
    const std::vector<Result> brute = launch(false, gpuView, deviceRays);
    size_t vsBrute = 0, vsCpu = 0, hits = 0;
    for (size_t i = 0; i < rays.size(); ++i) {
      hits += kd[i].closest;
      bool bad = !sameClosest(brute[i].closest, brute[i].hit, kd[i].closest, kd[i].hit) ||
                 brute[i].any != kd[i].any || kd[i].any != kd[i].closest;
      if (bad && vsBrute++ < 5)
        ADD_FAILURE() << toString(family) << " ray " << i << ": device brute "
                      << describe(rays[i], brute[i].closest, brute[i].hit) << " | device kd-tree "
                      << describe(rays[i], kd[i].closest, kd[i].hit) << " any " << kd[i].any;
      Hit cpuHit;
      const bool cpuClosest = intersectClosest(cpuView, rays[i], &cpuHit);
      const bool cpuAny = intersectAny(cpuView, rays[i]);
      // Same bits: same triangle, same t.
      bad = cpuClosest != bool(kd[i].closest) || cpuAny != bool(kd[i].any) ||
            (cpuClosest && (cpuHit.triangle != kd[i].hit.triangle || cpuHit.t != kd[i].hit.t));
      if (bad) ++vsCpu;
      if (bad && vsCpu <= 5)
        ADD_FAILURE() << toString(family) << " ray " << i << ": CPU kd-tree "
                      << describe(rays[i], cpuClosest, cpuHit) << " | device kd-tree "
                      << describe(rays[i], kd[i].closest, kd[i].hit);
    }
    EXPECT_EQ(vsBrute, 0u) << toString(family);
    EXPECT_EQ(vsCpu, 0u) << toString(family);
    if (mesh.triangleCount() > 0 && family != RayFamily::ShortRays) {
      EXPECT_GT(hits, 0u) << toString(family);
    }
    std::cout << "[ " << mesh.name << " / " << toString(family) << " ] " << rays.size() << " rays, "
              << hits << " hits, " << vsCpu << " differ from the CPU traversal\n";
  }
}

#define SRT_REQUIRE_DEVICE() \
  if (!cudaDeviceAvailable()) GTEST_SKIP() << "no CUDA device: " << cudaDeviceDescription()

TEST(KdTreeGpu, SyntheticMeshes) {
  SRT_REQUIRE_DEVICE();
  for (const TestMesh& mesh : {emptyMesh(), oneTriangle(), degenerateTriangles(),
                               coplanarTriangles(), axisPlaneTriangles()})
    for (const bool unit : {false, true}) checkOnDevice(mesh, 2000, unit);
}

TEST(KdTreeGpu, Scenes) {
  SRT_REQUIRE_DEVICE();
  size_t found = 0;
  for (const char* rel :
       {"cornell-box/CornellBox-Original.obj", "cornell-box/CornellBox-Sphere.obj",
        "teapot/teapot.obj", "conference-room/conference.obj"}) {
    const std::string path = testScenePath(rel);
    if (path.empty()) continue;
    ++found;
    const TestMesh mesh = loadObjMesh(path);
    for (const bool unit : {false, true}) checkOnDevice(mesh, 4000, unit);
  }
  if (found == 0) GTEST_SKIP() << "no scenes under " << testScenesDir();
}

}  // namespace
}  // namespace srt::test
