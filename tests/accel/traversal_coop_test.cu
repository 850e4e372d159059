// The cooperative leaf tests of the persistent traversal (kdtree_traverse_persistent.cuh) on the
// host: a warp's lanes emulated in lockstep, the pairs of each round tested in a random order
// with stale keys, against intersectClosest and intersectAny bit for bit. Needs no device. Prints
// how full the lanes of each phase are (counts, not times) for the RESULTS file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "renderer/accel/kdtree_traverse_persistent.cuh"
#include "tests/accel/kdtree_test_util.h"

namespace srt::test {
namespace {

// A warp of the cooperative variants on the host, in lockstep: the lanes walk (speculating until
// every lane still walking holds a leaf, as the warp's vote does), then a round deals the pairs
// of their leaves out in a random order, in chunks of 32 that read the owners' keys at the start
// of the chunk (staler than any warp would). Counts lane slots: a walk costs its longest lane, a
// round of testLeaf its largest leaf, a cooperative round ceil(pairs / 32).
struct LaneFigures {
  uint64_t rays = 0, walkSteps = 0, walkSlots = 0, tests = 0, leafLoopSlots = 0, coopSlots = 0;
};

template <bool kAnyHit>
void coopWarp(const KdTreeView& tree, const Ray* rays, uint32_t n, std::mt19937& rng, Hit* hits,
              bool* found, LaneFigures* fig) {
  using namespace persistent;
  std::vector<KdLane> lanes(n);
  std::vector<std::vector<detail::KdStackEntry>> stacks(n);
  std::vector<bool> active(n);
  fig->rays += n;
  for (uint32_t i = 0; i < n; ++i) {
    stacks[i].resize(kKdMaxDepth);
    found[i] = false;
    active[i] = startLane(tree, rays[i], lanes[i]);
  }
  for (;;) {
    // Walk: first the steps each lane needs to hold a leaf (or finish) on its own, then the
    // speculative walk that stops once the slowest of those is reached.
    uint32_t until = 0, longest = 0;
    for (uint32_t i = 0; i < n; ++i) {
      if (!active[i]) continue;
      KdLane probe = lanes[i];
      std::vector<detail::KdStackEntry> stack = stacks[i];
      uint32_t steps = 0;
      walkToLeaf<true>(tree, probe, stack.data(), [&](bool holds) { return ++steps, holds; });
      until = std::max(until, steps);
    }
    for (uint32_t i = 0; i < n; ++i) {
      if (!active[i]) continue;
      uint32_t steps = 0;
      walkToLeaf<true>(tree, lanes[i], stacks[i].data(), [&](bool) { return ++steps >= until; });
      fig->walkSteps += steps;
      longest = std::max(longest, steps);
    }
    fig->walkSlots += 32u * longest;
    // Round.
    struct Pair {
      uint32_t owner, tri;
    };
    std::vector<Pair> pairs;
    std::vector<PairRay> pr(n);
    std::vector<uint64_t> keys(n, kNoHitKey);
    std::vector<float> b1(n, 0.f), b2(n, 0.f);
    uint32_t largest = 0;
    for (uint32_t i = 0; i < n; ++i) {
      if (!active[i]) continue;
      const LeafWork w = takeLeaf(tree, lanes[i]);
      pr[i] = pairRay<kAnyHit>(lanes[i]);
      keys[i] = laneKey(lanes[i]);
      largest = std::max(largest, w.count);
      for (uint32_t k = 0; k < w.count; ++k)
        pairs.push_back({i, leafTriangle(tree, w.count, w.word, k)});
    }
    fig->tests += pairs.size();
    fig->leafLoopSlots += 32u * largest;
    fig->coopSlots += 32u * ((pairs.size() + 31) / 32);
    std::shuffle(pairs.begin(), pairs.end(), rng);
    for (size_t base = 0; base < pairs.size(); base += 32) {
      const std::vector<uint64_t> seen = keys;  // what the chunk's lanes read
      for (size_t j = base; j < std::min(pairs.size(), base + 32); ++j) {
        const Pair& p = pairs[j];
        Hit h;
        if (!testPair<kAnyHit>(tree.mesh, pr[p.owner], p.tri, seen[p.owner], &h)) continue;
        const uint64_t key = kAnyHit ? 0 : hitKey(h.t, p.tri);
        if (key < keys[p.owner]) keys[p.owner] = key, b1[p.owner] = h.b1, b2[p.owner] = h.b2;
      }
    }
    bool any = false;
    for (uint32_t i = 0; i < n; ++i) {
      if (!active[i]) continue;
      finishRound<kAnyHit>(lanes[i], keys[i], b1[i], b2[i]);
      if (laneDone(lanes[i])) {
        active[i] = false;
        found[i] = lanes[i].found;
        hits[i] = lanes[i].hit;
      }
      any |= active[i];
    }
    if (!any) return;
  }
}

TEST(PersistentTraversalSteps, CooperativeRoundsMatchIntersectClosestAndAny) {
  std::vector<TestMesh> meshes = {randomTriangles(3000, 3), coplanarTriangles(),
                                  axisPlaneTriangles(),     slivers(200),
                                  identicalTriangles(40),   degenerateTriangles()};
  for (const char* scene :
       {"cornell-box/CornellBox-Sphere.obj", "conference-room/conference.obj"}) {
    const std::string path = testScenePath(scene);
    if (!path.empty()) meshes.push_back(loadObjMesh(path));
  }
  std::mt19937 rng(29);
  for (const TestMesh& mesh : meshes) {
    SCOPED_TRACE(mesh.name);
    const KdTree tree = buildKdTreeSah(mesh.view());
    // The rounds test pairs by the unit-triangle test, as the device kernels do.
    const std::vector<UnitTriangleRow> rows = unitTriangleRowsOf(mesh);
    const KdTreeView view = hostView(tree, withUnitTriangles(mesh.view(), rows));
    size_t hits = 0, bad = 0;
    LaneFigures fig, anyFig;
    for (RayFamily family : kAllRayFamilies) {
      const std::vector<Ray> rays = makeRays(mesh, family, 2048, 41 + size_t(family));
      for (size_t first = 0; first < rays.size(); first += 32) {
        const uint32_t n = uint32_t(std::min<size_t>(32, rays.size() - first));
        Hit got[32], ignored[32];
        bool gotFound[32], blocked[32];
        coopWarp<false>(view, &rays[first], n, rng, got, gotFound, &fig);
        coopWarp<true>(view, &rays[first], n, rng, ignored, blocked, &anyFig);
        for (uint32_t i = 0; i < n; ++i) {
          const Ray& ray = rays[first + i];
          Hit want;
          const bool w = intersectClosest(view, ray, &want);
          hits += w;
          if ((gotFound[i] != w || (w && std::memcmp(&got[i], &want, sizeof(Hit)) != 0)) &&
              bad++ < 5)
            ADD_FAILURE() << toString(family) << ": intersectClosest " << describe(ray, w, want)
                          << " | cooperative " << describe(ray, gotFound[i], got[i]);
          if (blocked[i] != intersectAny(view, ray) && bad++ < 5)
            ADD_FAILURE() << toString(family) << ": intersectAny differs for "
                          << describe(ray, w, want);
        }
      }
    }
    EXPECT_EQ(bad, 0u);
    if (mesh.triangleCount() > 1) EXPECT_GT(hits, 0u);
    // Figures, not assertions: how full the lanes of each phase are (closest hits).
    const double rays = double(std::max<uint64_t>(fig.rays, 1));
    std::printf(
        "%s: per ray %.1f walk steps, %.2f triangle tests; lanes busy %.1f/32 walking, "
        "%.1f/32 testing (testLeaf loop) vs %.1f/32 (cooperative); warp steps per 32 "
        "rays: walk %.1f, tests %.1f vs %.1f\n",
        mesh.name.c_str(), fig.walkSteps / rays, fig.tests / rays,
        32.0 * fig.walkSteps / std::max<uint64_t>(fig.walkSlots, 1),
        32.0 * fig.tests / std::max<uint64_t>(fig.leafLoopSlots, 1),
        32.0 * fig.tests / std::max<uint64_t>(fig.coopSlots, 1), fig.walkSlots / rays,
        fig.leafLoopSlots / rays, fig.coopSlots / rays);
  }
}

}  // namespace
}  // namespace srt::test
