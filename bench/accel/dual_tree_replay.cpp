// streamrt-dual-tree-replay: reads the file a render under SRT_DUAL_TREE_CHECK wrote
// (renderer/wavefront/dual_tree_check.h) and traces every recorded ray again on the host against
// both trees, rebuilt from the scene with the recorded builders (or read from the dumps that
// SRT_DUAL_TREE_DUMP=1 wrote). Prints per ray what the device found in each run and what the host
// finds; --explain also lists the leaves each tree's traversal visits and where the rival
// triangles are referenced (boxes, clipped triangle boxes, the ray's intervals).
//
//   streamrt-dual-tree-replay scenes/examples/conference-room.json diff.txt [--explain 5]
//       [--primary-tree diff.txt.primary.kdtree] [--second-tree diff.txt.second.kdtree]
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <set>
#include <string>

#include "renderer/accel/gpu/kdtree_build_gpu.h"
#include "renderer/accel/kdtree_build_sah.h"
#include "renderer/accel/unit_triangles.h"
#include "renderer/wavefront/dual_tree_replay.h"
#include "scenes/loader.h"
#include "scenes/scene.h"

using namespace srt;

namespace {

KdTree treeFor(const std::string& builder, const std::string& dump, const TriangleMeshView& mesh,
               uint64_t expectedHash, const char* which) {
  KdTree tree;
  if (!dump.empty()) {
    tree = readKdTreeFile(dump);
  } else if (builder == "cpu") {
    tree = buildKdTreeSah(mesh);
  } else {
    if (builder != "gpu-host")
      std::fprintf(stderr, "%s tree: '%s' rebuilt by its host reference (gpu-host)\n", which,
                   builder.c_str());
    tree = buildKdTreeGpuAlgorithmOnHost(mesh);
  }
  const uint64_t h = hashKdTree(tree);
  std::fprintf(stderr, "%s tree (%s): %zu nodes, hash %s the render's\n", which,
               dump.empty() ? builder.c_str() : dump.c_str(), tree.nodes.size(),
               h == expectedHash ? "matches" : "DIFFERS FROM");
  return tree;
}

const char* kRunNames[kDualTreeRuns] = {"integrator", "primary standard", "second standard",
                                        "primary persistent", "second persistent"};

void printRecord(const DualTreeRecord& r, const HostReplay& a, const HostReplay& b) {
  std::printf("%s ray, pass %u pixel %u sample %u: o (%a %a %a) d (%a %a %a) tMax %a\n",
              r.shadow ? "shadow" : "closest", r.pass, r.pixel, r.sample, r.o[0], r.o[1], r.o[2],
              r.d[0], r.d[1], r.d[2], r.tMax);
  for (int k = 0; k < kDualTreeRuns; ++k) {
    if (!(r.ran >> k & 1u)) continue;
    if (r.shadow)
      std::printf("  device %-19s %s", kRunNames[k], (r.occluded >> k & 1u) ? "blocked" : "clear");
    else
      std::printf("  device %-19s", kRunNames[k]);
    if (!r.shadow || k == kRunPrimaryStandard || k == kRunSecondStandard)
      std::printf(" tri %u t %a b1 %a b2 %a", r.tri[k], r.t[k], r.b1[k], r.b2[k]);
    std::printf("\n");
  }
  for (int k = 0; k < 2; ++k) {
    const HostReplay& h = k ? b : a;
    std::printf("  host   %-19s %s tri %u t %a b1 %a b2 %a\n", k ? "second" : "primary",
                h.occluded ? "blocked" : "clear", h.closest.triangle, h.closest.t, h.closest.b1,
                h.closest.b2);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Traces the rays a dual-tree check recorded again on the host"};
  std::string scenePath, recordsPath, primaryDump, secondDump;
  int explain = 0;
  app.add_option("scene", scenePath, "the render's scene")->required();
  app.add_option("records", recordsPath, "the SRT_DUAL_TREE_CHECK file")->required();
  app.add_option("--primary-tree", primaryDump, "the render's tree (SRT_DUAL_TREE_DUMP)");
  app.add_option("--second-tree", secondDump, "the second tree (SRT_DUAL_TREE_DUMP)");
  app.add_option("--explain", explain, "leaf walks and references for the first N records");
  CLI11_PARSE(app, argc, argv);

  const DualTreeFile file = readDualTreeFile(recordsPath);
  const Scene scene = loadScene(scenePath);
  const FlatGeometry geo = flatten(scene, 0.f);
  const TriangleMeshView mesh{geo.positions.data(), geo.indices.data(),
                              uint32_t(geo.triangleCount())};
  if (hashMesh(mesh) != file.header.meshHash)
    std::fprintf(stderr, "warning: the mesh differs from the render's (other scene or time?)\n");
  const KdTree a =
      treeFor(file.header.primaryBuilder, primaryDump, mesh, file.header.primaryHash, "primary");
  const KdTree b =
      treeFor(file.header.secondBuilder, secondDump, mesh, file.header.secondHash, "second");
  // Traced with the renderer's triangle test.
  const std::vector<UnitTriangleRow> rows = unitTriangleRowsOnHost(mesh);
  const TriangleMeshView traced = withUnitTriangles(mesh, rows);
  const KdTreeView va{a.nodes.data(), a.primIndices.data(), a.bounds, traced};
  const KdTreeView vb{b.nodes.data(), b.primIndices.data(), b.bounds, traced};
  const float eps = kdClipEpsilon(mesh);
  size_t hostDiffers = 0;
  for (size_t i = 0; i < file.records.size(); ++i) {
    const DualTreeRecord& r = file.records[i];
    const HostReplay ha = replayOnHost(r, va), hb = replayOnHost(r, vb);
    const bool differs =
        r.shadow ? ha.occluded != hb.occluded
                 : ha.closest.triangle != hb.closest.triangle || ha.closest.t != hb.closest.t;
    hostDiffers += differs;
    printRecord(r, ha, hb);
    std::printf("  host trees %s\n", differs ? "DIFFER" : "agree");
    if (int(i) >= explain) continue;
    std::set<uint32_t> rivals;  // every triangle some run hit
    for (int k = 0; k < kDualTreeRuns; ++k)
      if (r.tri[k] != ~0u && (r.ran >> k & 1u)) rivals.insert(r.tri[k]);
    for (const HostReplay* h : {&ha, &hb})
      if (h->closest.triangle != ~0u) rivals.insert(h->closest.triangle);
    const std::vector<uint32_t> tris(rivals.begin(), rivals.end());
    std::printf(" primary tree:\n");
    explainRay(std::cout, recordRay(r), a, mesh, tris, eps);
    std::printf(" second tree:\n");
    explainRay(std::cout, recordRay(r), b, mesh, tris, eps);
    std::fflush(stdout);
  }
  std::printf("%zu records, %zu differ between the trees on the host\n", file.records.size(),
              hostDiffers);
  return 0;
}
