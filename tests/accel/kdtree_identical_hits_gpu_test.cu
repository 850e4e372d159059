// Closest hits do not depend on the tree or the backend: on a million rays per real mesh, the CPU
// SAH tree traversed on the host, the same tree traversed on the device, and the tree the GPU
// builder makes on the device, traversed there, give the same triangle and t bit for bit. Skips
// without a CUDA device.
#include <gtest/gtest.h>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "primitives/common/cuda_check.h"
#include "primitives/common/memory.h"
#include "renderer/accel/device_kdtree.h"
#include "renderer/accel/gpu/kdtree_build_gpu.h"
#include "renderer/accel/kdtree_build_sah.h"
#include "tests/accel/kdtree_identical_hits.h"
#include "tests/accel/kdtree_render_rays.h"
#include "tests/accel/kdtree_test_util.h"
#include "tests/accel/kdtree_trace_util.cuh"

namespace srt::test {
namespace {

// Every ray's closest hit, kept.
struct StoreClosest {
  ClosestResult* out;
  __device__ void operator()(uint32_t i, bool hit, const Hit& h) const { out[i] = {h, hit}; }
};

std::vector<ClosestResult> traceOnDevice(const KdTreeView& tree, const Buffer<Ray>& rays) {
  const uint32_t n = uint32_t(rays.size());
  Buffer<ClosestResult> out(MemorySpace::Cuda, n);
  launchClosestHits(tree, rays.data(), n, StoreClosest{out.data()});
  SRT_CUDA_CHECK(cudaDeviceSynchronize());
  return out.download();
}

// Every triangle's unit-triangle rows, computed on the device (as the renderer's scene data does).
__global__ void unitRowsKernel(TriangleMeshView mesh, UnitTriangleRow* rows) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= mesh.triangleCount) return;
  const uint32_t* i = mesh.indices + 3 * size_t(t);
  unitTriangleRows(mesh.positions[i[0]], mesh.positions[i[1]], mesh.positions[i[2]],
                   rows + 3 * size_t(t));
}

Buffer<UnitTriangleRow> unitRowsOnDevice(const TriangleMeshView& deviceMesh) {
  Buffer<UnitTriangleRow> rows(MemorySpace::Cuda, 3 * size_t(deviceMesh.triangleCount));
  if (deviceMesh.triangleCount > 0) {
    unitRowsKernel<<<(deviceMesh.triangleCount + 127) / 128, 128>>>(deviceMesh, rows.data());
    SRT_CUDA_CHECK_LAUNCH();
  }
  return rows;
}

// With both triangle tests; the unit-triangle rows computed on the device are the host's, bit for
// bit, so the device traces the same triangles.
TEST(IdenticalHitsGpu, CpuAndGpuBuiltTreesOnHostAndDevice) {
  if (!cudaDeviceAvailable()) GTEST_SKIP() << "no CUDA device: " << cudaDeviceDescription();
  int meshes = 0;
  for (const char* scene : identicalHitsScenes()) {
    const std::string path = testScenePath(scene);
    if (path.empty()) continue;
    ++meshes;
    const TestMesh mesh = loadObjMesh(path);
    const Buffer<Vec3f> positions(MemorySpace::Cuda, mesh.positions);
    const Buffer<uint32_t> indices(MemorySpace::Cuda, mesh.indices);
    const TriangleMeshView deviceMesh{positions.data(), indices.data(), mesh.triangleCount()};
    const std::vector<UnitTriangleRow> hostRows = unitTriangleRowsOf(mesh);
    const Buffer<UnitTriangleRow> deviceRows = unitRowsOnDevice(deviceMesh);
    const std::vector<UnitTriangleRow> downloaded = deviceRows.download();
    ASSERT_EQ(downloaded.size(), hostRows.size());
    EXPECT_EQ(
        std::memcmp(downloaded.data(), hostRows.data(), hostRows.size() * sizeof(UnitTriangleRow)),
        0)
        << scene << ": unit-triangle rows differ between host and device";

    const KdTree cpu = buildKdTreeSah(mesh.view());
    const DeviceKdTree cpuOnDevice(cpu, MemorySpace::Cuda);
    GpuKdTreeBuilder builder;
    const DeviceKdTree gpu = builder.build(deviceMesh);
    const std::vector<Ray> hostRays = identicalHitsRays(mesh, kIdenticalHitsRays);
    const Buffer<Ray> rays(MemorySpace::Cuda, hostRays);
    std::cout << "[ identical ] " << scene << ": " << hostRays.size() << " rays, CPU tree "
              << cpu.nodes.size() << " nodes, GPU-built tree " << gpu.nodeCount() << " nodes\n";
    for (const bool unit : {false, true}) {
      SCOPED_TRACE(unit ? "unit-triangle test" : "watertight test");
      const TriangleMeshView onHost = unit ? withUnitTriangles(mesh.view(), hostRows) : mesh.view();
      TriangleMeshView onDevice = deviceMesh;
      if (unit) onDevice.unitTriangles = deviceRows.data();
      const auto reference = traceOnHost(hostView(cpu, onHost), hostRays);
      EXPECT_EQ(
          countDifferences(hostRays, reference, traceOnDevice(cpuOnDevice.view(onDevice), rays),
                           "CPU tree on the host", "CPU tree on the device"),
          0u)
          << scene;
      EXPECT_EQ(countDifferences(hostRays, reference, traceOnDevice(gpu.view(onDevice), rays),
                                 "CPU tree on the host", "GPU-built tree on the device"),
                0u)
          << scene;
    }
  }
  if (meshes == 0) GTEST_SKIP() << "no scene of identicalHitsScenes() under " << testScenesDir();
}

// The tree the device builds for the lit Conference Room, copied to the host, against the CPU
// builder's tree on the rays a render makes (traced on the host: this checks the device's tree,
// not the device's traversal).
TEST(IdenticalHitsGpu, DeviceBuiltTreeOnRenderRays) {
  if (!cudaDeviceAvailable()) GTEST_SKIP() << "no CUDA device: " << cudaDeviceDescription();
  const std::string path = testScenePath("conference-room/conference.obj");
  if (path.empty()) GTEST_SKIP() << "no conference-room/conference.obj under " << testScenesDir();
  uint32_t firstPanel = 0;
  const TestMesh mesh = litConferenceRoomMesh(path, &firstPanel);
  const Buffer<Vec3f> positions(MemorySpace::Cuda, mesh.positions);
  const Buffer<uint32_t> indices(MemorySpace::Cuda, mesh.indices);
  GpuKdTreeBuilder builder;
  const KdTree device =
      builder.buildToHost({positions.data(), indices.data(), mesh.triangleCount()});
  const KdTree cpu = buildKdTreeSah(mesh.view());
  const std::vector<UnitTriangleRow> rows = unitTriangleRowsOf(mesh);
  const TriangleMeshView traced = withUnitTriangles(mesh.view(), rows);  // the renderer's test
  const RenderRayCounts c = compareOnRenderRays(traced, firstPanel, hostView(cpu, traced),
                                                hostView(device, traced), 400000, 11);
  std::cout << "[ identical ] lit conference room, device-built tree: " << c.closest
            << " closest-hit and " << c.shadow << " shadow rays\n";
  EXPECT_EQ(c.differing, 0u);
}

}  // namespace
}  // namespace srt::test
