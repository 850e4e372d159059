// Wald & Havran 2006 O(N log N) SAH kd-tree build: per axis, one list of sorted split events
// (end < planar < start at equal positions) is swept to find the best plane; the lists of the two
// children are made from the parent's by a stable linear split, and only the triangles straddling
// the plane are clipped (clip.h, "perfect splits") and their new events sorted and merged in.
//
// Parallel: the root's events are made and radix-sorted per axis in parallel; every subtree of at
// least taskTriangles triangles is an OpenMP task writing its own fragment (joined once at the
// end, kdtree_build_sah_tree.cpp); nodes of at least wideNodeTriangles do their sweep,
// classification, clipping and list split in chunks over all threads (kdtree_build_sah_wide.cpp).
// The split decisions are the serial algorithm's, so the tree does not depend on the thread
// count.
#include "renderer/accel/kdtree_build_sah.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

#include "renderer/accel/clip.h"
#include "renderer/accel/kdtree_build_sah_events.h"
#include "renderer/accel/kdtree_build_sah_fragment.h"
#include "renderer/accel/kdtree_build_sah_node.h"
#include "renderer/accel/kdtree_build_sah_span.h"
#include "renderer/accel/kdtree_build_sah_wide.h"

namespace srt {
namespace {

using namespace kdsah;

// Defaults of KdBuildOptions::taskTriangles and wideNodeTriangles.
constexpr size_t kTaskTriangles = 256;
constexpr size_t kWideNodeTriangles = 8192;
// Straddlers per clipping task of a wide node.
constexpr size_t kClipGrain = 256;

// Per-thread buffers of the serial split; never held across a task scheduling point.
struct SplitScratch {
  std::vector<uint8_t> side;
  std::vector<Clipped> clipped;
  std::vector<Event> newL, newR;
};
thread_local SplitScratch tScratch;
// The span block of the task this thread runs (span::enabled() only).
thread_local const span::Block* tTaskBlock = nullptr;

class SahBuilder {
 public:
  SahBuilder(const TriangleMeshView& mesh, const KdBuildOptions& options, int maxDepth, float eps)
      : mesh_(mesh),
        options_(options),
        maxDepth_(maxDepth),
        eps_(eps),
        taskTriangles_(options.taskTriangles ? options.taskTriangles : kTaskTriangles),
        wideTriangles_(options.wideNodeTriangles ? options.wideNodeTriangles : kWideNodeTriangles) {
  }

  bool clippedBounds(uint32_t tri, const Bounds3f& voxel, Bounds3f* out) const {
    Vec3f v[3];
    for (int i = 0; i < 3; ++i) v[i] = mesh_.positions[mesh_.indices[3 * size_t(tri) + i]];
    return clipTriangleBounds(v, voxel.lo, voxel.hi, eps_, &out->lo, &out->hi);
  }

  // Builds the subtree of `ev` in `voxel` into `out`, spawning tasks for large children.
  void build(NodeEvents ev, const Bounds3f& voxel, int depth, KdFragment& out) {
    const bool wide = options_.parallel && ev.count >= wideTriangles_;
    SplitChoice split;
    if (ev.count > 0 && depth < maxDepth_) split = findSplit(ev, voxel, wide);
    if (split.axis < 0 || split.cost > double(options_.intersectCost) * double(ev.count)) {
      makeLeaf(ev, out);
      return;
    }
    Bounds3f left = voxel, right = voxel;
    left.hi[split.axis] = split.pos;
    right.lo[split.axis] = split.pos;
    NodeEvents evL, evR;
    splitEvents(ev, split, left, right, wide, evL, evR);
    ev.data.reset();

    const size_t self = out.nodes.size();
    out.nodes.emplace_back();
    buildChild(std::move(evL), left, depth + 1, out);
    const size_t above = out.nodes.size();
    buildChild(std::move(evR), right, depth + 1, out);
    if (above > kKdMaxField) throw std::length_error("kd-tree: more than 2^30 nodes");
    out.nodes[self].initInterior(split.axis, split.pos, uint32_t(above));
  }

  // build() for the root, inside the parallel region: an exception is kept for rethrow().
  void buildRoot(NodeEvents ev, const Bounds3f& voxel, KdFragment& out) {
    try {
      runTask([&] { build(std::move(ev), voxel, 0, out); }, out);
    } catch (...) {
      keepError();
    }
  }

  // The first exception the build threw (tasks cannot throw past their region).
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  struct ChildJob {
    NodeEvents ev;
    Bounds3f voxel;
    int depth;
    KdFragment* out;
  };

  void buildChild(NodeEvents ev, const Bounds3f& voxel, int depth, KdFragment& out) {
    if (!options_.parallel || ev.count < taskTriangles_) {
      build(std::move(ev), voxel, depth, out);
      return;
    }
    const double spawnAt = span::enabled() && tTaskBlock ? tTaskBlock->path() : 0.0;
    out.children.push_back({uint32_t(out.nodes.size()), uint32_t(out.prims.size()),
                            std::make_unique<KdFragment>(), spawnAt});
    out.nodes.emplace_back();  // the link node: the join puts the task's subtree here
    ChildJob* job = new ChildJob{std::move(ev), voxel, depth, out.children.back().subtree.get()};
#pragma omp task firstprivate(job)
    {
      std::unique_ptr<ChildJob> owned(job);
      try {
        runTask([&] { build(std::move(owned->ev), owned->voxel, owned->depth, *owned->out); },
                *owned->out);
      } catch (...) {
        keepError();
      }
    }
  }

  // fn, the body of a task writing `out`; with span::enabled(), out.span is its own path and the
  // task is taken off the path of any task this thread was running when it started this one.
  template <typename F>
  static void runTask(const F& fn, KdFragment& out) {
    if (!span::enabled()) return fn();
    const span::Block block;
    const span::Block* enclosing = tTaskBlock;
    tTaskBlock = &block;
    fn();
    tTaskBlock = enclosing;
    out.span = block.path();
    block.leaveEnclosingPath();
  }

  void keepError() {
#pragma omp critical(srt_kd_build_error)
    if (!error_) error_ = std::current_exception();
  }

  SplitChoice sweepAxis(const NodeEvents& ev, int k, const Bounds3f& voxel, bool wide) const {
    SweepSetup setup;
    if (!makeSweepSetup(voxel, k, options_.traversalCost, options_.intersectCost,
                        options_.emptyBonus, &setup))
      return {};
    if (wide) return sweepAxisWide(ev, setup, ev.count);
    return sweepRange(setup, ev.first(k), ev.last(k), 0, ev.count);
  }

  // The lowest cost over the three axes; ties go to the lower axis and the lower plane.
  SplitChoice findSplit(const NodeEvents& ev, const Bounds3f& voxel, bool wide) const {
    SplitChoice perAxis[3];
    if (wide) {
      forChunks(3, [&](size_t k) { perAxis[k] = sweepAxis(ev, int(k), voxel, true); });
    } else {
      for (int k = 0; k < 3; ++k) perAxis[k] = sweepAxis(ev, k, voxel, false);
    }
    SplitChoice best;
    for (const SplitChoice& s : perAxis)
      if (s.cost < best.cost) best = s;
    return best;
  }

  void makeLeaf(const NodeEvents& ev, KdFragment& out) const {
    if (ev.count > kKdMaxField)
      throw std::length_error("kd-tree: leaf with more than 2^30 triangles");
    KdNode leaf;
    if (ev.count == 0) {
      leaf.initLeaf(0, 0);
    } else if (ev.count == 1) {
      uint32_t tri = 0;
      for (const Event* e = ev.first(0); e < ev.last(0); ++e)
        if (e->type() != kEnd) tri = e->tri();
      leaf.initLeaf(1, tri);
    } else {
      leaf.initLeaf(uint32_t(ev.count), uint32_t(out.prims.size()));
      for (const Event* e = ev.first(0); e < ev.last(0); ++e)
        if (e->type() != kEnd) out.prims.push_back(e->tri());
    }
    out.nodes.push_back(leaf);
  }

  // Which child each triangle of the node goes to (Wald & Havran section 5.2); straddlers are
  // listed in `straddling`.
  void classify(const NodeEvents& ev, const SplitChoice& s, uint8_t* side,
                std::vector<Clipped>& straddling, size_t* onlyL, size_t* onlyR) const {
    for (const Event* e = ev.first(0); e < ev.last(0); ++e)
      if (e->type() != kEnd) side[e->tri()] = kBoth;
    markSides(ev.first(s.axis), ev.last(s.axis), s, side);
    straddling.clear();
    *onlyL = *onlyR = 0;
    for (const Event* e = ev.first(0); e < ev.last(0); ++e) {
      if (e->type() == kEnd) continue;
      const uint8_t sd = side[e->tri()];
      if (sd == kBoth) straddling.push_back({e->tri(), false, false, {}, {}});
      *onlyL += sd == kLeftOnly;
      *onlyR += sd == kRightOnly;
    }
  }

  // Axis k of both children: the parent's events filtered by side, with the straddlers' new
  // events (sorted) merged in.
  static void splitAxis(const NodeEvents& ev, int k, const uint8_t* side,
                        const std::vector<Clipped>& clipped, std::vector<Event>& newL,
                        std::vector<Event>& newR, NodeEvents& outL, NodeEvents& outR) {
    if (newL.size() < 2 * clipped.size()) newL.resize(2 * clipped.size());  // grows only
    if (newR.size() < 2 * clipped.size()) newR.resize(2 * clipped.size());
    Event *nlEnd, *nrEnd;
    straddlerEvents(clipped, k, newL.data(), newR.data(), &nlEnd, &nrEnd);
    std::sort(newL.data(), nlEnd);
    std::sort(newR.data(), nrEnd);
    Event* l = outL.data.get() + outL.begin[k];
    Event* r = outR.data.get() + outR.begin[k];
    mergeRange(ev.first(k), ev.last(k), side, newL.data(), nlEnd, newR.data(), nrEnd, &l, &r);
    outL.end[k] = size_t(l - outL.data.get());
    outR.end[k] = size_t(r - outR.data.get());
  }

  // Room for the children's lists: each axis gets the parent's events plus two per straddler.
  static void allocateChild(const NodeEvents& ev, size_t straddlers, NodeEvents& child) {
    size_t total = 0;
    for (int k = 0; k < 3; ++k) {
      child.begin[k] = child.end[k] = total;
      total += ev.end[k] - ev.begin[k] + 2 * straddlers;
    }
    child.data.reset(new Event[total]);
  }

  // The straddler's parts in both children of `voxel` split by s.
  void clipStraddler(const Bounds3f& voxel, const SplitChoice& s, Clipped& c) const {
    Vec3f v[3];  // NOLINT: filled below
    for (int i = 0; i < 3; ++i) v[i] = mesh_.positions[mesh_.indices[3 * size_t(c.tri) + i]];
    clipTriangleBoundsSplit(v, voxel.lo, voxel.hi, s.axis, s.pos, eps_, &c.inL, &c.l.lo, &c.l.hi,
                            &c.inR, &c.r.lo, &c.r.hi);
  }

  void clipAll(const Bounds3f& voxel, const SplitChoice& s, std::vector<Clipped>& clipped,
               bool wide) const {
    if (!wide) {
      for (Clipped& c : clipped) clipStraddler(voxel, s, c);
      return;
    }
    const size_t n = clipped.size(), chunks = chunksFor(n, kClipGrain);
    forChunks(chunks, [&](size_t c) {
      for (size_t i = n * c / chunks; i < n * (c + 1) / chunks; ++i)
        clipStraddler(voxel, s, clipped[i]);
    });
  }

  void splitEvents(const NodeEvents& ev, const SplitChoice& s, const Bounds3f& left,
                   const Bounds3f& right, bool wide, NodeEvents& outL, NodeEvents& outR) {
    // A wide node waits for its chunk tasks, and a waiting thread may run other tasks that use
    // its scratch: it keeps its own buffers.
    SplitScratch local;
    SplitScratch& scratch = wide ? local : tScratch;
    if (scratch.side.size() < mesh_.triangleCount) scratch.side.resize(mesh_.triangleCount);
    size_t onlyL = 0, onlyR = 0;
    if (wide)
      classifyWide(ev, s, scratch.side.data(), scratch.clipped, &onlyL, &onlyR);
    else
      classify(ev, s, scratch.side.data(), scratch.clipped, &onlyL, &onlyR);
    Bounds3f voxel = left;
    voxel.hi[s.axis] = right.hi[s.axis];
    clipAll(voxel, s, scratch.clipped, wide);
    size_t keptL = 0, keptR = 0;
    for (const Clipped& c : scratch.clipped) keptL += c.inL, keptR += c.inR;
    allocateChild(ev, scratch.clipped.size(), outL);
    allocateChild(ev, scratch.clipped.size(), outR);
    outL.count = onlyL + keptL;
    outR.count = onlyR + keptR;
    if (wide) {
      forChunks(3, [&](size_t k) {
        splitAxisWide(ev, int(k), scratch.side.data(), scratch.clipped, outL, outR);
      });
    } else {
      for (int k = 0; k < 3; ++k)
        splitAxis(ev, k, scratch.side.data(), scratch.clipped, scratch.newL, scratch.newR, outL,
                  outR);
    }
  }

  const TriangleMeshView& mesh_;
  const KdBuildOptions& options_;
  int maxDepth_;
  float eps_;
  size_t taskTriangles_, wideTriangles_;
  std::exception_ptr error_;
};

bool finite(Vec3f v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

void checkOptions(const KdBuildOptions& o) {
  if (!(o.traversalCost > 0) || !(o.intersectCost > 0))
    throw std::invalid_argument("KdBuildOptions: traversalCost and intersectCost must be > 0");
  if (!(o.emptyBonus >= 0 && o.emptyBonus < 1))
    throw std::invalid_argument("KdBuildOptions: emptyBonus must be in [0, 1), got " +
                                std::to_string(o.emptyBonus));
  if (o.maxDepth < 0 || o.maxDepth > kKdMaxDepth)
    throw std::invalid_argument("KdBuildOptions: maxDepth " + std::to_string(o.maxDepth) +
                                " outside [0, " + std::to_string(kKdMaxDepth) + "]");
}

// One axis of the root's events, unsorted, in triangle order, in chunks; returns the end.
Event* rootAxisEvents(const std::vector<Bounds3f>& boxes, const std::vector<uint8_t>& usable, int k,
                      Event* out) {
  const size_t n = boxes.size(), chunks = chunksFor(n, 65536);
  std::vector<size_t> at(chunks + 1, 0);
  forChunks(chunks, [&](size_t c) {
    size_t m = 0;
    for (size_t t = n * c / chunks; t < n * (c + 1) / chunks; ++t)
      if (usable[t]) m += boxes[t].lo[k] == boxes[t].hi[k] ? 1 : 2;
    at[c + 1] = m;
  });
  for (size_t c = 0; c < chunks; ++c) at[c + 1] += at[c];
  forChunks(chunks, [&](size_t c) {
    Event* end = out + at[c];
    for (size_t t = n * c / chunks; t < n * (c + 1) / chunks; ++t)
      if (usable[t]) end = addAxisEvents(uint32_t(t), boxes[t].lo[k], boxes[t].hi[k], end);
  });
  return out + at[chunks];
}

// The root's event lists, sorted, for the triangles with `usable` set: per axis, in parallel.
NodeEvents rootEvents(const std::vector<Bounds3f>& boxes, const std::vector<uint8_t>& usable,
                      size_t count) {
  NodeEvents ev;
  ev.count = count;
  ev.data.reset(new Event[6 * count]);
  std::unique_ptr<Event[]> tmp(new Event[6 * count]);
  forChunks(3, [&](size_t k) {
    Event* const out = ev.data.get() + 2 * count * k;
    const size_t n = size_t(rootAxisEvents(boxes, usable, int(k), out) - out);
    radixSortWide(out, tmp.get() + 2 * count * k, n);
    ev.begin[k] = 2 * count * k;
    ev.end[k] = ev.begin[k] + n;
  });
  return ev;
}

// With span::enabled() (meant for one thread): the phases' work and critical paths, milliseconds.
void reportSpan(double prepSeconds, double eventsWork, double eventsPath, double treeWork,
                double treePath, double joinSeconds) {
  std::fprintf(stderr,
               "kd build span: prepare %.1f ms (parallel loops), root events work %.1f path %.1f, "
               "tree work %.1f path %.1f, join %.1f ms (parallel copy)\n",
               prepSeconds * 1e3, eventsWork * 1e3, eventsPath * 1e3, treeWork * 1e3,
               treePath * 1e3, joinSeconds * 1e3);
}

}  // namespace

KdTree buildKdTreeSah(const TriangleMeshView& mesh, const KdBuildOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  checkOptions(options);
  if (mesh.triangleCount > 0 && (!mesh.positions || !mesh.indices))
    throw std::invalid_argument("buildKdTreeSah: mesh with " + std::to_string(mesh.triangleCount) +
                                " triangles but no positions or indices");
  if (mesh.triangleCount > kKdMaxField)
    throw std::invalid_argument("buildKdTreeSah: more than 2^30 triangles");
  const int threads = options.parallel ? omp_get_max_threads() : 1;
  const long tris = long(mesh.triangleCount);

  // Scale of the rounding the clipped bounds must absorb: a few ulps of the largest coordinate.
  std::vector<uint8_t> usable(mesh.triangleCount);
  float maxAbs = 0;
  long count = 0;
#pragma omp parallel for num_threads(threads) reduction(max : maxAbs) reduction(+ : count)
  for (long t = 0; t < tris; ++t) {
    const Vec3f v[3] = {mesh.positions[mesh.indices[3 * size_t(t)]],
                        mesh.positions[mesh.indices[3 * size_t(t) + 1]],
                        mesh.positions[mesh.indices[3 * size_t(t) + 2]]};
    usable[size_t(t)] = finite(v[0]) && finite(v[1]) && finite(v[2]);
    if (!usable[size_t(t)]) continue;
    ++count;
    for (const Vec3f& p : v)
      maxAbs = std::max(maxAbs, std::max(std::fabs(p.x), std::max(std::fabs(p.y), std::fabs(p.z))));
  }
  const float eps = 16.f * std::numeric_limits<float>::epsilon() * maxAbs;
  const int maxDepth =
      options.maxDepth > 0
          ? options.maxDepth
          : std::min(kKdMaxDepth,
                     int(std::lround(8 + 1.3 * std::log2(double(std::max<long>(count, 1))))));

  SahBuilder builder(mesh, options, maxDepth, eps);
  Bounds3f everything;
  everything.lo = Vec3f(-std::numeric_limits<float>::max());
  everything.hi = Vec3f(std::numeric_limits<float>::max());
  std::vector<Bounds3f> boxes(mesh.triangleCount);
#pragma omp parallel for num_threads(threads)
  for (long t = 0; t < tris; ++t)
    if (usable[size_t(t)] && !builder.clippedBounds(uint32_t(t), everything, &boxes[size_t(t)]))
      usable[size_t(t)] = 0;
  Bounds3f bounds;
  count = 0;
  for (long t = 0; t < tris; ++t)
    if (usable[size_t(t)]) bounds.extend(boxes[size_t(t)]), ++count;

  const auto prepared = std::chrono::steady_clock::now();
  KdFragment root;
  double eventsWork = 0, eventsPath = 0;
  const double process0 = span::processSeconds();
#pragma omp parallel num_threads(threads)
#pragma omp single
  {
    const span::Block events;
    NodeEvents rootEv = rootEvents(boxes, usable, size_t(count));
    std::vector<Bounds3f>().swap(boxes);
    std::vector<uint8_t>().swap(usable);
    eventsWork = events.elapsed(), eventsPath = events.path();
    builder.buildRoot(std::move(rootEv), bounds, root);
  }
  const double treeWork = span::processSeconds() - process0 - eventsWork;  // on one thread
  builder.rethrow();

  KdTree tree;
  const auto built = std::chrono::steady_clock::now();
  joinFragments(root, &tree.nodes, &tree.primIndices);
  if (span::enabled())
    reportSpan(std::chrono::duration<double>(prepared - start).count(), eventsWork, eventsPath,
               treeWork, criticalPath(root),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - built).count());
  tree.bounds = bounds;
  tree.buildSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return tree;
}

}  // namespace srt
