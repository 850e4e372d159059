// The GPU kd-tree build (Zhou et al. 2008) on the device: closest and any hits of the GPU-built
// tree traversed in a kernel equal a brute-force kernel; the tree is well formed (computeStats);
// its SAH cost is near the CPU SAH builder's (the ratio is printed); every registered segmented
// reduction (one name selects the AABB variant for node bounds and the int variant for the binned
// SAH's counts) and every ordered CUDA compaction give the same tree bit for bit (AABB union and
// int sums are exact, the compaction is ordered); rebuilds reuse scratch and give the same tree;
// degenerate meshes.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <limits>
#include <random>
#include <stdexcept>

#include "primitives/common/cuda_check.h"
#include "primitives/common/memory.h"
#include "primitives/compaction/compaction.h"
#include "renderer/accel/gpu/kdtree_build_gpu.h"
#include "renderer/accel/gpu/segmented_boxes.h"
#include "renderer/accel/kdtree_build_sah.h"
#include "tests/accel/kdtree_gpu_trace.cuh"
#include "tests/accel/kdtree_test_util.h"

namespace srt::test {
namespace {

#define SRT_REQUIRE_DEVICE() \
  if (!cudaDeviceAvailable()) GTEST_SKIP() << "no CUDA device: " << cudaDeviceDescription()

std::vector<Result> trace(bool kd, const KdTreeView& tree, const std::vector<Ray>& hostRays) {
  const Buffer<Ray> rays(MemorySpace::Cuda, hostRays);
  const uint32_t n = uint32_t(hostRays.size());
  Buffer<Result> out(MemorySpace::Cuda, n);
  if (n > 0) {
    if (kd)
      traceKdKernel<<<(n + 127) / 128, 128>>>(tree, rays.data(), n, out.data());
    else
      traceBruteKernel<<<(n + 127) / 128, 128>>>(tree.mesh, rays.data(), n, out.data());
    SRT_CUDA_CHECK_LAUNCH();
  }
  SRT_CUDA_CHECK(cudaDeviceSynchronize());
  return out.download();
}

struct DeviceMesh {
  Buffer<Vec3f> positions;
  Buffer<uint32_t> indices;
  TriangleMeshView view;
  explicit DeviceMesh(const TestMesh& m)
      : positions(MemorySpace::Cuda, m.positions), indices(MemorySpace::Cuda, m.indices) {
    view.positions = positions.data();
    view.indices = indices.data();
    view.triangleCount = m.triangleCount();
  }
};

// Compaction primitives the build accepts: ordered, on CUDA memory.
std::vector<std::string> orderedCudaCompactions() {
  std::vector<std::string> names;
  for (const auto& e : compaction::Registry::global().entries())
    if (e.info.device == compaction::Device::Cuda && e.info.ordered && e.info.compacts &&
        e.info.accepts_(MemorySpace::Cuda))
      names.push_back(e.info.name);
  return names;
}

std::vector<std::string> segmentedReductions() {
  return gpuKdSegmentedReductionNames();
}

// Same nodes and references; split planes compared as floats (-0 and +0 are the same plane, and
// fminf may return either zero, so reductions in a different order can differ in its sign).
bool sameTree(const KdTree& a, const KdTree& b) {
  if (a.nodes.size() != b.nodes.size() || a.primIndices != b.primIndices) return false;
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const KdNode &x = a.nodes[i], &y = b.nodes[i];
    if (x.flags != y.flags) return false;
    if (x.isLeaf() ? x.onePrimitive != y.onePrimitive : !(x.split == y.split)) return false;
  }
  return true;
}

// Hits against brute force on the device, structure, SAH ratio; returns the tree.
KdTree checkTree(const TestMesh& mesh, const DeviceMesh& dm, GpuKdTreeBuilder& builder,
                 size_t raysPerFamily, double maxSahRatio) {
  SCOPED_TRACE(mesh.name + " / " + builder.options().segreduce + " / " +
               builder.options().compaction);
  GpuKdBuildStats st;
  const DeviceKdTree tree = builder.build(dm.view, nullptr, &st);
  const KdTree host = builder.buildToHost(dm.view);
  KdTreeStats s;
  EXPECT_NO_THROW(s = computeStats(host)) << "malformed tree";
  EXPECT_EQ(s.nodes, host.nodes.size()) << "nodes unreachable from the root";
  EXPECT_EQ(st.nodes, host.nodes.size());
  EXPECT_LE(s.maxDepth, size_t(kKdMaxDepth));
  const KdTreeView view = tree.view(dm.view);
  size_t bad = 0, hits = 0;
  for (RayFamily family : kAllRayFamilies) {
    const std::vector<Ray> rays = makeRays(mesh, family, raysPerFamily, 4242 + size_t(family));
    const std::vector<Result> kd = trace(true, view, rays), brute = trace(false, view, rays);
    for (size_t i = 0; i < rays.size(); ++i) {
      hits += brute[i].closest;
      const bool wrong = !sameClosest(brute[i].closest, brute[i].hit, kd[i].closest, kd[i].hit) ||
                         brute[i].any != kd[i].any;
      if (wrong && bad++ < 5)
        ADD_FAILURE() << toString(family) << " ray " << i << ": brute "
                      << describe(rays[i], brute[i].closest, brute[i].hit) << " | GPU-built tree "
                      << describe(rays[i], kd[i].closest, kd[i].hit) << " any " << kd[i].any;
    }
  }
  EXPECT_EQ(bad, 0u) << "hits differing from brute force";
  const KdTreeStats cpu = computeStats(buildKdTreeSah(mesh.view()));
  const KdTree refTree = buildKdTreeGpuAlgorithmOnHost(mesh.view(), builder.options());
  const KdTreeStats ref = computeStats(refTree);
  const double ratio = cpu.sahCost > 0 ? s.sahCost / cpu.sahCost : 1.0;
  std::cout << "[ " << mesh.name << " ] GPU build: " << s.nodes << " nodes, " << s.leaves
            << " leaves, depth " << s.maxDepth << ", " << st.largeNodeLevels << " large levels, "
            << st.terminals << " small roots, SAH " << s.sahCost << " | host reference SAH "
            << ref.sahCost << " (" << ref.nodes << " nodes) | CPU builder SAH " << cpu.sahCost
            << " | SAH ratio GPU/CPU " << ratio << " | " << hits << " brute-force hits\n";
  if (maxSahRatio > 0) {
    EXPECT_LE(ratio, maxSahRatio) << "SAH cost of the GPU build vs the CPU SAH builder";
  }
  // Same algorithm and the same rounding (no FMA contraction in the clip or the SAH arithmetic):
  // the host reference's tree, node for node.
  EXPECT_TRUE(sameTree(host, refTree)) << "GPU build vs its host reference: " << host.nodes.size()
                                       << " against " << refTree.nodes.size() << " nodes";
  return host;
}

TEST(KdTreeGpuBuild, DegenerateAndSyntheticMeshes) {
  SRT_REQUIRE_DEVICE();
  GpuKdTreeBuilder builder;
  for (const TestMesh& mesh :
       {emptyMesh(), nonFiniteTriangles(), oneTriangle(), identicalTriangles(1),
        identicalTriangles(64), identicalTriangles(300), degenerateTriangles(), coplanarTriangles(),
        axisPlaneTriangles(), randomTriangles(65, 1), randomTriangles(20000, 2), slivers(2000)}) {
    const DeviceMesh dm(mesh);
    checkTree(mesh, dm, builder, 1500, 0);
  }
}

// The fast quality (small nodes cut their terminal's boxes; leaves clipped): hits as brute force's
// on the awkward meshes and the teapot, and the host reference's tree.
TEST(KdTreeGpuBuild, FastQualityTrees) {
  SRT_REQUIRE_DEVICE();
  GpuKdBuildOptions fast;
  fast.smallClampBoxes = true;
  GpuKdTreeBuilder builder(fast);
  std::vector<TestMesh> meshes{
      emptyMesh(),         oneTriangle(),        identicalTriangles(300), degenerateTriangles(),
      coplanarTriangles(), axisPlaneTriangles(), randomTriangles(65, 1),  randomTriangles(20000, 2),
      slivers(2000)};
  const std::string teapot = testScenePath("teapot/teapot.obj");
  if (!teapot.empty()) meshes.push_back(loadObjMesh(teapot));
  for (const TestMesh& mesh : meshes) {
    const DeviceMesh dm(mesh);
    checkTree(mesh, dm, builder, 1500, 0);
  }
}

TEST(KdTreeGpuBuild, EveryReductionAndCompactionGivesTheSameTree) {
  SRT_REQUIRE_DEVICE();
  const TestMesh mesh = randomTriangles(30000, 5);
  const DeviceMesh dm(mesh);
  GpuKdTreeBuilder first;
  const KdTree reference = checkTree(mesh, dm, first, 500, 0);
  const std::vector<std::string> compactions = orderedCudaCompactions();
  ASSERT_FALSE(compactions.empty());
  size_t combos = 0;
  for (const std::string& r : segmentedReductions())
    for (const std::string& c : compactions) {
      GpuKdBuildOptions o;
      o.segreduce = r;
      o.compaction = c;
      GpuKdTreeBuilder builder(o);
      const KdTree tree = builder.buildToHost(dm.view);
      EXPECT_TRUE(sameTree(tree, reference))
          << "segreduce " << r << ", compaction " << c << ": " << tree.nodes.size() << " nodes vs "
          << reference.nodes.size();
      ++combos;
    }
  std::cout << combos << " (reduction, compaction) pairs give the same tree\n";
}

TEST(KdTreeGpuBuild, ScenesWithEveryReduction) {
  SRT_REQUIRE_DEVICE();
  size_t found = 0;
  for (const GpuBuildScene& scene : gpuBuildScenes()) {
    const double maxRatio = scene.maxSahRatio;
    const std::string path = testScenePath(scene.relativePath);
    if (path.empty()) continue;
    ++found;
    const TestMesh mesh = loadObjMesh(path);
    const DeviceMesh dm(mesh);
    GpuKdTreeBuilder builder;
    const KdTree reference = checkTree(mesh, dm, builder, 3000, maxRatio);
    for (const std::string& r : segmentedReductions()) {
      GpuKdBuildOptions o;
      o.segreduce = r;
      GpuKdTreeBuilder other(o);
      EXPECT_TRUE(sameTree(other.buildToHost(dm.view), reference)) << mesh.name << " with " << r;
    }
  }
  if (found == 0) GTEST_SKIP() << "no scenes under " << testScenesDir();
}

TEST(KdTreeGpuBuild, RebuildReusesScratchAndRepeats) {
  SRT_REQUIRE_DEVICE();
  const TestMesh big = randomTriangles(40000, 7), small = randomTriangles(3000, 8);
  const DeviceMesh dBig(big), dSmall(small);
  GpuKdTreeBuilder builder;
  const KdTree a = builder.buildToHost(dBig.view);
  const KdTree b = builder.buildToHost(dSmall.view);
  const size_t before = bytesInUse(MemorySpace::Cuda);
  const KdTree c = builder.buildToHost(dBig.view);  // warm: only the output is allocated
  const size_t after = bytesInUse(MemorySpace::Cuda);
  EXPECT_TRUE(sameTree(a, c)) << "a rebuild of the same mesh differs";
  EXPECT_EQ(before, after) << "scratch grew on a rebuild with no more triangles";
  EXPECT_NO_THROW(computeStats(b));
  GpuKdTreeBuilder fresh;
  EXPECT_TRUE(sameTree(b, fresh.buildToHost(dSmall.view))) << "scratch from a bigger build leaks";
}

TEST(KdTreeGpuBuild, StreamAndStats) {
  SRT_REQUIRE_DEVICE();
  const TestMesh mesh = randomTriangles(50000, 11);
  const DeviceMesh dm(mesh);
  cudaStream_t stream;
  SRT_CUDA_CHECK(cudaStreamCreate(&stream));
  GpuKdTreeBuilder builder;
  GpuKdBuildStats st;
  const KdTree t = builder.buildToHost(dm.view, stream, &st);
  SRT_CUDA_CHECK(cudaStreamDestroy(stream));
  EXPECT_EQ(st.nodes, t.nodes.size());
  EXPECT_EQ(st.leaves, (t.nodes.size() + 1) / 2);
  EXPECT_GT(st.largeNodeLevels, 0u);
  EXPECT_GT(st.terminals, 0u);
  for (double ms : {st.setupMs, st.boundsMs, st.binsMs, st.splitMs, st.compactionMs, st.smallNodeMs,
                    st.finalizeMs}) {
    EXPECT_GE(ms, 0.0);
    EXPECT_LE(ms, st.totalMs);
  }
  EXPECT_GT(st.totalMs, 0.0);
  EXPECT_GT(st.binsMs, 0.0) << "the large-node stage bins (50000 triangles)";
}

// The speed variants (GpuKdBuildOptions: reused boxes, one warp per node for the split choice, the
// small kernel's carve-out, both stages' polygons in shared memory) build the same tree as the
// plain build, node for node, per clipper.
TEST(KdTreeGpuBuild, SpeedVariantsBuildTheSameTree) {
  SRT_REQUIRE_DEVICE();
  std::vector<TestMesh> meshes{randomTriangles(30000, 7), slivers(2000)};
  const std::string teapot = testScenePath("teapot/teapot.obj");
  if (!teapot.empty()) meshes.push_back(loadObjMesh(teapot));
  for (const TestMesh& mesh : meshes) {
    const DeviceMesh dm(mesh);
    // Per clipper: the streaming clipper has no shared-memory form, so each is compared with
    // the plain build of its own kind (the host test proves the two clip the same bit for bit).
    for (const bool streaming : {false, true}) {
      GpuKdBuildOptions o;
      o.smallReuseBoxes = false;
      o.streamingClip = streaming;
      o.smallSharedClip = false;
      o.largeSharedClip = false;
      o.splitPerWarp = false;
      GpuKdTreeBuilder plain(o);
      const KdTree reference = plain.buildToHost(dm.view);
      for (int variant = 1; variant < 16; ++variant) {
        o.smallReuseBoxes = variant & 1;
        o.splitPerWarp = variant & 2;
        o.smallCarveout = variant & 4 ? 50 : -1;
        // The shared clips are the array clip's, in both stages.
        o.smallSharedClip = !streaming && (variant & 8);
        o.largeSharedClip = !streaming && (variant & 8);
        GpuKdTreeBuilder builder(o);
        EXPECT_TRUE(sameTree(builder.buildToHost(dm.view), reference))
            << mesh.name << ": reuse " << o.smallReuseBoxes << ", streaming clip " << streaming
            << ", split per warp " << o.splitPerWarp << ", carve-out " << o.smallCarveout
            << ", shared clips " << o.smallSharedClip;
      }
    }
  }
}

// Replayed levels (launched from the previous build's counts) build the sync levels' tree: on a
// rebuild of the same mesh (exact counts with no slack, and with slack), and on another mesh of
// as many triangles, which may outgrow the replay and be built again with sync levels; the same
// as a CUDA graph.
TEST(KdTreeGpuBuild, ReplayedLevelsBuildTheSameTree) {
  SRT_REQUIRE_DEVICE();
  std::vector<TestMesh> meshes{randomTriangles(30000, 7), randomTriangles(30000, 8), slivers(2000)};
  const std::string teapot = testScenePath("teapot/teapot.obj");
  if (!teapot.empty()) meshes.push_back(loadObjMesh(teapot));
  GpuKdBuildOptions o;
  GpuKdTreeBuilder sync(o);
  for (GpuKdLevels levels : {GpuKdLevels::Replay, GpuKdLevels::Graph}) {
    for (int slack : {0, 10}) {
      o.levels = levels;
      o.replaySlack = slack;
      GpuKdTreeBuilder replay(o);
      for (const TestMesh& mesh : meshes) {
        const DeviceMesh dm(mesh);
        const KdTree reference = sync.buildToHost(dm.view);
        GpuKdBuildStats st;
        for (int k = 0; k < 4; ++k) {  // Graph: the third build captures, the fourth relaunches
          EXPECT_TRUE(sameTree(replay.buildToHost(dm.view, nullptr, &st), reference))
              << mesh.name << ", " << toString(levels) << ", slack " << slack << ", build " << k;
          if (k > 0) EXPECT_TRUE(st.replayed && !st.retried) << mesh.name << ", slack " << slack;
        }
      }
    }
  }
}

// A rebuild assumes the last build's count of valid triangles; a mesh of as many triangles with
// fewer (or more) finite ones is built again from its own count, to the sync levels' tree.
TEST(KdTreeGpuBuild, RebuildWithAnotherValidCountIsBuiltAgain) {
  SRT_REQUIRE_DEVICE();
  const TestMesh finite = randomTriangles(30000, 9);
  TestMesh holes = finite;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (uint32_t t = 0; t < holes.triangleCount(); t += 97)
    holes.positions[holes.indices[3 * t]] = {nan, 0.f, 0.f};
  GpuKdBuildOptions o;
  GpuKdTreeBuilder sync(o);
  for (GpuKdLevels levels : {GpuKdLevels::Replay, GpuKdLevels::Graph}) {
    o.levels = levels;
    GpuKdTreeBuilder replay(o);
    int k = 0;
    for (const TestMesh* mesh :
         std::vector<const TestMesh*>{&finite, &finite, &holes, &holes, &finite, &finite}) {
      const DeviceMesh dm(*mesh);
      GpuKdBuildStats st;
      EXPECT_TRUE(sameTree(replay.buildToHost(dm.view, nullptr, &st), sync.buildToHost(dm.view)))
          << toString(levels) << ", build " << k;
      // The builds after a change of mesh guess the count wrong and build again.
      if (k == 2 || k == 4) EXPECT_TRUE(st.retried) << toString(levels) << ", build " << k;
      if (k == 1 || k == 3 || k == 5)
        EXPECT_TRUE(st.replayed && !st.retried) << toString(levels) << ", build " << k;
      ++k;
    }
  }
}

// Every triangle the mesh's first: as many triangles, and a one-leaf tree with no terminal.
TestMesh stackedOnFirst(const TestMesh& mesh) {
  TestMesh stacked = mesh;
  for (uint32_t t = 0; t < stacked.triangleCount(); ++t)
    for (int k = 0; k < 3; ++k) stacked.indices[3 * t + k] = mesh.indices[k];
  return stacked;
}

// A rebuild of a mesh with as many triangles as the last writes its tree into arrays allocated
// during the build, with room for a tree an eighth larger; a larger tree gets arrays of its own.
TEST(KdTreeGpuBuild, RebuildsIntoReservedArraysOnlyWhereTheTreeFits) {
  SRT_REQUIRE_DEVICE();
  const TestMesh mesh = randomTriangles(20000, 21), stacked = stackedOnFirst(mesh);
  const DeviceMesh dMesh(mesh), dStacked(stacked);
  GpuKdTreeBuilder fresh;
  const KdTree expectMesh = fresh.buildToHost(dMesh.view),
               expectStacked = fresh.buildToHost(dStacked.view);
  ASSERT_GT(expectMesh.nodes.size(), 8 * expectStacked.nodes.size());
  GpuKdTreeBuilder builder;
  for (const DeviceMesh* m : {&dMesh, &dStacked, &dMesh}) builder.buildToHost(m->view);
  const size_t held = bytesInUse(MemorySpace::Cuda);  // the scratch both meshes need
  struct Step {
    const DeviceMesh* mesh;
    const KdTree* expect;
    bool reserved;
  };
  // The same tree again fits; the small one fits the large one's room; the large one does not
  // fit the small one's; then it fits its own again.
  const Step steps[] = {{&dMesh, &expectMesh, true},
                        {&dStacked, &expectStacked, true},
                        {&dMesh, &expectMesh, false},
                        {&dMesh, &expectMesh, true}};
  int k = 0;
  for (const Step& s : steps) {
    GpuKdBuildStats st;
    EXPECT_TRUE(sameTree(builder.buildToHost(s.mesh->view, nullptr, &st), *s.expect))
        << "build " << k;
    EXPECT_EQ(st.outputReserved, s.reserved) << "build " << k;
    EXPECT_EQ(bytesInUse(MemorySpace::Cuda), held) << "build " << k << " kept memory";
    ++k;
  }
}

// A replay planned from a build without terminals launches no terminal, yet must still see the
// large nodes its too few levels left behind, and build again.
TEST(KdTreeGpuBuild, ReplayAfterATreeWithoutTerminalsBuildsAgain) {
  SRT_REQUIRE_DEVICE();
  const TestMesh mesh = randomTriangles(20000, 21), stacked = stackedOnFirst(mesh);
  const DeviceMesh dMesh(mesh), dStacked(stacked);
  GpuKdTreeBuilder sync;
  const KdTree expect = sync.buildToHost(dMesh.view);
  for (GpuKdLevels levels : {GpuKdLevels::Replay, GpuKdLevels::Graph}) {
    GpuKdBuildOptions o;
    o.levels = levels;
    GpuKdTreeBuilder builder(o);
    int k = 0;
    for (const DeviceMesh* m : {&dMesh, &dMesh, &dStacked, &dMesh, &dMesh}) {
      GpuKdBuildStats st;
      const KdTree got = builder.buildToHost(m->view, nullptr, &st);
      if (m == &dStacked) {
        EXPECT_EQ(got.nodes.size(), 1u) << toString(levels);
      } else {
        EXPECT_TRUE(sameTree(got, expect)) << toString(levels) << ", build " << k;
      }
      if (k == 3) EXPECT_TRUE(st.retried) << toString(levels) << ": the short replay went unseen";
      ++k;
    }
  }
}

TEST(KdTreeGpuBuild, UnknownNamesAndBadOptionsThrow) {
  GpuKdBuildOptions o;
  o.segreduce = "no-such-reduction";
  EXPECT_THROW(GpuKdTreeBuilder{o}, std::invalid_argument);
  o = {};
  o.compaction = "no-such-compaction";
  EXPECT_THROW(GpuKdTreeBuilder{o}, std::invalid_argument);
  o = {};
  o.compaction = "cpu";  // not on CUDA memory
  EXPECT_THROW(GpuKdTreeBuilder{o}, std::invalid_argument);
  o = {};
  o.smallNodeThreshold = 65;
  EXPECT_THROW(GpuKdTreeBuilder{o}, std::invalid_argument);
}

}  // namespace
}  // namespace srt::test
