// Closest hits do not depend on the tree: the CPU SAH tree and the GPU build's algorithm (run on
// the host, the same per-element code as its kernels) give the same triangle and the same t, bit
// for bit, on a million rays per real mesh; and on meshes made of exact ties every tree gives brute
// force's answer, the least (t, triangle index). No device needed.
#include <gtest/gtest.h>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "renderer/accel/gpu/kdtree_build_gpu.h"
#include "renderer/accel/kdtree_build_sah.h"
#include "tests/accel/kdtree_identical_hits.h"
#include "tests/accel/kdtree_render_rays.h"
#include "tests/accel/kdtree_test_util.h"

namespace srt::test {
namespace {

std::vector<ClosestResult> bruteForce(const TriangleMeshView& mesh, const std::vector<Ray>& rays) {
  std::vector<ClosestResult> out(rays.size());
  const long n = long(rays.size());
#pragma omp parallel for schedule(dynamic, 64)
  for (long i = 0; i < n; ++i) {
    ClosestResult& r = out[size_t(i)];
    r.hit = bruteClosest(mesh, rays[size_t(i)], &r.h);
  }
  return out;
}

TEST(IdenticalHits, CpuTreeAndGpuAlgorithmTreeOnRealMeshes) {
  int meshes = 0;
  for (const char* scene : identicalHitsScenes()) {
    const std::string path = testScenePath(scene);
    if (path.empty()) continue;
    ++meshes;
    const TestMesh mesh = loadObjMesh(path);
    const KdTree cpu = buildKdTreeSah(mesh.view());
    const KdTree gpu = buildKdTreeGpuAlgorithmOnHost(mesh.view());
    const std::vector<Ray> rays = identicalHitsRays(mesh, kIdenticalHitsRays);
    // The renderer's triangle test (the watertight one: FastQualityTreeGivesTheSameHits).
    const std::vector<UnitTriangleRow> rows = unitTriangleRowsOf(mesh);
    const TriangleMeshView traced = withUnitTriangles(mesh.view(), rows);
    const auto a = traceOnHost(hostView(cpu, traced), rays);
    const auto b = traceOnHost(hostView(gpu, traced), rays);
    size_t hits = 0;
    for (const ClosestResult& r : a) hits += r.hit;
    std::cout << "[ identical ] " << scene << ": " << rays.size() << " rays, " << hits
              << " hits, CPU tree " << cpu.nodes.size() << " nodes, GPU-algorithm tree "
              << gpu.nodes.size() << " nodes\n";
    EXPECT_EQ(countDifferences(rays, a, b, "CPU SAH tree", "GPU-algorithm tree"), 0u) << scene;
  }
  if (meshes == 0) GTEST_SKIP() << "no scene of identicalHitsScenes() under " << testScenesDir();
}

// The fast-quality tree (--kd-quality fast: small nodes cut their terminal's boxes, leaves clipped)
// is another tree, and its hits are the same: on the real meshes and on meshes of exact ties.
TEST(IdenticalHits, FastQualityTreeGivesTheSameHits) {
  GpuKdBuildOptions fast;
  fast.smallClampBoxes = true;
  std::vector<TestMesh> meshes{coplanarTriangles(), axisPlaneTriangles(), slivers(500),
                               randomTriangles(3000, 7)};
  for (const char* scene : identicalHitsScenes())
    if (const std::string path = testScenePath(scene); !path.empty())
      meshes.push_back(loadObjMesh(path));
  bool treesDiffer = false;
  for (const TestMesh& mesh : meshes) {
    SCOPED_TRACE(mesh.name);
    const KdTree cpu = buildKdTreeSah(mesh.view());
    const KdTree full = buildKdTreeGpuAlgorithmOnHost(mesh.view());
    const KdTree quick = buildKdTreeGpuAlgorithmOnHost(mesh.view(), fast);
    treesDiffer = treesDiffer || quick.nodes.size() != full.nodes.size();
    const std::vector<Ray> rays = identicalHitsRays(mesh, 200000);
    EXPECT_EQ(countDifferences(rays, traceOnHost(hostView(cpu, mesh.view()), rays),
                               traceOnHost(hostView(quick, mesh.view()), rays), "CPU SAH tree",
                               "fast-quality tree"),
              0u);
  }
  EXPECT_TRUE(treesDiffer) << "the fast quality built the full-quality trees";
}

// The rays a render makes (origins on surfaces, shadow rays ending short of the lit Conference
// Room's panels) meet the same triangles through either tree, closest and any hit.
TEST(IdenticalHits, CpuTreeAndGpuAlgorithmTreeOnRenderRays) {
  const std::string path = testScenePath("conference-room/conference.obj");
  if (path.empty()) GTEST_SKIP() << "no conference-room/conference.obj under " << testScenesDir();
  uint32_t firstPanel = 0;
  const TestMesh mesh = litConferenceRoomMesh(path, &firstPanel);
  const KdTree cpu = buildKdTreeSah(mesh.view());
  const KdTree gpu = buildKdTreeGpuAlgorithmOnHost(mesh.view());
  const std::vector<UnitTriangleRow> rows = unitTriangleRowsOf(mesh);
  const TriangleMeshView traced = withUnitTriangles(mesh.view(), rows);  // the renderer's test
  const RenderRayCounts c = compareOnRenderRays(traced, firstPanel, hostView(cpu, traced),
                                                hostView(gpu, traced), 50000, 11);
  std::cout << "[ identical ] lit conference room: " << c.closest << " closest-hit and " << c.shadow
            << " shadow rays\n";
  EXPECT_EQ(c.differing, 0u);
}

// Meshes where many rays meet two or more triangles at exactly the same t: whatever the tree
// visits first, the lower triangle index wins, as in the brute force that tests them in order.
TEST(IdenticalHits, TiesGoToTheLowerTriangle) {
  const TestMesh meshes[] = {
      identicalTriangles(1), identicalTriangles(40), coplanarTriangles(),     axisPlaneTriangles(),
      slivers(33),           degenerateTriangles(),  randomTriangles(3000, 7)};
  for (const TestMesh& mesh : meshes) {
    SCOPED_TRACE(mesh.name);
    const std::vector<Ray> rays = identicalHitsRays(mesh, 25000);
    KdBuildOptions shallow;
    shallow.maxDepth = 2;  // large leaves: ties inside one leaf
    KdBuildOptions serial;
    serial.parallel = false;
    const KdTree trees[] = {buildKdTreeSah(mesh.view()), buildKdTreeSah(mesh.view(), shallow),
                            buildKdTreeSah(mesh.view(), serial),
                            buildKdTreeGpuAlgorithmOnHost(mesh.view())};
    const char* names[] = {"CPU SAH tree", "depth-2 tree", "serial build", "GPU-algorithm tree"};
    const std::vector<UnitTriangleRow> rows = unitTriangleRowsOf(mesh);
    for (const TriangleMeshView& traced : {mesh.view(), withUnitTriangles(mesh.view(), rows)}) {
      SCOPED_TRACE(traced.unitTriangles ? "unit-triangle test" : "watertight test");
      const auto ref = bruteForce(traced, rays);
      for (size_t k = 0; k < 4; ++k)
        EXPECT_EQ(countDifferences(rays, ref, traceOnHost(hostView(trees[k], traced), rays),
                                   "brute force", names[k]),
                  0u);
    }
  }
}

}  // namespace
}  // namespace srt::test
