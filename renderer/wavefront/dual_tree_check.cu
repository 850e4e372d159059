#include "renderer/wavefront/dual_tree_check.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "renderer/accel/gpu/kdtree_build_gpu.h"
#include "renderer/accel/kdtree_traverse_persistent.cuh"
#include "renderer/backend/parallel_for.h"
#include "renderer/wavefront/intersect_persistent.h"

namespace srt {
namespace {

template <typename T>
SRT_CPU_GPU inline T atomicIncrement(T* p) {
#if SRT_IS_GPU_CODE
  return atomicAdd(p, T(1));
#else
  return __atomic_fetch_add(p, T(1), __ATOMIC_RELAXED);
#endif
}

using persistent::floatBits;

SRT_CPU_GPU inline bool sameHit(const Hit& a, const Hit& b) {
  if (a.triangle != b.triangle) return false;
  if (a.triangle == kNoHit) return true;
  return floatBits(a.t) == floatBits(b.t) && floatBits(a.b1) == floatBits(b.b1) &&
         floatBits(a.b2) == floatBits(b.b2);
}

// The closest hit as traceClosest writes it (kNoHit and t = inf on a miss).
SRT_CPU_GPU inline Hit closestOf(const KdTreeView& tree, const Ray& ray) {
  Hit h;
  if (!intersectClosest(tree, ray, &h)) h = Hit{};
  if (h.triangle == ~0u) h.triangle = kNoHit;
  return h;
}

// What a check's kernel writes to, and the two trees it traces.
struct RecordSink {
  DualTreeCounters* counters;
  DualTreeRecord* records;
  uint32_t maxRecords, pass;
  KdTreeView primary, second;
  // Where a differing ray goes: a slot of the record buffer, or none once it is full.
  SRT_CPU_GPU DualTreeRecord* claim() const {
    const uint32_t k = atomicIncrement(&counters->records);
    return k < maxRecords ? records + k : nullptr;
  }
};

SRT_CPU_GPU inline void fillRay(DualTreeRecord* r, const Ray& ray) {
  for (int k = 0; k < 3; ++k) r->o[k] = ray.o[k], r->d[k] = ray.d[k];
  r->tMax = ray.tMax;
}

SRT_CPU_GPU inline void fillHit(DualTreeRecord* r, int run, const Hit& h) {
  r->t[run] = h.t;
  r->tri[run] = h.triangle;
  r->b1[run] = h.b1;
  r->b2[run] = h.b2;
}

std::string secondBuilderFor(const Backend& backend, const std::string& primary) {
  const char* v = std::getenv("SRT_DUAL_TREE_BUILDER");
  std::string name = v && *v ? v : "";
  if (name.empty()) name = primary != "cpu" ? "cpu" : backend.isCuda() ? "gpu" : "gpu-host";
  if (name != "cpu" && name != "gpu-host" && name != "gpu")
    throw std::invalid_argument("SRT_DUAL_TREE_BUILDER must be cpu, gpu-host or gpu");
  if (name == "gpu" && !backend.isCuda())
    throw std::invalid_argument("SRT_DUAL_TREE_BUILDER=gpu needs the CUDA backend");
  return name;
}

}  // namespace

std::unique_ptr<DualTreeCheck> DualTreeCheck::fromEnvironment(const Backend& backend,
                                                              const Inputs& in) {
  const char* path = std::getenv("SRT_DUAL_TREE_CHECK");
  if (!path || !*path) return nullptr;
  const char* max = std::getenv("SRT_DUAL_TREE_MAX");
  const long maxRecords = max && *max ? std::atol(max) : 1000;
  if (maxRecords < 1 || maxRecords > (1 << 24))
    throw std::invalid_argument("SRT_DUAL_TREE_MAX must be 1 to 16777216");
  const char* dump = std::getenv("SRT_DUAL_TREE_DUMP");
  return std::make_unique<DualTreeCheck>(backend, in, path,
                                         secondBuilderFor(backend, in.primaryBuilder),
                                         uint32_t(maxRecords), dump && *dump && *dump != '0');
}

DualTreeCheck::DualTreeCheck(const Backend& backend, const Inputs& in, const std::string& path,
                             const std::string& secondBuilder, uint32_t maxRecords, bool dumpTrees)
    : path_(path), secondBuilder_(secondBuilder), maxRecords_(maxRecords) {
  const MemorySpace space = backend.memory();
  KdTree secondHost;
  if (secondBuilder == "gpu") {
    GpuKdTreeBuilder builder(in.gpu);
    second_ = std::make_unique<DeviceKdTree>(builder.build(in.deviceMesh, backend.stream));
    secondHost = second_->toHost();
  } else {
    secondHost = secondBuilder == "cpu" ? buildKdTreeSah(in.hostMesh, in.sah)
                                        : buildKdTreeGpuAlgorithmOnHost(in.hostMesh, in.gpu);
    second_ = std::make_unique<DeviceKdTree>(secondHost, space);
  }
  secondView_ = second_->view(in.tracedMesh);
  const KdTree primaryHost = in.primary->toHost();
  DualTreeHeader h;
  h.primaryBuilder = in.primaryBuilder;
  h.secondBuilder = secondBuilder;
  h.primaryHash = hashKdTree(primaryHost);
  h.secondHash = hashKdTree(secondHost);
  h.meshHash = hashMesh(in.hostMesh);
  h.triangles = in.hostMesh.triangleCount;
  std::ofstream out(path_);
  writeDualTreeHeader(out, h);
  if (!out) throw std::runtime_error("SRT_DUAL_TREE_CHECK: cannot write " + path_);
  if (dumpTrees) {
    writeKdTreeFile(path_ + ".primary.kdtree", primaryHost);
    writeKdTreeFile(path_ + ".second.kdtree", secondHost);
  }
  deviceCounters_ = Buffer<DualTreeCounters>(space, std::vector<DualTreeCounters>(1));
  records_ = Buffer<DualTreeRecord>(space, maxRecords_);
  std::fprintf(stderr,
               "streamrt: dual-tree check into %s: primary %s (%zu nodes), second %s (%zu "
               "nodes)\n",
               path_.c_str(), in.primaryBuilder.c_str(), primaryHost.nodes.size(),
               secondBuilder.c_str(), secondHost.nodes.size());
}

DualTreeCheck::~DualTreeCheck() = default;

void DualTreeCheck::closest(const Backend& b, const SceneView& scene, const RayStreamRef& rays,
                            const Hit* hits) {
  ++pass_;
  const bool persistent = b.isCuda();
  if (persistent) {
    if (primaryHits_.size() < rays.count) {
      primaryHits_ = Buffer<Hit>(b.memory(), rays.count);
      secondHits_ = Buffer<Hit>(b.memory(), rays.count);
    }
    SceneView second = scene;
    second.accel = secondView_;
    traceClosestPersistent(b, scene, rays, primaryHits_.data());
    traceClosestPersistent(b, second, rays, secondHits_.data());
  }
  const RecordSink k{
      deviceCounters_.data(), records_.data(), maxRecords_, pass_ - 1, scene.accel, secondView_};
  const Hit *hitsP = primaryHits_.data(), *hitsS = secondHits_.data();
  parallelFor(b, rays.count, [=] SRT_CPU_GPU(uint32_t i) {
    if (rays.deviceCount && i >= *rays.deviceCount) return;
    if (rays.lanes && !rays.lanes[i]) return;
    const uint32_t slot = rays.slots ? rays.slots[i] : i;
    const Ray ray = rays.ray(slot);
    Hit h[kDualTreeRuns];
    h[kRunIntegrator] = hits[i];
    h[kRunPrimaryStandard] = closestOf(k.primary, ray);
    h[kRunSecondStandard] = closestOf(k.second, ray);
    uint32_t ran = 7u;
    if (persistent) {
      h[kRunPrimaryPersistent] = hitsP[i];
      h[kRunSecondPersistent] = hitsS[i];
      ran = 31u;
    }
    atomicIncrement(&k.counters->closestRays);
    bool agree = true;
    for (int r = 0; r < kDualTreeRuns; ++r)
      if (ran >> r & 1u) agree = agree && sameHit(h[r], h[kRunPrimaryStandard]);
    if (agree) return;
    atomicIncrement(&k.counters->closestDiffering);
    DualTreeRecord* rec = k.claim();
    if (!rec) return;
    *rec = DualTreeRecord{};
    rec->pass = k.pass;
    // The path pool's 16-byte slots carry the pixel and sample in their fourth word.
    if (rays.stride == 4) {
      rec->pixel = floatBits(rays.origin[size_t(slot) * 4 + 3]);
      rec->sample = floatBits(rays.direction[size_t(slot) * 4 + 3]);
    }
    fillRay(rec, ray);
    for (int r = 0; r < kDualTreeRuns; ++r) fillHit(rec, r, h[r]);
    rec->ran = ran;
  });
  flush(b);
}

void DualTreeCheck::shadows(const Backend& b, const SceneView& scene, const ShadowStream& s,
                            const PathState& state) {
  const bool persistent = b.isCuda();
  if (persistent) {
    if (identity_.size() < s.maxCount) {
      identity_ = Buffer<uint32_t>(b.memory(), s.maxCount);
      fillIdentity(b, identity_.data(), s.maxCount);
      ones_ = Buffer<Vec3f>(b.memory(), std::vector<Vec3f>(s.maxCount, Vec3f(1.f)));
      primaryLight_ = Buffer<Vec3fAnd>(b.memory(), s.maxCount);
      secondLight_ = Buffer<Vec3fAnd>(b.memory(), s.maxCount);
    }
    Vec3fAnd *lightP = primaryLight_.data(), *lightS = secondLight_.data();
    parallelFor(b, s.maxCount, [=] SRT_CPU_GPU(uint32_t j) {
      lightP[j].v = Vec3f(0.f);
      lightS[j].v = Vec3f(0.f);
    });
    // The persistent kernel adds light to unoccluded rays' paths: here ray j adds 1 to light[j].
    ShadowStream probe = s;
    probe.rays.pathSlot = identity_.data();
    probe.rays.contribution = ones_.data();
    PathState light;
    light.radianceDepth = lightP;
    traceShadowsPersistent(b, scene, probe, light);
    SceneView second = scene;
    second.accel = secondView_;
    light.radianceDepth = lightS;
    traceShadowsPersistent(b, second, probe, light);
  }
  const RecordSink k{
      deviceCounters_.data(), records_.data(), maxRecords_, pass_ - 1, scene.accel, secondView_};
  const Vec3fAnd *lightP = primaryLight_.data(), *lightS = secondLight_.data();
  parallelFor(b, s.maxCount, [=] SRT_CPU_GPU(uint32_t i) {
    uint32_t j;
    Ray ray;
    if (!s.rayAt(i, j, ray)) return;
    uint32_t occluded = 0, ran = 6u;
    if (intersectAny(k.primary, ray)) occluded |= 1u << kRunPrimaryStandard;
    if (intersectAny(k.second, ray)) occluded |= 1u << kRunSecondStandard;
    if (persistent) {
      ran = 30u;
      if (lightP[j].v.x == 0.f) occluded |= 1u << kRunPrimaryPersistent;
      if (lightS[j].v.x == 0.f) occluded |= 1u << kRunSecondPersistent;
    }
    atomicIncrement(&k.counters->shadowRays);
    if (occluded == 0u || occluded == ran) return;
    atomicIncrement(&k.counters->shadowDiffering);
    DualTreeRecord* rec = k.claim();
    if (!rec) return;
    *rec = DualTreeRecord{};
    rec->shadow = 1;
    rec->pass = k.pass;
    const uint32_t slot = s.rays.pathSlot[j];
    rec->pixel = state.originPixel[slot].u;
    rec->sample = state.directionSample[slot].u;
    fillRay(rec, ray);
    // The blockers: the closest hit below tMax in each tree.
    fillHit(rec, kRunIntegrator, Hit{});
    fillHit(rec, kRunPrimaryStandard, closestOf(k.primary, ray));
    fillHit(rec, kRunSecondStandard, closestOf(k.second, ray));
    fillHit(rec, kRunPrimaryPersistent, Hit{});
    fillHit(rec, kRunSecondPersistent, Hit{});
    rec->occluded = occluded;
    rec->ran = ran;
  });
  flush(b);
}

// Appends the records found since the last call and rewrites the summary.
void DualTreeCheck::flush(const Backend& b) {
  b.synchronize();
  counters_ = deviceCounters_.download()[0];
  const uint32_t kept = counters_.records < maxRecords_ ? counters_.records : maxRecords_;
  if (kept > written_) {
    const std::vector<DualTreeRecord> all = records_.download(kept);
    std::ofstream out(path_, std::ios::app);
    for (uint32_t k = written_; k < kept; ++k) writeDualTreeRecord(out, all[k]);
    if (written_ == 0)
      std::fprintf(stderr, "streamrt: dual-tree check: differing rays found (%s)\n", path_.c_str());
    written_ = kept;
  }
  std::ofstream summary(path_ + ".summary");
  summary << "passes " << pass_ << "\nclosest_rays " << counters_.closestRays
          << "\nclosest_differing " << counters_.closestDiffering << "\nshadow_rays "
          << counters_.shadowRays << "\nshadow_differing " << counters_.shadowDiffering
          << "\nrecords_written " << written_ << "\nsecond_builder " << secondBuilder_ << "\n";
}

}  // namespace srt
