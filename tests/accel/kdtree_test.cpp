// The CPU SAH kd-tree against brute force: real scenes and synthetic edge cases, several ray
// families each; tree structure and statistics; bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>

#include "renderer/accel/device_kdtree.h"
#include "renderer/accel/kdtree_build_sah.h"
#include "renderer/accel/kdtree_build_sah_wide.h"
#include "tests/accel/kdtree_test_util.h"

namespace srt::test {
namespace {

// Closest and any hit for every ray family; returns the number of disagreements (reported).
// With one triangle test (`mv`: watertight, or unit triangles when it carries their rows).
size_t compareWithBruteForce(const TestMesh& mesh, const TriangleMeshView& mv, const KdTree& tree,
                             size_t raysPerFamily, uint64_t seed) {
  const KdTreeView kv = hostView(tree, mv);
  size_t total = 0;
  for (RayFamily family : kAllRayFamilies) {
    const std::vector<Ray> rays = makeRays(mesh, family, raysPerFamily, seed + size_t(family));
    std::vector<uint8_t> bad(rays.size(), 0);
    size_t hits = 0;
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : hits)
    for (size_t i = 0; i < rays.size(); ++i) {
      Hit ref, got;
      const bool refHit = bruteClosest(mv, rays[i], &ref);
      const bool gotHit = intersectClosest(kv, rays[i], &got);
      hits += refHit;
      if (!sameClosest(refHit, ref, gotHit, got)) bad[i] = 1;
      if (bruteAny(mv, rays[i]) != intersectAny(kv, rays[i])) bad[i] |= 2;
      if (gotHit && !(got.b1 >= 0 && got.b2 >= 0 && got.b1 + got.b2 <= 1.0001f)) bad[i] |= 4;
    }
    size_t shown = 0, count = 0;
    for (size_t i = 0; i < rays.size(); ++i) {
      if (!bad[i]) continue;
      ++count;
      if (shown++ < 5) {
        Hit ref, got;
        const bool refHit = bruteClosest(mv, rays[i], &ref);
        const bool gotHit = intersectClosest(kv, rays[i], &got);
        ADD_FAILURE() << mesh.name << (mv.unitTriangles ? " (unit triangles) " : " ")
                      << toString(family) << " ray " << i << " (flags " << int(bad[i])
                      << "): brute " << describe(rays[i], refHit, ref) << " | kd-tree "
                      << (gotHit ? "hit tri " + std::to_string(got.triangle) +
                                       " t=" + std::to_string(got.t)
                                 : std::string("miss"))
                      << " any(brute)=" << bruteAny(mv, rays[i])
                      << " any(kd)=" << intersectAny(kv, rays[i]);
      }
    }
    // A family where nothing hits would test nothing (except on the empty mesh).
    if (mesh.triangleCount() > 0 && family != RayFamily::ShortRays) {
      EXPECT_GT(hits, 0u) << mesh.name << " " << toString(family);
    }
    total += count;
  }
  return total;
}

// Traversal against brute force with both triangle tests.
size_t compareWithBruteForce(const TestMesh& mesh, const KdTree& tree, size_t raysPerFamily,
                             uint64_t seed) {
  const std::vector<UnitTriangleRow> rows = unitTriangleRowsOf(mesh);
  return compareWithBruteForce(mesh, mesh.view(), tree, raysPerFamily, seed) +
         compareWithBruteForce(mesh, withUnitTriangles(mesh.view(), rows), tree, raysPerFamily,
                               seed);
}

// Tree shape and statistics agree with each other and with the mesh.
void checkStructure(const TestMesh& mesh, const KdTree& tree, const KdBuildOptions& options) {
  const KdTreeStats s = computeStats(tree, options);
  ASSERT_EQ(s.nodes, tree.nodes.size()) << mesh.name << ": nodes unreachable from the root";
  EXPECT_EQ(s.leaves, (s.nodes + 1) / 2) << mesh.name << ": a binary tree has one more leaf";
  EXPECT_LE(s.emptyLeaves, s.leaves);
  EXPECT_LE(s.maxDepth, size_t(kKdMaxDepth));
  if (options.maxDepth > 0) {
    EXPECT_LE(s.maxDepth, size_t(options.maxDepth));
  }
  // Referenced triangles: in range, every finite triangle at least once, each overlapping its
  // leaf's box.
  std::vector<uint8_t> seen(mesh.triangleCount(), 0);
  size_t refs = 0, nonEmpty = 0;
  const float tol = 1e-5f * (1.f + maxComponent(max(tree.bounds.hi, -tree.bounds.lo)));
  struct Item {
    uint32_t node;
    Bounds3f box;
  };
  std::vector<Item> stack{{0, tree.bounds}};
  while (!stack.empty()) {
    const Item it = stack.back();
    stack.pop_back();
    const KdNode& n = tree.nodes[it.node];
    if (!n.isLeaf()) {
      EXPECT_GE(n.split, it.box.lo[n.axis()]);
      EXPECT_LE(n.split, it.box.hi[n.axis()]);
      Bounds3f lo = it.box, hi = it.box;
      lo.hi[n.axis()] = hi.lo[n.axis()] = n.split;
      stack.push_back({n.aboveChild(), hi});
      stack.push_back({it.node + 1, lo});
      continue;
    }
    const uint32_t c = n.primitiveCount();
    refs += c;
    nonEmpty += c > 0;
    for (uint32_t i = 0; i < c; ++i) {
      const uint32_t tri = c == 1 ? n.onePrimitive : tree.primIndices[n.primitiveOffset + i];
      ASSERT_LT(tri, mesh.triangleCount()) << mesh.name;
      seen[tri] = 1;
      Bounds3f tb;
      for (int k = 0; k < 3; ++k) tb.extend(mesh.positions[mesh.indices[3 * tri + k]]);
      for (int k = 0; k < 3; ++k)
        EXPECT_TRUE(tb.lo[k] <= it.box.hi[k] + tol && tb.hi[k] >= it.box.lo[k] - tol)
            << mesh.name << ": triangle " << tri << " outside its leaf " << it.node;
    }
  }
  EXPECT_EQ(refs, s.primReferences);
  if (nonEmpty) {
    EXPECT_DOUBLE_EQ(s.avgPrimsPerLeaf, double(refs) / double(nonEmpty));
  }
  for (uint32_t t = 0; t < mesh.triangleCount(); ++t) {
    bool finiteTri = true;
    for (int k = 0; k < 3; ++k) {
      const Vec3f p = mesh.positions[mesh.indices[3 * t + k]];
      finiteTri = finiteTri && std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
    }
    EXPECT_EQ(bool(seen[t]), finiteTri) << mesh.name << ": triangle " << t;
  }
}

void buildCheckAndTrace(const TestMesh& mesh, size_t raysPerFamily,
                        const KdBuildOptions& opt = {}) {
  const KdTree tree = buildKdTreeSah(mesh.view(), opt);
  checkStructure(mesh, tree, opt);
  EXPECT_EQ(compareWithBruteForce(mesh, tree, raysPerFamily, 1234), 0u) << mesh.name;
}

// Scenes load once per process; nullptr when the folder is absent.
const TestMesh* sceneMesh(const std::string& relative) {
  static std::map<std::string, std::unique_ptr<TestMesh>> cache;
  auto it = cache.find(relative);
  if (it != cache.end()) return it->second.get();
  const std::string path = testScenePath(relative);
  std::unique_ptr<TestMesh> mesh;
  if (!path.empty()) mesh = std::make_unique<TestMesh>(loadObjMesh(path));
  return (cache[relative] = std::move(mesh)).get();
}

#define SRT_SCENE_OR_SKIP(var, rel)                                         \
  const TestMesh* var = sceneMesh(rel);                                     \
  if (!var)                                                                 \
  GTEST_SKIP() << "scene " << rel << " not found under " << testScenesDir() \
               << " (unpack ../shared/scenes at configure time)"

TEST(KdTreeSynthetic, EmptyMesh) {
  const TestMesh mesh = emptyMesh();
  const KdTree tree = buildKdTreeSah(mesh.view());
  ASSERT_EQ(tree.nodes.size(), 1u);
  EXPECT_TRUE(tree.nodes[0].isLeaf());
  EXPECT_EQ(tree.nodes[0].primitiveCount(), 0u);
  const KdTreeStats s = computeStats(tree);
  EXPECT_EQ(s.leaves, 1u);
  EXPECT_EQ(s.emptyLeaves, 1u);
  EXPECT_EQ(compareWithBruteForce(mesh, tree, 200, 1), 0u);
  Hit h;
  EXPECT_FALSE(intersectClosest(hostView(tree, mesh.view()), Ray{{0, 0, 0}, {0, 0, 1}}, &h));
}

TEST(KdTreeSynthetic, OneTriangle) {
  const TestMesh mesh = oneTriangle();
  buildCheckAndTrace(mesh, 2000);
  const KdTree tree = buildKdTreeSah(mesh.view());
  Hit h;
  ASSERT_TRUE(intersectClosest(hostView(tree, mesh.view()), Ray{{0, 0, 5}, {0, 0, -1}}, &h));
  EXPECT_EQ(h.triangle, 0u);
  // The hit point rebuilt from the barycentrics lies on the ray.
  const Vec3f p =
      mesh.positions[0] * (1 - h.b1 - h.b2) + mesh.positions[1] * h.b1 + mesh.positions[2] * h.b2;
  EXPECT_NEAR(p.x, 0.f, 1e-5f);
  EXPECT_NEAR(p.y, 0.f, 1e-5f);
  EXPECT_NEAR(p.z, 5.f - h.t, 1e-5f);
  // Occlusion is limited to (0, tMax).
  EXPECT_TRUE(intersectAny(hostView(tree, mesh.view()), Ray{{0, 0, 5}, {0, 0, -1}, h.t * 1.01f}));
  EXPECT_FALSE(intersectAny(hostView(tree, mesh.view()), Ray{{0, 0, 5}, {0, 0, -1}, h.t * 0.99f}));
  EXPECT_FALSE(intersectAny(hostView(tree, mesh.view()), Ray{{0, 0, 5}, {0, 0, 1}}));
}

TEST(KdTreeSynthetic, DegenerateTriangles) {
  buildCheckAndTrace(degenerateTriangles(), 2000);
}

TEST(KdTreeSynthetic, CoplanarTriangles) {
  buildCheckAndTrace(coplanarTriangles(), 1000);
}

TEST(KdTreeSynthetic, AllInOneAxisPlane) {
  const TestMesh mesh = axisPlaneTriangles();
  buildCheckAndTrace(mesh, 1000);
  const KdTree tree = buildKdTreeSah(mesh.view());
  EXPECT_EQ(tree.bounds.lo.z, 0.25f);  // flat triangles keep a flat box (planar events)
  EXPECT_EQ(tree.bounds.hi.z, 0.25f);
  EXPECT_GT(tree.nodes.size(), 1u) << "a grid in a plane still splits along x and y";
  // Rays inside the plane never hit it; rays through it always do.
  const KdTreeView v = hostView(tree, mesh.view());
  EXPECT_FALSE(intersectAny(v, Ray{{-1, 0.3f, 0.25f}, {1, 0, 0}}));
  Hit h;
  ASSERT_TRUE(intersectClosest(v, Ray{{0.5f, 0.3f, 1}, {0, 0, -1}}, &h));
  EXPECT_FLOAT_EQ(h.t, 0.75f);
}

// Rays from random origins aimed at points of interior edges and vertices of a closed grid, or
// (inset > 0) at those points moved that fraction of the way towards their triangle's centre.
size_t edgeRayMisses(const TestMesh& mesh, const KdTreeView& v, float inset, size_t* tested) {
  const Vec3f c = mesh.bounds().center();
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<float> u01(0.f, 1.f);
  size_t misses = 0;
  *tested = 0;
  for (uint32_t tri = 0; tri < mesh.triangleCount(); tri += 7) {
    const Vec3f a = mesh.positions[mesh.indices[3 * tri]];
    const Vec3f b = mesh.positions[mesh.indices[3 * tri + 1]];
    const Vec3f e = mesh.positions[mesh.indices[3 * tri + 1 + tri % 2]];
    const Vec3f centre = (a + b + mesh.positions[mesh.indices[3 * tri + 2]]) * (1.f / 3.f);
    Vec3f target = a + (e - a) * (tri % 3 == 0 ? 0.f : u01(rng));
    target = target + (centre - target) * inset;
    if (length(target - c) > 0.3f) continue;  // both grids reach at least 0.35 from c
    for (int k = 0; k < 8; ++k) {
      const Vec3f o = c + Vec3f(u01(rng) - 0.5f, u01(rng) - 0.5f, u01(rng) + 0.5f) * 3.f;
      Hit h;
      ++*tested;
      misses += !intersectClosest(v, Ray{o, normalize(target - o)}, &h);
    }
  }
  return misses;
}

// The watertight test: no ray slips between two triangles that share an edge.
TEST(KdTreeSynthetic, WatertightOnSharedEdges) {
  for (const TestMesh& mesh : {coplanarTriangles(), axisPlaneTriangles()}) {
    const KdTree tree = buildKdTreeSah(mesh.view());
    for (const float inset : {0.f, 1e-4f}) {
      size_t tested = 0;
      EXPECT_EQ(edgeRayMisses(mesh, hostView(tree, mesh.view()), inset, &tested), 0u)
          << mesh.name << ": rays slipped through shared edges (inset " << inset << ")";
      EXPECT_GT(tested, 100u) << mesh.name;
    }
  }
}

// The unit-triangle test is not watertight, but only rays within its rounding of an edge can slip:
// aimed 1e-4 of the way in from the edge, every ray hits. Prints how many exact-edge rays slip.
TEST(KdTreeSynthetic, UnitTrianglesSlipOnlyAtTheEdge) {
  for (const TestMesh& mesh : {coplanarTriangles(), axisPlaneTriangles()}) {
    const KdTree tree = buildKdTreeSah(mesh.view());
    const std::vector<UnitTriangleRow> rows = unitTriangleRowsOf(mesh);
    const KdTreeView v = hostView(tree, withUnitTriangles(mesh.view(), rows));
    size_t tested = 0;
    EXPECT_EQ(edgeRayMisses(mesh, v, 1e-4f, &tested), 0u) << mesh.name;
    EXPECT_GT(tested, 100u) << mesh.name;
    const size_t slipped = edgeRayMisses(mesh, v, 0.f, &tested);
    std::cout << "[ unit triangles ] " << mesh.name << ": " << slipped << " of " << tested
              << " rays aimed exactly at shared edges slip through\n";
  }
}

// One triangle with its unit-triangle rows, as a mesh.
struct OneTriangle {
  Vec3f corners[3];
  uint32_t indices[3] = {0, 1, 2};
  UnitTriangleRow rows[3];
  TriangleMeshView mesh;
  OneTriangle(Vec3f p0, Vec3f p1, Vec3f p2) : corners{p0, p1, p2} {
    unitTriangleRows(p0, p1, p2, rows);
    mesh = {corners, indices, 1};
    mesh.unitTriangles = rows;
  }
  OneTriangle(const OneTriangle&) = delete;
};

TEST(UnitTriangle, AgreesWithTheWatertightTest) {
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  const auto point = [&] { return Vec3f(u(rng), u(rng), u(rng)); };
  size_t hits = 0, compared = 0;
  for (int k = 0; k < 20000; ++k) {
    const Vec3f p0 = point() * 100.f, p1 = p0 + point(), p2 = p0 + point();
    // Slivers are ill-conditioned: there the two tests round differently (compared elsewhere).
    const float longest = std::max({length(p1 - p0), length(p2 - p0), length(p2 - p1)});
    if (length(cross(p1 - p0, p2 - p0)) < 0.05f * longest * longest) continue;
    const OneTriangle one(p0, p1, p2);
    const Vec3f o = p0 + point() * 4.f;
    const float w1 = 0.5f * (u(rng) + 1.f), w2 = 0.5f * (u(rng) + 1.f);
    const Ray ray{o, normalize(p0 + (p1 - p0) * w1 + (p2 - p0) * w2 * 0.9f - o)};
    // Grazing rays are ill-conditioned too: t moves with the last bit of either test's plane.
    if (std::fabs(dot(normalize(cross(p1 - p0, p2 - p0)), ray.d)) < 1e-2f) continue;
    float t, b1, b2, tu, u1, u2;
    const bool watertight =
        intersectTriangle(ray, watertightRay(ray.d), kInf, p0, p1, p2, &t, &b1, &b2);
    const bool unit = intersectUnitTriangle(one.mesh, 0, ray.o, ray.d, kInf, &tu, &u1, &u2);
    if (watertight && std::min({b1, b2, 1.f - b1 - b2}) < 1e-3f) continue;  // near an edge
    ++compared;
    ASSERT_EQ(unit, watertight) << "triangle " << k;
    if (!unit) continue;
    ++hits;
    EXPECT_NEAR(tu, t, 1e-4f * t) << "triangle " << k;
    EXPECT_NEAR(u1, b1, 1e-3f) << "triangle " << k;
    EXPECT_NEAR(u2, b2, 1e-3f) << "triangle " << k;
  }
  EXPECT_GT(hits, compared / 4);
  const Vec3f a{1, 2, 3}, b{2, 2, 3}, nan{std::numeric_limits<float>::quiet_NaN(), 0, 0};
  for (const auto& [q0, q1, q2] : {std::tuple{a, b, b}, std::tuple{a, a, a},
                                   std::tuple{a, b, a + (b - a) * 2.f}, std::tuple{a, b, nan}}) {
    const OneTriangle one(q0, q1, q2);
    float t, b1, b2;
    EXPECT_FALSE(intersectUnitTriangle(one.mesh, 0, Vec3f(1.5f, 2.f, 0.f), Vec3f(0, 0, 1), kInf, &t,
                                       &b1, &b2));
  }
}

TEST(KdTreeSynthetic, DepthLimitIsHonoured) {
  KdBuildOptions opt;
  opt.maxDepth = 3;
  buildCheckAndTrace(coplanarTriangles(), 500, opt);
  opt.maxDepth = 1;
  buildCheckAndTrace(degenerateTriangles(), 500, opt);
}

TEST(KdTreeBuild, RejectsBadOptions) {
  const TestMesh mesh = oneTriangle();
  KdBuildOptions opt;
  opt.maxDepth = kKdMaxDepth + 1;
  EXPECT_THROW(buildKdTreeSah(mesh.view(), opt), std::invalid_argument);
  opt = {};
  opt.emptyBonus = 1.f;
  EXPECT_THROW(buildKdTreeSah(mesh.view(), opt), std::invalid_argument);
  opt = {};
  opt.intersectCost = 0.f;
  EXPECT_THROW(buildKdTreeSah(mesh.view(), opt), std::invalid_argument);
  TriangleMeshView noData;
  noData.triangleCount = 5;
  EXPECT_THROW(buildKdTreeSah(noData), std::invalid_argument);
}

TEST(KdTreeStats, RejectsMalformedTree) {
  KdTree tree;
  tree.bounds = {Vec3f(0.f), Vec3f(1.f)};
  tree.nodes.resize(2);
  tree.nodes[0].initInterior(0, 0.5f, 7);  // above child past the end
  tree.nodes[1].initLeaf(0, 0);
  EXPECT_THROW(computeStats(tree), std::invalid_argument);
  tree.nodes[0].initLeaf(3, 10);  // offset past the primitive array
  EXPECT_THROW(computeStats(tree), std::invalid_argument);
}

// Node for node and reference for reference.
void expectSameTree(const KdTree& a, const KdTree& b, const std::string& what) {
  ASSERT_EQ(a.nodes.size(), b.nodes.size()) << what;
  ASSERT_EQ(a.primIndices, b.primIndices) << what;
  for (size_t i = 0; i < a.nodes.size(); ++i)
    ASSERT_TRUE(a.nodes[i].flags == b.nodes[i].flags &&
                a.nodes[i].onePrimitive == b.nodes[i].onePrimitive)
        << what << " node " << i;
}

// Sponza is large enough for subtree tasks, chunked wide nodes and many fragments to join; the
// small thresholds make most nodes of the teapot wide.
TEST(KdTreeBuild, SerialAndParallelBuildsAgree) {
  for (const char* scene : {"teapot/teapot.obj", "dabrovic-sponza/sponza.obj"}) {
    SRT_SCENE_OR_SKIP(mesh, scene);
    KdBuildOptions serial, fine;
    serial.parallel = false;
    fine.taskTriangles = 16;
    fine.wideNodeTriangles = 64;
    const KdTree a = buildKdTreeSah(mesh->view(), serial);
    expectSameTree(a, buildKdTreeSah(mesh->view()), std::string(scene) + " default");
    expectSameTree(a, buildKdTreeSah(mesh->view(), fine), std::string(scene) + " fine");
  }
}

// Many triangles sharing a few axis planes, and many identical slivers, build the serial tree
// with chunked wide nodes.
TEST(KdTreeBuild, ChunkedWideNodesKeepEqualPositionsTogether) {
  TestMesh planes = randomTriangles(20000, 7);
  for (int i = 0; i < 40000; ++i) {
    const float x = float(i % 4) * 0.25f, y = float(i % 97) / 97.f, z = float(i % 89) / 89.f;
    planes.addTriangle({x, y, z}, {x, y + 0.01f, z}, {x, y, z + 0.01f});
  }
  const TestMesh slim = slivers(30000);
  const TestMesh& mesh = planes;
  for (const TestMesh* m : {&mesh, &slim}) {
    KdBuildOptions serial, wide;
    serial.parallel = false;
    wide.wideNodeTriangles = 256;
    expectSameTree(buildKdTreeSah(m->view(), serial), buildKdTreeSah(m->view(), wide),
                   m == &mesh ? "planes" : "slivers");
  }
}

// The chunked sweep must not cut a group of equal positions. Here 4096 triangles span [0.2, 0.75]
// and 8192 lie in the plane x = 0.75: 16384 events, two chunks of the 8192-event grain, whose
// nominal cut falls between the ends and the planars at 0.75. A chunk holding only the ends
// prices the plane with the planar triangles on neither side, a tie that puts them left, while
// the one sweep puts them right; the result must be the one sweep's, bit for bit.
TEST(KdTreeBuild, ChunkedSweepEqualsOneSweep) {
  using namespace kdsah;
  std::vector<Event> events;
  uint32_t tri = 0;
  for (; tri < 4096; ++tri) {
    events.push_back(Event::make(0.2f, kStart, tri));
    events.push_back(Event::make(0.75f, kEnd, tri));
  }
  for (; tri < 4096 + 8192; ++tri) events.push_back(Event::make(0.75f, kPlanar, tri));
  std::sort(events.begin(), events.end());
  NodeEvents ev;
  ev.count = tri;
  ev.data.reset(new Event[events.size()]);
  std::copy(events.begin(), events.end(), ev.data.get());
  ev.end[0] = events.size();
  Bounds3f voxel;
  voxel.lo = Vec3f(0.f);
  voxel.hi = Vec3f(1.f);
  SweepSetup setup;
  ASSERT_TRUE(makeSweepSetup(voxel, 0, 15.0, 20.0, 0.0, &setup));
  const SplitChoice one = sweepRange(setup, ev.first(0), ev.last(0), 0, ev.count);
  SplitChoice chunked;
#pragma omp parallel num_threads(2)
#pragma omp single
  chunked = sweepAxisWide(ev, setup, ev.count);
  EXPECT_EQ(chunked.axis, one.axis);
  EXPECT_EQ(chunked.pos, one.pos);
  EXPECT_EQ(chunked.planarLeft, one.planarLeft);
  EXPECT_EQ(chunked.cost, one.cost);
}

TEST(KdTreeBuild, HostDeviceKdTreeTracesLikeTheTree) {
  SRT_SCENE_OR_SKIP(mesh, "teapot/teapot.obj");
  const KdTree tree = buildKdTreeSah(mesh->view());
  const DeviceKdTree host(tree, MemorySpace::Host);
  EXPECT_EQ(host.nodeCount(), tree.nodes.size());
  const KdTreeView a = hostView(tree, mesh->view()), b = host.view(mesh->view());
  for (const Ray& r : makeRays(*mesh, RayFamily::Outside, 500, 5)) {
    Hit ha, hb;
    const bool hitA = intersectClosest(a, r, &ha), hitB = intersectClosest(b, r, &hb);
    ASSERT_EQ(hitA, hitB);
    if (hitA) {
      EXPECT_EQ(ha.triangle, hb.triangle);
    }
  }
}

TEST(KdTreeScenes, CornellBoxes) {
  for (const char* name : {"Original", "Empty-CO", "Mirror", "Sphere", "Glossy", "Water"}) {
    const std::string rel = std::string("cornell-box/CornellBox-") + name + ".obj";
    SRT_SCENE_OR_SKIP(mesh, rel);
    SCOPED_TRACE(rel);
    buildCheckAndTrace(*mesh, 400);
    // Below one leaf's cost; a box of 12 big triangles may rightly stay one leaf.
    const KdTreeStats s = computeStats(buildKdTreeSah(mesh->view()));
    if (mesh->triangleCount() >= 100) {
      EXPECT_LT(s.sahCost, 20.0 * mesh->triangleCount()) << "worse than one leaf";
    } else {
      EXPECT_LE(s.sahCost, 20.0 * mesh->triangleCount()) << "worse than one leaf";
    }
  }
}

TEST(KdTreeScenes, Teapot) {
  SRT_SCENE_OR_SKIP(mesh, "teapot/teapot.obj");
  buildCheckAndTrace(*mesh, 500);
  const KdTreeStats s = computeStats(buildKdTreeSah(mesh->view()));
  EXPECT_LT(s.sahCost, 20.0 * mesh->triangleCount()) << "worse than one leaf";
}

TEST(KdTreeScenes, ConferenceRoom) {
  SRT_SCENE_OR_SKIP(mesh, "conference-room/conference.obj");
  const KdBuildOptions opt;
  const KdTree tree = buildKdTreeSah(mesh->view(), opt);
  const KdTreeStats s = computeStats(tree, opt);
  std::cout << "[ conference ] " << mesh->triangleCount() << " triangles: build " << s.buildSeconds
            << " s, " << s.nodes << " nodes, " << s.leaves << " leaves (" << s.emptyLeaves
            << " empty), max depth " << s.maxDepth << ", " << s.avgPrimsPerLeaf
            << " triangles per non-empty leaf, " << s.primReferences << " references, SAH cost "
            << s.sahCost << " (one leaf: " << opt.intersectCost * mesh->triangleCount() << ")\n";
  EXPECT_LT(s.sahCost, opt.intersectCost * double(mesh->triangleCount()));
  checkStructure(*mesh, tree, opt);
  EXPECT_EQ(compareWithBruteForce(*mesh, tree, 200, 99), 0u);
}

}  // namespace
}  // namespace srt::test
