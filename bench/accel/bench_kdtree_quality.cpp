// streamrt-bench-kdtree-quality: the quality of the GPU kd-tree build's trees, without a GPU. The
// GPU algorithm runs through its host reference (the same per-element code as the kernels, so the
// same tree) beside the CPU full-SAH builder; both trees trace the same random rays on the CPU.
// Prints, per mesh and tree: nodes, leaves, empty leaves, triangles per leaf, depth, SAH cost and
// trace time, with the GPU algorithm's figures as ratios to the CPU tree's; writes JSON.
//
//   streamrt-bench-kdtree-quality --mesh conference.obj [--rays 1000000] [--repeats 3]
#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/accel/bench_mesh.h"
#include "renderer/accel/gpu/kdtree_build_gpu.h"
#include "renderer/accel/kdtree_build_sah.h"
#include "tests/accel/kdtree_trace_util.h"

namespace {

using namespace srt;

struct TraceResult {
  double ms = 0;    // fastest of the repeats
  size_t hits = 0;  // rays that hit something
  double tSum = 0;  // sum of hit distances (the trees must agree)
};

TraceResult traceAll(const KdTree& tree, const TriangleMeshView& mesh, const std::vector<Ray>& rays,
                     int repeats) {
  const KdTreeView v = test::hostView(tree, mesh);
  TraceResult r;
  r.ms = 1e30;
  for (int k = 0; k < repeats; ++k) {
    size_t hits = 0;
    double tSum = 0;
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : hits, tSum)
    for (int64_t i = 0; i < int64_t(rays.size()); ++i) {
      Hit h;
      if (intersectClosest(v, rays[size_t(i)], &h)) ++hits, tSum += h.t;
    }
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    r.ms = std::min(r.ms, ms);
    r.hits = hits;
    r.tSum = tSum;
  }
  return r;
}

// Work per ray of the closest-hit traversal (traverseKdTree's loop, counted): interior nodes,
// leaves and triangle tests. Independent of the machine's load, unlike the trace times, and what
// a GPU's time follows more closely than a CPU's time (no caches deep enough to hide node
// fetches).
struct VisitCounts {
  double interior = 0, leaves = 0, tests = 0;
};

VisitCounts countVisits(const KdTree& tree, const TriangleMeshView& mesh,
                        const std::vector<Ray>& rays) {
  KdTreeView v{tree.nodes.data(), tree.primIndices.data(), tree.bounds, mesh};
  double interior = 0, leaves = 0, tests = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : interior, leaves, tests)
  for (int64_t i = 0; i < int64_t(rays.size()); ++i) {
    const Ray& ray = rays[size_t(i)];
    float tMin, tMax;
    if (!detail::clipRayToBounds(v.bounds, ray, &tMin, &tMax)) continue;
    const Vec3f invDir(1.f / ray.d.x, 1.f / ray.d.y, 1.f / ray.d.z);
    const WatertightRay shear = watertightRay(ray.d);
    float closest = ray.tMax;
    Hit best;
    detail::KdStackEntry stack[kKdMaxDepth];
    int top = 0;
    uint32_t index = 0;
    for (;;) {
      const KdNode node = v.nodes[index];
      if (closest >= tMin && !node.isLeaf()) {
        ++interior;
        const int axis = node.axis();
        const float split = node.split, o = ray.o[axis], d = ray.d[axis];
        const uint32_t below = index + 1, above = node.aboveChild();
        if (d == 0.f) {
          if (o <= split && o >= split && top < kKdMaxDepth) stack[top++] = {above, tMin, tMax};
          index = o > split ? above : below;
          continue;
        }
        const detail::KdSplitStep s =
            detail::kdSplitStep(split, o, d, invDir[axis], below, above, tMin, tMax);
        index = s.visit == detail::KdSplitStep::kSecond ? s.second : s.first;
        if (s.visit == detail::KdSplitStep::kBoth) {
          if (top < kKdMaxDepth) stack[top++] = {s.second, s.splitTMin, tMax};
          tMax = s.splitTMax;
        }
        continue;
      }
      if (closest >= tMin) {
        ++leaves;
        const uint32_t count = node.primitiveCount();
        tests += count;
        for (uint32_t k = 0; k < count; ++k) {
          const uint32_t tri =
              count == 1 ? node.onePrimitive : v.primIndices[node.primitiveOffset + k];
          if (updateClosestBelow(mesh, tri, ray, shear, closest, &best)) closest = best.t;
        }
      }
      if (top == 0) break;
      --top;
      index = stack[top].node, tMin = stack[top].tMin, tMax = stack[top].tMax;
    }
  }
  const double n = double(rays.size());
  return {interior / n, leaves / n, tests / n};
}

nlohmann::json row(const char* name, const KdTreeStats& s, const TraceResult& t, double buildMs,
                   size_t bigLeaves) {
  return {{"tree", name},
          {"nodes", s.nodes},
          {"leaves", s.leaves},
          {"emptyLeaves", s.emptyLeaves},
          {"trisPerLeaf", s.avgPrimsPerLeaf},
          {"references", s.primReferences},
          {"depth", s.maxDepth},
          {"sah", s.sahCost},
          {"traceMs", t.ms},
          {"hits", t.hits},
          {"buildMs", buildMs},
          {"leavesOver64", bigLeaves}};
}

size_t leavesOver(const KdTree& t, uint32_t n) {
  size_t c = 0;
  for (const KdNode& node : t.nodes) c += node.isLeaf() && node.primitiveCount() > n;
  return c;
}

void printRow(const nlohmann::json& r) {
  std::printf("%-16s %9zu %9zu %9zu %9.2f %9zu %5zu %9.2f %9.1f %9.1f %6zu\n",
              std::string(r["tree"]).c_str(), size_t(r["nodes"]), size_t(r["leaves"]),
              size_t(r["emptyLeaves"]), double(r["trisPerLeaf"]), size_t(r["references"]),
              size_t(r["depth"]), double(r["sah"]), double(r["traceMs"]), double(r["buildMs"]),
              size_t(r["leavesOver64"]));
}

void printRatios(const nlohmann::json& g, const nlohmann::json& c) {
  auto q = [&](const char* k) { return double(g[k]) / std::max(1e-12, double(c[k])); };
  std::printf("%-16s %9.3f %9.3f %9.3f %9.3f %9.3f %5s %9.3f %9.3f\n", "gpu/cpu", q("nodes"),
              q("leaves"), q("emptyLeaves"), q("trisPerLeaf"), q("references"), "", q("sah"),
              q("traceMs"));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "kd-tree quality on the CPU: the GPU build's algorithm (host reference) beside the "
      "CPU full-SAH builder, with the CPU trace time of the same random rays"};
  std::vector<std::string> meshes;
  std::string jsonPath = "bench_kdtree_quality.json";
  size_t numRays = 1000000;
  int repeats = 3;
  GpuKdBuildOptions gpu;
  app.add_option("--mesh", meshes, "OBJ or PLY file (repeatable)")->required();
  app.add_option("--rays", numRays, "random rays traced through both trees")
      ->check(CLI::Range(size_t(1), size_t(100000000)));
  app.add_option("--repeats", repeats, "trace passes per tree (fastest reported)")
      ->check(CLI::Range(1, 100));
  app.add_option("--empty-space-ratio", gpu.emptySpaceRatio, "GPU algorithm: empty-space cut-off")
      ->check(CLI::Range(0.f, 1.f));
  app.add_option("--small-node-threshold", gpu.smallNodeThreshold,
                 "GPU algorithm: nodes of at most this many references go to the exact-SAH stage")
      ->check(CLI::Range(0, 64));
  app.add_option("--json", jsonPath, "where to write the results");
  CLI11_PARSE(app, argc, argv);
  try {
    nlohmann::json out;
    out["threads"] = omp_get_max_threads();
    out["rays"] = numRays;
    for (const std::string& path : meshes) {
      const bench::HostMesh mesh = bench::loadMesh(path);
      const KdTree cpuTree = buildKdTreeSah(mesh.view());
      const auto t0 = std::chrono::steady_clock::now();
      const KdTree gpuTree = buildKdTreeGpuAlgorithmOnHost(mesh.view(), gpu);
      const double gpuBuildMs =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      const std::vector<Ray> rays = bench::randomRays(cpuTree.bounds, numRays, 12345);
      // Interleaved, so load on the machine falls on both trees alike.
      TraceResult tc, tg;
      for (int k = 0; k < repeats; ++k) {
        const TraceResult c = traceAll(cpuTree, mesh.view(), rays, 1);
        const TraceResult g = traceAll(gpuTree, mesh.view(), rays, 1);
        if (k == 0 || c.ms < tc.ms) tc = c;
        if (k == 0 || g.ms < tg.ms) tg = g;
      }
      const nlohmann::json c = row("cpu-sah", computeStats(cpuTree), tc, cpuTree.buildSeconds * 1e3,
                                   leavesOver(cpuTree, 64));
      const nlohmann::json g =
          row("gpu-algorithm", computeStats(gpuTree), tg, gpuBuildMs, leavesOver(gpuTree, 64));
      std::printf(
          "\n%s: %u triangles, %zu random rays, %d threads (host reference of the GPU "
          "build; build ms are host times)\n",
          mesh.name.c_str(), mesh.triangleCount(), numRays, omp_get_max_threads());
      std::printf("%-16s %9s %9s %9s %9s %9s %5s %9s %9s %9s %6s\n", "tree", "nodes", "leaves",
                  "empty", "tris/leaf", "refs", "depth", "SAH", "trace ms", "build ms", ">64");
      printRow(c);
      printRow(g);
      printRatios(g, c);
      const VisitCounts vc = countVisits(cpuTree, mesh.view(), rays),
                        vg = countVisits(gpuTree, mesh.view(), rays);
      std::printf(
          "per ray: interior nodes %.2f / %.2f (%.3f), leaves %.2f / %.2f (%.3f), "
          "triangle tests %.2f / %.2f (%.3f) (cpu / gpu-algorithm (ratio))\n",
          vc.interior, vg.interior, vg.interior / vc.interior, vc.leaves, vg.leaves,
          vg.leaves / vc.leaves, vc.tests, vg.tests, vg.tests / vc.tests);
      if (tc.hits != tg.hits)
        std::printf("warning: the trees disagree on %lld hits\n",
                    (long long)tg.hits - (long long)tc.hits);
      out["meshes"].push_back({{"mesh", mesh.name},
                               {"triangles", mesh.triangleCount()},
                               {"trees", {c, g}},
                               {"perRay",
                                {{"interior", {vc.interior, vg.interior}},
                                 {"leaves", {vc.leaves, vg.leaves}},
                                 {"tests", {vc.tests, vg.tests}}}}});
    }
    std::ofstream(jsonPath) << out.dump(2) << "\n";
    std::printf("\nwrote %s\n", jsonPath.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "streamrt-bench-kdtree-quality: %s\n", e.what());
    return 1;
  }
  return 0;
}
