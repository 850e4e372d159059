// The dual-tree diagnostic (renderer/wavefront/dual_tree_check.h): its file format comes back bit
// for bit, and a render under SRT_DUAL_TREE_CHECK re-traces every ray against the second tree and
// records nothing when the trees agree (CPU backend: the standard traversal only).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "renderer/accel/gpu/kdtree_build_gpu.h"
#include "renderer/wavefront/dual_tree_check_format.h"
#include "renderer/wavefront/dual_tree_replay.h"
#include "tests/render/render_test_util.h"

namespace srt {
namespace {

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

std::string tempPath(const char* name) {
  return ::testing::TempDir() + name;
}

TEST(DualTreeFormat, RecordsComeBackBitForBit) {
  DualTreeRecord r;
  r.shadow = 1, r.pass = 7, r.pixel = 123456, r.sample = 3;
  const float odd[] = {-0.f, 1e-40f, 0x1.fffffep+127f, 0.1f, -3.3333333f, 1e-30f};
  for (int k = 0; k < 3; ++k) r.o[k] = odd[k], r.d[k] = odd[k + 3];
  r.tMax = INFINITY;
  for (int k = 0; k < kDualTreeRuns; ++k)
    r.t[k] = 1.f / float(k + 3), r.tri[k] = k == 2 ? ~0u : 1000u + k, r.b1[k] = 0.25f,
    r.b2[k] = -0.f;
  r.occluded = 0b10110, r.ran = 0b11110;
  const std::string path = tempPath("dual_tree_format.txt");
  {
    std::ofstream out(path);
    DualTreeHeader h;
    h.primaryBuilder = "gpu", h.secondBuilder = "cpu";
    h.primaryHash = ~0ull, h.secondHash = 1, h.meshHash = 42, h.triangles = 9;
    writeDualTreeHeader(out, h);
    writeDualTreeRecord(out, r);
  }
  const DualTreeFile f = readDualTreeFile(path);
  EXPECT_EQ(f.header.primaryBuilder, "gpu");
  EXPECT_EQ(f.header.primaryHash, ~0ull);
  EXPECT_EQ(f.header.meshHash, 42u);
  ASSERT_EQ(f.records.size(), 1u);
  const DualTreeRecord& q = f.records[0];
  EXPECT_EQ(q.shadow, 1u);
  EXPECT_EQ(q.pixel, 123456u);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(bits(q.o[k]), bits(r.o[k]));
    EXPECT_EQ(bits(q.d[k]), bits(r.d[k]));
  }
  EXPECT_EQ(bits(q.tMax), bits(r.tMax));
  for (int k = 0; k < kDualTreeRuns; ++k) {
    EXPECT_EQ(bits(q.t[k]), bits(r.t[k]));
    EXPECT_EQ(q.tri[k], r.tri[k]);
    EXPECT_EQ(bits(q.b2[k]), bits(r.b2[k]));
  }
  EXPECT_EQ(q.occluded, r.occluded);
  EXPECT_TRUE(dualTreeRunsAgree(q, 1, 2));   // both blocked
  EXPECT_FALSE(dualTreeRunsAgree(q, 1, 3));  // blocked vs clear
}

TEST(DualTreeFormat, TreeFilesRoundTripAndRefuseTruncation) {
  const Scene s = test::pointLightInSphere();
  const FlatGeometry geo = flatten(s);
  const TriangleMeshView mesh{geo.positions.data(), geo.indices.data(),
                              uint32_t(geo.triangleCount())};
  const KdTree tree = buildKdTreeSah(mesh);
  const std::string path = tempPath("dual_tree.kdtree");
  writeKdTreeFile(path, tree);
  EXPECT_EQ(hashKdTree(readKdTreeFile(path)), hashKdTree(tree));
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::ofstream(path, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size() - 4));
  EXPECT_THROW(readKdTreeFile(path), std::runtime_error);
}

TEST(DualTreeCheck, RenderRecordsNothingWhenTheTreesAgree) {
  const std::string path = tempPath("dual_tree_render.txt");
  setenv("SRT_DUAL_TREE_CHECK", path.c_str(), 1);
  setenv("SRT_DUAL_TREE_BUILDER", "gpu-host", 1);
  const Scene scene = test::pointLightInSphere();
  AccelOptions accel;
  accel.builder = "cpu";
  Renderer(scene, selectBackend("cpu"), test::options(16, 16, 2, 3), accel).render(0.f);
  unsetenv("SRT_DUAL_TREE_CHECK");
  unsetenv("SRT_DUAL_TREE_BUILDER");
  const DualTreeFile f = readDualTreeFile(path);
  EXPECT_EQ(f.header.primaryBuilder, "cpu");
  EXPECT_EQ(f.header.secondBuilder, "gpu-host");
  const FlatGeometry geo = flatten(scene);
  const TriangleMeshView mesh{geo.positions.data(), geo.indices.data(),
                              uint32_t(geo.triangleCount())};
  EXPECT_EQ(f.header.meshHash, hashMesh(mesh));
  EXPECT_EQ(f.header.primaryHash, hashKdTree(buildKdTreeSah(mesh)));
  EXPECT_EQ(f.header.secondHash, hashKdTree(buildKdTreeGpuAlgorithmOnHost(mesh)));
  EXPECT_TRUE(f.records.empty());
  std::ifstream summary(path + ".summary");
  std::map<std::string, unsigned long long> counts;
  std::string key;
  unsigned long long value = 0;
  while (summary >> key) {
    if (summary >> value)
      counts[key] = value;
    else
      summary.clear(), summary >> key;  // second_builder's value is a name
  }
  // Every camera ray, and no more than maxDepth + 1 rays a path.
  EXPECT_GE(counts["closest_rays"], 16u * 16u * 2u);
  EXPECT_LE(counts["closest_rays"], 16u * 16u * 2u * 4u);
  EXPECT_GT(counts["shadow_rays"], 0u);
  EXPECT_EQ(counts["closest_differing"], 0u);
  EXPECT_EQ(counts["shadow_differing"], 0u);
}

}  // namespace
}  // namespace srt
