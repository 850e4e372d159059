// streamrt-bench-kdtree: GPU kd-tree build times per stage (Zhou et al. 2008 with binned SAH) for
// every registered segmented reduction (node bounds over boxes, SAH bin counts over ints), on OBJ
// and PLY meshes (Conference Room, Stanford dragon), against the CPU SAH builder's SAH cost, with a
// device-to-device copy of the mesh's bytes as the floor. Prints a table and writes JSON. Medians
// over repeats after warm-up builds, CUDA events.
//
//   streamrt-bench-kdtree --mesh conference.obj --mesh dragon.ply [--repeats 11] [--json out.json]
//                         [--trace-rays 1000000]   (device trace time of the CPU and the GPU tree)
//   streamrt-bench-kdtree --mesh teapot.obj --refine-to 871414   (a dragon-sized mesh: refineTo)
//   streamrt-bench-kdtree --cpu-only --threads 16 --mesh conference.obj   (CPU SAH build only)
//                         [--wide-node-triangles 8192 --wide-node-triangles 1000000000]
//                         [--task-triangles 256]   (parallel granularity; the tree is the same)
//   [--traversal-cost 20 --intersect-cost 20]   (SAH K_T and K_I of both builders)
#include <omp.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/accel/bench_mesh.h"
#include "primitives/common/cuda_check.h"
#include "primitives/common/cuda_resources.h"
#include "primitives/common/memory.h"
#include "primitives/compaction/compaction.h"
#include "renderer/accel/device_kdtree.h"
#include "renderer/accel/gpu/kdtree_build_gpu.h"
#include "renderer/accel/gpu/segmented_boxes.h"
#include "renderer/accel/kdtree_build_sah.h"

namespace {

using namespace srt;
using bench::HostMesh;
using bench::loadMesh;

// The command line's settings.
struct BenchSettings {
  std::vector<std::string> meshes, reductions;
  std::string compactionName = GpuKdBuildOptions{}.compaction, jsonPath = "bench_kdtree.json";
  int repeats = 11, warmup = 2;
  size_t traceRays = 1000000;
  int smallThreshold = GpuKdBuildOptions{}.smallNodeThreshold;
  bool cpuOnly = false;
  int threads = 0;
  size_t taskTriangles = 0;
  std::vector<size_t> wideNodeTriangles;
  uint32_t refineTriangles = 0;
  float traversalCost = KdBuildOptions{}.traversalCost,
        intersectCost = KdBuildOptions{}.intersectCost;
};

// The GPU build the bench times: one segmented reduction, the compaction, threshold and SAH
// constants asked for.
GpuKdBuildOptions benchOptions(const BenchSettings& s, const std::string& segreduce) {
  GpuKdBuildOptions o;
  o.smallNodeThreshold = s.smallThreshold;
  o.segreduce = segreduce;
  o.compaction = s.compactionName;
  o.traversalCost = s.traversalCost;
  o.intersectCost = s.intersectCost;
  return o;
}

// The CPU builder with the bench's SAH constants.
KdBuildOptions cpuOptions(const BenchSettings& s) {
  KdBuildOptions o;
  o.taskTriangles = s.taskTriangles;
  o.traversalCost = s.traversalCost;
  o.intersectCost = s.intersectCost;
  return o;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Device-to-device copy of the mesh's bytes: the floor any build reading the mesh pays.
double copyMs(size_t bytes, int repeats) {
  Buffer<uint8_t> a(MemorySpace::Cuda, bytes), b(MemorySpace::Cuda, bytes);
  CudaEvent e0(cudaEventDefault), e1(cudaEventDefault);  // owned: freed on a throw too
  std::vector<double> ms;
  for (int r = 0; r < repeats + 2; ++r) {
    e0.record(nullptr);
    SRT_CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice));
    e1.record(nullptr);
    e1.synchronize();
    if (r >= 2) ms.push_back(CudaEvent::elapsedMs(e0, e1));
  }
  return median(ms);
}

// The same random rays through the CPU builder's tree and the GPU builder's, on the device (every
// segmented reduction builds the same GPU tree).
nlohmann::json traceBoth(const KdTree& cpuTree, const TriangleMeshView& dmesh,
                         const GpuKdBuildOptions& o, size_t numRays, int repeats) {
  const std::vector<Ray> hostRays = bench::randomRays(cpuTree.bounds, numRays, 12345);
  const Buffer<Ray> rays(MemorySpace::Cuda, hostRays);
  const DeviceKdTree cpu(cpuTree, MemorySpace::Cuda);
  GpuKdTreeBuilder builder(o);
  const DeviceKdTree gpu = builder.build(dmesh);
  size_t cpuHits = 0, gpuHits = 0;
  const uint32_t n = uint32_t(numRays);
  const double cpuMs = bench::traceOnDevice(cpu.view(dmesh), rays.data(), n, repeats, &cpuHits);
  const double gpuMs = bench::traceOnDevice(gpu.view(dmesh), rays.data(), n, repeats, &gpuHits);
  std::printf(
      "trace of %zu random rays on the device: CPU-built tree %.3f ms, GPU-built tree "
      "%.3f ms (%.3fx)%s\n",
      numRays, cpuMs, gpuMs, gpuMs / cpuMs,
      cpuHits == gpuHits ? "" : " -- the trees disagree on hits");
  return {{"rays", numRays},        {"cpuTreeMs", cpuMs}, {"gpuTreeMs", gpuMs},
          {"ratio", gpuMs / cpuMs}, {"cpuHits", cpuHits}, {"gpuHits", gpuHits}};
}

double processCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

long minorFaults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// The CPU SAH builder alone (no device needed): median build time (wall, and CPU time summed over
// threads: the work, which a loaded machine does not inflate), minor page faults (fresh memory
// touched), nodes and SAH cost; one row per wide-node threshold.
void benchCpuBuild(const BenchSettings& s) {
  std::printf("CPU SAH build, %d threads\n%-24s %9s %9s %10s %10s %9s %10s %10s\n",
              omp_get_max_threads(), "mesh", "triangles", "wide", "build ms", "CPU ms", "faults",
              "nodes", "SAH");
  for (const std::string& path : s.meshes) {
    const HostMesh mesh = bench::refineTo(loadMesh(path), s.refineTriangles);
    for (size_t wide : s.wideNodeTriangles) {
      KdBuildOptions o = cpuOptions(s);
      o.wideNodeTriangles = wide;
      std::vector<double> ms, cpuMs, faults;
      KdTree tree;
      for (int k = 0; k < s.warmup + s.repeats; ++k) {
        tree = KdTree();
        const double cpu0 = processCpuSeconds();
        const long f0 = minorFaults();
        tree = buildKdTreeSah(mesh.view(), o);
        const double cpu = (processCpuSeconds() - cpu0) * 1e3;
        if (k < s.warmup) continue;
        ms.push_back(tree.buildSeconds * 1e3), cpuMs.push_back(cpu);
        faults.push_back(double(minorFaults() - f0));
      }
      const KdTreeStats s = computeStats(tree);
      std::printf("%-24s %9zu %9zu %10.1f %10.1f %9.0f %10zu %10.3f\n", mesh.name.c_str(),
                  mesh.indices.size() / 3, wide, median(ms), median(cpuMs), median(faults), s.nodes,
                  s.sahCost);
    }
  }
}

// Median stage times of the GPU build with one segmented reduction, the tree's statistics.
nlohmann::json timeReduction(const GpuKdBuildOptions& o, const TriangleMeshView& dview, int warmup,
                             int repeats, double cpuSah) {
  GpuKdTreeBuilder builder(o);
  for (int w = 0; w < warmup; ++w) builder.build(dview);
  std::vector<double> total, setup, bounds, bins, split, compact, small, fin;
  GpuKdBuildStats st;
  int replayed = 0, retried = 0, graphed = 0;
  std::vector<double> levels;
  for (int k = 0; k < repeats; ++k) {
    builder.build(dview, nullptr, &st);
    replayed += st.replayed && !st.retried, retried += st.retried, graphed += st.graphed;
    levels.push_back(st.levelsMs);
    total.push_back(st.totalMs), setup.push_back(st.setupMs), bounds.push_back(st.boundsMs);
    bins.push_back(st.binsMs);
    split.push_back(st.splitMs), compact.push_back(st.compactionMs);
    small.push_back(st.smallNodeMs), fin.push_back(st.finalizeMs);
  }
  const KdTreeStats gs = computeStats(builder.buildToHost(dview));
  std::fprintf(stderr,
               "  %s: %.3f ms (%d of %d builds replayed, %d retried, %d as a graph: levels "
               "%.3f ms)\n",
               o.segreduce.c_str(), median(total), replayed, repeats, retried, graphed,
               median(levels));
  return {{"segreduce", o.segreduce},
          {"totalMs", median(total)},
          {"setupMs", median(setup)},
          {"boundsMs", median(bounds)},
          {"binsMs", median(bins)},
          {"splitMs", median(split)},
          {"compactionMs", median(compact)},
          {"smallNodeMs", median(small)},
          {"finalizeMs", median(fin)},
          {"nodes", st.nodes},
          {"replayedBuilds", replayed},
          {"retriedBuilds", retried},
          {"graphBuilds", graphed},
          {"levelsGraphMs", median(levels)},
          {"largeNodeLevels", st.largeNodeLevels},
          {"terminals", st.terminals},
          {"sah", gs.sahCost},
          {"sahRatioToCpu", cpuSah > 0 ? gs.sahCost / cpuSah : 1.0}};
}

// One line per reduction, with its speed-up over cub-segmented's build (when that ran).
void printRows(std::vector<nlohmann::json>& rows, double cubSegTotal) {
  for (auto& row : rows) {
    const double t = row["totalMs"];
    if (cubSegTotal > 0) row["speedupVsCubSegmented"] = cubSegTotal / t;
    char vsCub[32] = "-";
    if (cubSegTotal > 0) std::snprintf(vsCub, sizeof vsCub, "%.2fx", cubSegTotal / t);
    std::printf("%-20s %9.3f %7.3f %7.3f %7.3f %7.3f %8.3f %7.3f %8.3f %8zu %6zu %9.3f %9s\n",
                std::string(row["segreduce"]).c_str(), t, double(row["setupMs"]),
                double(row["boundsMs"]), double(row["binsMs"]), double(row["splitMs"]),
                double(row["compactionMs"]), double(row["smallNodeMs"]), double(row["finalizeMs"]),
                size_t(row["nodes"]), size_t(row["largeNodeLevels"]), double(row["sahRatioToCpu"]),
                vsCub);
  }
}

void addOptions(CLI::App& app, BenchSettings& s) {
  app.add_option("--mesh", s.meshes, "OBJ or PLY file (repeatable)")->required();
  app.add_option("--segreduce", s.reductions, "segmented reductions (default: all registered)");
  app.add_option("--compaction", s.compactionName, "ordered CUDA compaction for the child lists");
  app.add_option("--repeats", s.repeats, "timed builds per configuration (median reported)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--warmup", s.warmup, "untimed builds first")->check(CLI::Range(0, 100));
  app.add_option("--trace-rays", s.traceRays,
                 "random rays traced on the device through the CPU and the GPU tree (0: none)")
      ->check(CLI::Range(size_t(0), size_t(100000000)));
  app.add_option("--json", s.jsonPath, "where to write the results");
  app.add_option("--small-node-threshold", s.smallThreshold,
                 "GPU build: nodes of at most this many references go to the exact-SAH stage (0: "
                 "by the quality, 28 full and 64 fast)")
      ->check(CLI::Range(0, 64));
  app.add_option("--traversal-cost", s.traversalCost, "SAH K_T of both builders")
      ->check(CLI::Range(0.f, 1000.f));
  app.add_option("--intersect-cost", s.intersectCost, "SAH K_I of both builders")
      ->check(CLI::Range(0.001f, 1000.f));
  app.add_flag("--cpu-only", s.cpuOnly, "time the CPU SAH builder only (no device needed)");
  app.add_option("--threads", s.threads, "OpenMP threads for the CPU build (0: all)")
      ->check(CLI::Range(0, 1024));
  app.add_option("--task-triangles", s.taskTriangles,
                 "CPU build: subtrees of at least this many triangles are tasks (0: default)");
  app.add_option("--wide-node-triangles", s.wideNodeTriangles,
                 "CPU build: nodes of at least this many triangles work in chunks over all "
                 "threads (repeatable, one row each; 0: default)");
  app.add_option("--refine-to", s.refineTriangles,
                 "halve longest edges until each mesh has this many triangles (e.g. the teapot "
                 "to 871414, the Stanford dragon's count; 0: as loaded)");
}

// Prints the speed variants in force (GpuKdBuildOptions, set through the environment) and
// returns them for the JSON.
nlohmann::json printVariants() {
  const GpuKdBuildOptions variants = withEnvironment(GpuKdBuildOptions());
  std::printf(
      "variants: SRT_KD_SMALL_REUSE=%d SRT_KD_CLIP=%s SRT_KD_SPLIT=%s "
      "SRT_KD_SMALL_CARVEOUT=%d SRT_KD_LEVELS=%s SRT_KD_REPLAY_SLACK=%d\n",
      int(variants.smallReuseBoxes),
      variants.smallSharedClip ? "shared"
      : variants.streamingClip ? "stream"
                               : "poly",
      variants.splitPerWarp ? "warp" : "thread", smallCarveoutPercent(variants),
      toString(variants.levels), variants.replaySlack);
  return {{"smallReuseBoxes", variants.smallReuseBoxes},
          {"streamingClip", variants.streamingClip},
          {"smallSharedClip", variants.smallSharedClip},
          {"splitPerWarp", variants.splitPerWarp},
          {"smallCarveout", smallCarveoutPercent(variants)},
          {"levels", toString(variants.levels)},
          {"replaySlack", variants.replaySlack}};
}

// The triangles' corners in order, as the renderer hands them to the builder.
std::vector<PackedVertex> cornersInOrder(const HostMesh& mesh) {
  std::vector<PackedVertex> corners(3 * (mesh.indices.size() / 3));
  for (size_t k = 0; k < corners.size(); ++k) {
    const Vec3f p = mesh.positions[mesh.indices[k]];
    corners[k] = {p.x, p.y, p.z, 0.f};
  }
  return corners;
}

// The mesh on the device, indexed and as corners in order, and the builder's view of it.
struct DeviceMesh {
  Buffer<Vec3f> positions;
  Buffer<uint32_t> indices;
  Buffer<PackedVertex> corners;
  TriangleMeshView view;

  explicit DeviceMesh(const HostMesh& mesh)
      : positions(MemorySpace::Cuda, mesh.positions),
        indices(MemorySpace::Cuda, mesh.indices),
        corners(MemorySpace::Cuda, cornersInOrder(mesh)),
        view{positions.data(), indices.data(), uint32_t(mesh.indices.size() / 3)} {
    view.corners = corners.data();
  }
};

// One row per segmented reduction (printed, and returned for the JSON).
std::vector<nlohmann::json> reductionRows(const BenchSettings& s,
                                          const std::vector<std::string>& reductions,
                                          const TriangleMeshView& dview, double cpuSah) {
  std::printf("%-20s %9s %7s %7s %7s %7s %8s %7s %8s %8s %6s %9s %9s\n", "segreduce", "total ms",
              "setup", "bounds", "bins", "split", "compact", "small", "finalize", "nodes", "levels",
              "SAH/CPU", "vs cub-seg");
  double cubSegTotal = 0;
  std::vector<nlohmann::json> rows;
  for (const std::string& r : reductions) {
    rows.push_back(timeReduction(benchOptions(s, r), dview, s.warmup, s.repeats, cpuSah));
    if (r == "cub-segmented") cubSegTotal = rows.back()["totalMs"];
  }
  printRows(rows, cubSegTotal);
  return rows;
}

// One mesh: the CPU builder's tree, the copy floor, every reduction's GPU build and the trace.
nlohmann::json benchMesh(const BenchSettings& s, const std::vector<std::string>& reductions,
                         const std::string& path) {
  const HostMesh mesh = bench::refineTo(loadMesh(path), s.refineTriangles);
  const uint32_t tris = uint32_t(mesh.indices.size() / 3);
  const KdTree cpuTree = buildKdTreeSah(mesh.view(), cpuOptions(s));
  const KdTreeStats cpu = computeStats(cpuTree);
  const DeviceMesh dmesh(mesh);
  const double floorMs = copyMs(dmesh.positions.bytes() + dmesh.indices.bytes(), s.repeats);
  std::printf(
      "\n%s: %u triangles | CPU SAH builder %.1f ms, SAH %.2f, %zu nodes | D2D copy of the "
      "mesh %.4f ms\n",
      mesh.name.c_str(), tris, cpuTree.buildSeconds * 1e3, cpu.sahCost, cpu.nodes, floorMs);
  nlohmann::json jm;
  jm["mesh"] = mesh.name;
  jm["path"] = path;
  jm["triangles"] = tris;
  jm["cpu"] = {{"buildMs", cpuTree.buildSeconds * 1e3}, {"sah", cpu.sahCost}, {"nodes", cpu.nodes}};
  jm["d2dCopyMs"] = floorMs;
  jm["gpu"] = reductionRows(s, reductions, dmesh.view, cpu.sahCost);
  if (s.traceRays > 0)
    jm["trace"] =
        traceBoth(cpuTree, dmesh.view, benchOptions(s, reductions.front()), s.traceRays, s.repeats);
  return jm;
}

// The GPU build over every mesh; writes the JSON.
void benchGpuBuild(const BenchSettings& s) {
  const std::vector<std::string> reductions =
      s.reductions.empty() ? gpuKdSegmentedReductionNames() : s.reductions;
  nlohmann::json out;
  out["device"] = cudaDeviceDescription();
  out["repeats"] = s.repeats;
  out["compaction"] = s.compactionName;
  std::printf("device: %s\n", cudaDeviceDescription().c_str());
  out["variants"] = printVariants();
  for (const std::string& path : s.meshes) out["meshes"].push_back(benchMesh(s, reductions, path));
  std::ofstream(s.jsonPath) << out.dump(2) << "\n";
  std::printf("\nwrote %s\n", s.jsonPath.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"GPU kd-tree build (Zhou et al. 2008): time per stage for each segmented reduction"};
  BenchSettings s;
  addOptions(app, s);
  CLI11_PARSE(app, argc, argv);
  try {
    if (s.threads > 0) omp_set_num_threads(s.threads);
    if (s.cpuOnly) {
      if (s.wideNodeTriangles.empty()) s.wideNodeTriangles.push_back(0);
      benchCpuBuild(s);
      return 0;
    }
    if (!cudaDeviceAvailable()) {
      std::fprintf(stderr, "streamrt-bench-kdtree: no CUDA device (%s)\n",
                   cudaDeviceDescription().c_str());
      return 2;
    }
    benchGpuBuild(s);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "streamrt-bench-kdtree: %s\n", e.what());
    return 1;
  }
  return 0;
}
