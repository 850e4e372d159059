// streamrt-dual-tree-fuzz: looks on the host for rays whose result depends on the kd-tree, with
// rays aimed where trees could disagree: from a point on one triangle (offset by the renderer's
// rule) at a point on an edge or corner of another, as closest-hit rays and as shadow rays that
// stop short of their target (tMax = 0.999 of the distance, as the path tracer's) or just past
// it. Differing rays go to a file in the dual-tree check's format, for streamrt-dual-tree-replay.
//
//   streamrt-dual-tree-fuzz scenes/examples/conference-room.json --rays 20000000 -o fuzz.txt
#include <omp.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <random>
#include <string>

#include "renderer/accel/gpu/kdtree_build_gpu.h"
#include "renderer/accel/kdtree_build_sah.h"
#include "renderer/wavefront/dual_tree_check_format.h"
#include "renderer/wavefront/scene_data.h"
#include "scenes/loader.h"
#include "scenes/scene.h"

using namespace srt;

namespace {

constexpr float kRayEpsilon = 1e-5f;  // the renderer's (SceneView::rayEpsilon)

// How many rays the trees disagreed on, by kind; counted from every thread.
struct DisagreementCounts {
  std::atomic<uint64_t> closest{0}, shadow{0};
};

DualTreeHeader headerOf(const KdTree& a, const KdTree& b, const TriangleMeshView& mesh) {
  DualTreeHeader h;
  h.primaryBuilder = "cpu", h.secondBuilder = "gpu-host";
  h.primaryHash = hashKdTree(a), h.secondHash = hashKdTree(b), h.meshHash = hashMesh(mesh);
  h.triangles = mesh.triangleCount;
  return h;
}

Vec3f cornerOf(const TriangleMeshView& mesh, uint32_t t, int k) {
  return mesh.positions[mesh.indices[3 * size_t(t) + k]];
}

// A ray from a random point on triangle `from` (offset by the renderer's rule) at a point on an
// edge (or a corner, one time in eight) of triangle `to`, its tMax unbounded. False where `from`
// is degenerate or the target is the ray's source.
bool aimAtEdge(const TriangleMeshView& mesh, uint32_t from, uint32_t to, std::mt19937_64& rng,
               std::uniform_real_distribution<float>& u01, Ray* ray, float* dist) {
  const Vec3f p0 = cornerOf(mesh, from, 0), p1 = cornerOf(mesh, from, 1),
              p2 = cornerOf(mesh, from, 2);
  float s = u01(rng), t = u01(rng);
  if (s + t > 1.f) s = 1.f - s, t = 1.f - t;
  const Vec3f p = p0 * (1.f - s - t) + p1 * s + p2 * t;
  Vec3f ng = cross(p1 - p0, p2 - p0);
  if (!(lengthSquared(ng) > 0.f)) return false;
  ng = normalize(ng);
  const int e = int(rng() % 3);
  const float w = (rng() & 7) == 0 ? 0.f : u01(rng);
  const Vec3f q = cornerOf(mesh, to, e) * (1.f - w) + cornerOf(mesh, to, (e + 1) % 3) * w;
  Vec3f d = q - p;
  *dist = length(d);
  if (!(*dist > 0.f)) return false;
  d = d / *dist;
  ray->o =
      offsetFromSurface(kRayEpsilon, p, hitPointMagnitude(p0, p1, p2, 1.f - s - t, s, t), ng, d);
  ray->d = d;
  ray->tMax = kInf;
  return true;
}

// The ray and both trees' hits in the record (the runs that did not happen left empty).
void fillRecord(const Ray& ray, const Hit& ha, const Hit& hb, DualTreeRecord* r) {
  for (int k = 0; k < 3; ++k) r->o[k] = ray.o[k], r->d[k] = ray.d[k];
  r->tMax = ray.tMax;
  for (int k = 0; k < kDualTreeRuns; ++k) r->tri[k] = ~0u, r->t[k] = kInf;
  const Hit* hits[2] = {&ha, &hb};
  for (int k = 0; k < 2; ++k) {
    r->t[1 + k] = hits[k]->t, r->tri[1 + k] = hits[k]->triangle;
    r->b1[1 + k] = hits[k]->b1, r->b2[1 + k] = hits[k]->b2;
  }
  r->ran = 6u;
}

// Whether the trees disagree on the ray's closest hit or, where they agree, on it as a shadow
// ray that stops short of its target or just past it (its tMax then set so). Where they
// disagree, the record holds the ray and both hits.
bool treesDisagree(const KdTreeView& va, const KdTreeView& vb, float dist, std::mt19937_64& rng,
                   Ray* ray, DualTreeRecord* r, DisagreementCounts& counts) {
  Hit ha, hb;
  const bool ka = intersectClosest(va, *ray, &ha), kb = intersectClosest(vb, *ray, &hb);
  bool differs = ka != kb || (ka && (ha.triangle != hb.triangle || ha.t != hb.t));
  if (!differs) {
    ray->tMax = (rng() & 1) ? 0.999f * dist : dist * 1.0001f;
    const bool oa = intersectAny(va, *ray), ob = intersectAny(vb, *ray);
    if (oa != ob) {
      differs = true;
      r->shadow = 1;
      r->occluded = (oa ? 1u << kRunPrimaryStandard : 0u) | (ob ? 1u << kRunSecondStandard : 0u);
      if (!intersectClosest(va, *ray, &ha)) ha = Hit{};
      if (!intersectClosest(vb, *ray, &hb)) hb = Hit{};
      ++counts.shadow;
    }
  } else {
    ++counts.closest;
  }
  if (differs) fillRecord(*ray, ha, hb, r);
  return differs;
}

// Traces `rays` aimed rays through both trees over every thread; writes each one they disagree
// on to `out`.
void searchDisagreements(const TriangleMeshView& mesh, const KdTreeView& va, const KdTreeView& vb,
                         uint64_t rays, uint32_t seed, std::ofstream& out,
                         DisagreementCounts& counts) {
  std::mutex lock;
  const uint32_t n = mesh.triangleCount;
#pragma omp parallel
  {
    std::mt19937_64 rng(seed * 7919ull + uint64_t(omp_get_thread_num()));
    std::uniform_real_distribution<float> u01(0.f, 1.f);
#pragma omp for schedule(dynamic, 4096)
    for (int64_t i = 0; i < int64_t(rays); ++i) {
      // Half the targets are triangles near the source in mesh order (mostly near in space:
      // short rays into corners), half anywhere.
      const uint32_t from = uint32_t(rng() % n);
      const uint32_t to =
          (rng() & 1) ? uint32_t(rng() % n) : uint32_t((from + n + rng() % 64 - 32) % n);
      Ray ray;
      float dist = 0.f;
      if (!aimAtEdge(mesh, from, to, rng, u01, &ray, &dist)) continue;
      DualTreeRecord r;
      if (!treesDisagree(va, vb, dist, rng, &ray, &r, counts)) continue;
      r.pixel = from, r.sample = to;
      std::lock_guard<std::mutex> g(lock);
      writeDualTreeRecord(out, r);
      out.flush();
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Rays aimed at edges and corners, traced against two builders' trees"};
  std::string scenePath, outPath = "dual_tree_fuzz.txt", second = "gpu-host";
  uint64_t rays = 10000000;
  uint32_t seed = 1;
  app.add_option("scene", scenePath)->required();
  app.add_option("--rays", rays);
  app.add_option("--seed", seed);
  app.add_option("--second", second, "gpu-host (default) or cpu with other options");
  app.add_option("-o", outPath);
  CLI11_PARSE(app, argc, argv);

  const Scene scene = loadScene(scenePath);
  const FlatGeometry geo = flatten(scene, 0.f);
  const TriangleMeshView mesh{geo.positions.data(), geo.indices.data(),
                              uint32_t(geo.triangleCount())};
  const KdTree a = buildKdTreeSah(mesh), b = buildKdTreeGpuAlgorithmOnHost(mesh);
  const KdTreeView va{a.nodes.data(), a.primIndices.data(), a.bounds, mesh};
  const KdTreeView vb{b.nodes.data(), b.primIndices.data(), b.bounds, mesh};
  std::ofstream out(outPath);
  writeDualTreeHeader(out, headerOf(a, b, mesh));
  DisagreementCounts counts;
  searchDisagreements(mesh, va, vb, rays, seed, out, counts);
  std::printf("%llu rays: %llu closest hits and %llu shadow rays differ (%s)\n",
              (unsigned long long)rays, (unsigned long long)counts.closest.load(),
              (unsigned long long)counts.shadow.load(), outPath.c_str());
  return 0;
}
