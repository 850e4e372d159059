// Both wavefront integrators over a fixed-size pool of paths. A path tracer pass: extend
// (closest hit), shade (emission, NEE candidates, next direction, roulette), compact the shadow
// candidates and trace them, add dead paths to the film, then make room and refill it with new
// camera paths. A Whitted pass: closest hit, shading (local light to the film, shadow rays
// inline; a mirror or glass child into the ray's slot, a second glass child onto a spill stack
// that the refill empties before new camera rays start: SpillStacks). Making room:
//   - a compacting primitive moves the survivors to the front and new paths fill the tail (every
//     pass, or every few: --compact-every; the hold passes between keep their dead lanes and
//     start nothing);
//   - "none" leaves dead lanes in place and new paths take them where they are;
//   - with the index payload the state never moves: dead slots take new paths in place and the
//     primitive compacts the list of occupied slots into the next pass's stream.
// The schedule "waves" refills only once the whole pool has died (the classic loop, one wave per
// sample when the pool holds every pixel); "regenerate" refills after every pass, so the pool
// stays full and every launch has work for the whole GPU (Laine et al. 2013).
//
// Every count lives on the device (PoolControl): kernels are launched at an upper bound and
// return past the count, compaction runs over the bound (flags past the count are 0). The host
// reads the control block back one pass late, for progress and to know when to stop, so the GPU
// always has the next pass queued.
#include <algorithm>
#include <array>
#include <cstdlib>
#include <future>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "renderer/wavefront/dual_tree_check.h"
#include "renderer/wavefront/integrator_common.h"
#include "renderer/wavefront/intersect_persistent.h"
#include "renderer/wavefront/pool_stats.h"

namespace srt {
namespace {

class PoolIntegrator final : public WavefrontIntegrator {
 public:
  PoolIntegrator(const Scene& scene, const SceneData& data, const Backend& backend,
                 const RenderOptions& opt, std::unique_ptr<compaction::Compactor> compactor,
                 const compaction::Info& info)
      : WavefrontIntegrator(scene, data, backend, opt, std::move(compactor), info),
        capacity_(poolCapacity(backend, opt)),
        whitted_(opt.integrator == IntegratorKind::Whitted),
        waves_(opt.schedule == Schedule::Waves),
        persistent_(opt.traversal == Traversal::Persistent ||
                    (opt.traversal == Traversal::Auto && backend.isCuda())),
        refill_(!info.compacts                  ? Refill::InPlace
                : opt.payload == Payload::Index ? Refill::InPlaceIndexed
                                                : Refill::Tail),
        compactEvery_(refill_ == Refill::Tail && !whitted_ ? opt.compactEvery : 1),
        deferredShadows_(whitted_ && whittedShadowsDeferred(backend.isCuda())),
        lagForced_(lagFromEnvironment()),
        control_(backend.memory(), 1),
        passes_{{PassRecord(backend), PassRecord(backend), PassRecord(backend)}},
        snapshots_(backend.memory(), kRing) {
    const MemorySpace space = backend.memory();
    const size_t n = capacity_;
    state_[0].allocate(space, n);
    if (refill_ == Refill::Tail) state_[1].allocate(space, n);
    hits_ = Buffer<Hit>(space, n);
    keep_[0] = Buffer<uint8_t>(space, n);
    // In place (and between spaced-out compactions) a pass's flags are the next pass's lanes.
    if (refill_ == Refill::InPlace || compactEvery_ != 1) keep_[1] = Buffer<uint8_t>(space, n);
    const bool shadowStream = !whitted_ || deferredShadows_;
    if (shadowStream) shadowCandidates_.allocate(space, n);
    if (whitted_ && opt.maxDepth > 0) spill_.allocate(space, size_t(opt.maxDepth) * n);
    if (refill_ == Refill::InPlaceIndexed) {
      // Index payload: paths stay where they were written; positions move.
      slots_ = Buffer<uint32_t>(space, n);
      if (opt.reorder == Reorder::Octant) {
        octantFlags_ = Buffer<uint8_t>(space, kOctants * n);
        octantQueues_ = Buffer<uint32_t>(space, kOctants * n);
      }
    }
    if (info.compacts) {
      // Shadow rays are compacted as positions with either payload: each is read once, by the
      // shadow trace, so moving its 44 bytes would cost more than gathering them through it.
      identity_ = Buffer<uint32_t>(space, n);
      fillIdentity(backend, identity_.data(), uint32_t(n));
      if (shadowStream) shadowIndex_ = Buffer<uint32_t>(space, n);
    }
    if (shadowStream) shadowKeep_ = Buffer<uint8_t>(space, n);
    film_ = Buffer<unsigned long long>(space, 3 * size_t(opt.width) * opt.height);
    depthCounts_ = Buffer<unsigned long long>(space, 3 * size_t(kDepthSlots) * kCounterStripes);
    if (info.compacts) compactor_->prepare(preparation());
    if (backend.isCuda())
      for (auto& e : readBackDone_) e = CudaEvent(cudaEventDisableTiming);
  }

  ~PoolIntegrator() override {
    // The device may still copy into the snapshots (pinned memory freed below).
    if (backend_.isCuda()) cudaStreamSynchronize(backend_.stream);
  }

  void render(RenderStats& stats, const ProgressFn& progress, const StopCondition& stop) override {
    const uint32_t pixels = uint32_t(size_t(opt_.width) * opt_.height);
    film_.fillBytes(0);
    depthCounts_.fillBytes(0);
    for (auto& k : keep_)
      if (!k.empty()) k.fillBytes(0);
    cur_ = keepIn_ = 0;
    holding_ = false;
    passesSinceCompaction_ = 0;
    survival_ = 0;
    autoCycle_ = 1;
    PoolControl init;
    init.totalWork = (unsigned long long)pixels * uint32_t(opt_.spp);
    control_.upload(&init, 1);
    source_ = PathSource{camera_, pixels, opt_.firstSample, opt_.seed, spillStacks()};
    if (pixels == uint32_t(camera_.width) * uint32_t(camera_.height))
      source_.bandRows = opt_.pixelBands;
    filmView_ = FixedFilm{film_.data(), float(kFilmMaxSum / opt_.filmClampSamples())};
    stats.schedule = opt_.schedule;
    stats.poolSize = capacity_;
    stats.traversal = persistent_ ? Traversal::Persistent : Traversal::Standard;  // "auto" resolved
    stats.reorder = opt_.reorder;
    stats.compactEvery = compactEvery_;

    uint32_t bound = capacity_;
    int lastSamples = -1;
    int nextDepth = 0;  // waves: the depth of the next pass harvested
    // Regeneration keeps the pool full, so a pass can be queued before the last one's counts are
    // known: the host harvests one pass late and the GPU never waits. Waves shrink pass after
    // pass, so there each pass is harvested before the next is queued and launched at its exact
    // count (the classic loop's one read-back per bounce).
    const bool lagged = backend_.isCuda() && !waves_ && lagPasses(init.totalWork);
    bool stopping = false;
    int previous = 0;  // the pass harvested before
    unsigned long long totalWork = init.totalWork;
    bool overflow = false;
    for (uint64_t pass = 0;; ++pass) {
      runPass(bound, passes_[pass % kRing], pass == 0);
      readBack(int(pass % kRing));
      // The image's host memory, zeroed on a thread of its own while the GPU renders (on this
      // one it delayed the next pass); kept by a caller that never asks for the image: the viewer.
      if (pass == 0 && !imageStorage_.valid())
        imageStorage_ =
            std::async(std::launch::async, [pixels] { return std::vector<Vec3f>(pixels); });
      if (!stopping && stop.requested()) {
        // Queued after this pass's read-back: a later snapshot carries the trimmed total.
        stopAtSampleBoundary(backend_, control_.data(), pixels);
        stopping = true;
      }
      if (lagged && pass == 0) continue;
      const int done = int((lagged ? pass - 1 : pass) % kRing);
      if (backend_.isCuda()) readBackDone_[done].synchronize();
      const PoolControl& c = snapshots_[done];
      recordPass(stats, c, passes_[done], pass == (lagged ? 1 : 0) ? nullptr : &passes_[previous],
                 nextDepth);
      previous = done;
      const bool allIssued = c.nextWork >= c.totalWork;
      if (refill_ != Refill::InPlace) bound = nextBound(bound, c, lagged, allIssued);
      const int samples = int(c.finished / pixels);
      if (progress && samples != lastSamples) {
        progress(samples, opt_.spp, c.raysTraced + c.shadowRaysTraced);
        lastSamples = samples;
      }
      if (allIssued && c.live == 0) {
        totalWork = c.totalWork;
        overflow = c.spillOverflow != 0;  // sticky: a pass queued after this one adds nothing
        break;
      }
    }
    backend_.synchronize();  // (lagged, one more pass was queued; it found nothing to do)
    if (overflow) throw std::logic_error("Whitted: a spill stack overflowed (rays were lost)");
    addDepthStats(stats, depthCounts_.download(), !waves_ || whitted_);
    stats.compactionChoice = compactor_->choiceSummary();
    samplesDone_ = int(totalWork / pixels);
    stats.samplesDone = samplesDone_;
    stats.stopped = samplesDone_ < opt_.spp;
  }

  Image image() const override {
    std::vector<Vec3f> storage = imageStorage_.valid() ? imageStorage_.get() : std::vector<Vec3f>();
    return resolveFilm(film_, opt_, samplesDone_, backend_, mean_, &storage);
  }
  std::vector<unsigned long long> filmSums() const override { return film_.download(); }
  const unsigned long long* filmData() const override { return film_.data(); }

 private:
  static constexpr int kRing = 3;                  // passes in flight between queueing and harvest
  static constexpr double kAutoMinSurvival = 0.5;  // --compact-every auto: compactThisPass()

  static uint32_t poolCapacity(const Backend& backend, const RenderOptions& opt) {
    const uint64_t work = uint64_t(opt.width) * uint64_t(opt.height) * uint64_t(opt.spp);
    const uint64_t want = opt.poolSize ? opt.poolSize : defaultPoolSize(backend, opt);
    return uint32_t(std::max<uint64_t>(1, std::min<uint64_t>(want, work)));
  }

  DepthCounters depthCounters() const {
    unsigned long long* d = depthCounts_.data();
    const size_t n = size_t(kDepthSlots) * kCounterStripes;
    return {d, d + n, d + 2 * n};
  }

  // Whether the host harvests a pass one pass late (keeping the next queued) or waits for it. A
  // Whitted frame whose camera rays all fit in the pool is mostly one pass: lagging would queue
  // an empty pass at the full bound behind it. SRT_POOL_LAG=always|never overrides (measuring).
  bool lagPasses(unsigned long long totalWork) const {
    if (lagForced_ >= 0) return lagForced_ == 1;
    return !(whitted_ && totalWork <= capacity_);
  }
  static int lagFromEnvironment() {
    const char* env = std::getenv("SRT_POOL_LAG");
    const std::string mode = env ? env : "auto";
    return mode == "always" ? 1 : mode == "never" ? 0 : -1;
  }
  SpillStacks spillStacks() const {
    return {spill_.view(), spill_.capacity ? capacity_ : 0, uint32_t(opt_.maxDepth)};
  }

  // The streams the primitive will compact, so it sets up before the first pass.
  compaction::Preparation preparation() const {
    compaction::Preparation p{capacity_, backend_.memory(), backend_.stream, {}};
    std::vector<compaction::Field> fields;
    stateFields(fields);
    if (refill_ == Refill::Tail) p.layouts.emplace_back();
    for (const auto& f : fields)
      if (refill_ == Refill::Tail) p.layouts.back().push_back(f.bytes);
    if (!whitted_ || deferredShadows_ || refill_ == Refill::InPlaceIndexed)
      p.layouts.push_back({sizeof(uint32_t)});
    return p;
  }

  // The fields a state compaction moves: a path's four, or a Whitted ray's three (its radiance
  // goes to the film as it is found).
  void stateFields(std::vector<compaction::Field>& out) const {
    out.clear();
    PathStateStorage::compactionFields(state_[cur_], state_[1 - cur_], out);
    if (whitted_) out.pop_back();  // radianceDepth, the last of SRT_PATH_FIELDS
  }

  // The launch size of the next pass to queue. Unlagged, c.count is the next pass's count.
  // Lagged, once no work is left a path stream only shrinks, so the count one pass back bounds
  // the passes still to queue; a Whitted stream may double in the pass between (each ray's two
  // children), and once nothing is spilled either, twice the count bounds it.
  uint32_t nextBound(uint32_t bound, const PoolControl& c, bool lagged, bool allIssued) const {
    const uint32_t count = std::max<uint32_t>(c.count, 1);
    if (!lagged) return count;
    if (!allIssued) return bound;
    if (!whitted_) return std::min(bound, count);
    if (c.spilled > 0) return capacity_;
    return uint32_t(std::min<uint64_t>(capacity_, 2ull * count));
  }

  // One pass over the stream, launched at `bound` (the device count decides who works), its
  // launches timed as named stages. The first pass starts by filling the empty pool.
  void runPass(uint32_t bound, PassRecord& rec, bool first) {
    const SceneView& scene = data_.view();
    PoolControl* ctl = control_.data();
    const bool inPlace = refill_ == Refill::InPlace;
    // --compact-every N: this pass compacts after N - 1 that did not (hold passes).
    const bool compactNow = compactThisPass();
    const bool hold = refill_ == Refill::Tail && !compactNow;
    PassTimer& t = rec.timer;
    t.start();
    rec.transferMs = 0;
    if (first) closePass(t, rec, keep_[0].data(), false);  // the empty pool fills

    PathStream paths;
    paths.state = state_[cur_].view();
    paths.slots = refill_ == Refill::InPlaceIndexed ? slots_.data() : nullptr;
    paths.lanes = inPlace || holding_ ? keep_[keepIn_].data() : nullptr;
    paths.count = bound;
    paths.deviceCount = &ctl->count;
    uint8_t* keep = keep_[inPlace || compactEvery_ != 1 ? 1 - keepIn_ : 0].data();

    t.run(stage::kTrace, [&] {
      if (persistent_)
        traceClosestPersistent(backend_, scene, RayStreamRef::of(paths), hits_.data());
      else
        traceClosest(backend_, scene, RayStreamRef::of(paths), hits_.data());
    });
    if (DualTreeCheck* c = data_.dualTreeCheck())
      c->closest(backend_, scene, RayStreamRef::of(paths), hits_.data());
    // No light to sample (a scene lit by a uniform environment alone): shading makes no shadow
    // rays, so there is nothing to compact or trace.
    const bool lights = hasSampledLights(scene);
    if (whitted_) {
      WhittedOutputs out{keep, filmView_, spillStacks(), ctl, depthCounters(), {}, nullptr};
      if (deferredShadows_)
        out.shadows = shadowCandidates_.view(), out.shadowKeep = shadowKeep_.data();
      t.run(stage::kShade, [&] {  // shadow rays are traced inside unless deferred
        shadeWhitted(backend_, scene, paths, hits_.data(), opt_.seed, uint32_t(opt_.maxDepth), out);
      });
      if (deferredShadows_) {
        if (lights) traceShadowRays(t, rec, bound, paths.state);
        t.run(stage::kFilm, [&] { finishWhitted(backend_, paths, keep, filmView_); });
      }
    } else {
      const ShadeOutputs out{keep, shadowCandidates_.view(), shadowKeep_.data(), depthCounters()};
      t.run(stage::kShade, [&] {
        shadePaths(backend_, scene, paths, hits_.data(), opt_.seed, uint32_t(opt_.maxDepth), out);
      });
      if (lights) traceShadowRays(t, rec, bound, paths.state);
      t.run(stage::kFilm, [&] { finishPaths(backend_, paths, keep, filmView_); });
    }

    if (compactNow) {
      t.run(stage::kCompactPaths, [&] {
        stateFields(fields_);
        rec.transferMs += compact(keep, fields_, bound, &ctl->kept);
      });
      cur_ = 1 - cur_;
      passesSinceCompaction_ = 0;
      autoCycle_ = survival_ >= kAutoMinSurvival ? 3 : 1;  // the next cycle
    } else {
      ++passesSinceCompaction_;
      t.run(stage::kCountPaths, [&] {
        countFlags(backend_, keep, refill_ == Refill::Tail ? bound : capacity_, &ctl->kept);
      });
    }
    closePass(t, rec, keep, hold);
    // In place and in hold passes, this pass's flags are the next pass's lanes.
    if (inPlace || hold) keepIn_ = 1 - keepIn_;
    if (refill_ == Refill::Tail) holding_ = hold;
    rec.bound = bound;
    rec.compacted = compactNow || refill_ == Refill::InPlaceIndexed;
    rec.shadows = lights && info_.compacts && (!whitted_ || deferredShadows_);
  }

  // The shadow candidates shading wrote: compacted into a stream of positions (or, without a
  // compacting primitive, counted in place), then traced.
  void traceShadowRays(PassTimer& t, PassRecord& rec, uint32_t bound, const PathState& state) {
    const SceneView& scene = data_.view();
    PoolControl* ctl = control_.data();
    ShadowStream shadows;
    shadows.maxCount = bound;
    shadows.rays = shadowCandidates_.view();
    if (info_.compacts) {
      t.run(stage::kCompactShadows, [&] {
        fields_.clear();
        fields_.push_back({identity_.data(), shadowIndex_.data(), sizeof(uint32_t)});
        rec.transferMs += compact(shadowKeep_.data(), fields_, bound, &ctl->shadowCount);
      });
      shadows.indices = shadowIndex_.data();
      shadows.deviceCount = &ctl->shadowCount;
    } else {
      t.run(stage::kCountShadows,
            [&] { countFlags(backend_, shadowKeep_.data(), bound, &ctl->shadowCount); });
      shadows.lanes = shadowKeep_.data();
    }
    t.run(stage::kTraceShadows, [&] {
      if (persistent_)
        traceShadowsPersistent(backend_, scene, shadows, state);
      else
        traceShadows(backend_, scene, shadows, state);
    });
    if (DualTreeCheck* c = data_.dualTreeCheck()) c->shadows(backend_, scene, shadows, state);
  }

  // Tail: whether this pass compacts the paths (the others are hold passes). --compact-every N:
  // every Nth pass. auto (0): each cycle between two compactions is 3 passes long while most
  // paths survive a pass (the last harvested pass's survival at least kAutoMinSurvival: long
  // paths, interiors), else 1 (most paths die at once: every hold pass would run half empty).
  // Cycles of 3 measured best on the interiors (bench/tracer/RESULTS.md).
  bool compactThisPass() const {
    if (refill_ != Refill::Tail) return false;
    const uint32_t passes = passesSinceCompaction_ + 1;  // this one included
    return passes >= (compactEvery_ > 0 ? compactEvery_ : autoCycle_);
  }

  // The last stages of a pass, each named: new paths into the room it left (none in a hold
  // pass), the index payload's next stream, the bookkeeping that closes it. `alive`: the flags per
  // slot after the pass (in-place refills set them for the paths they start).
  void closePass(PassTimer& t, PassRecord& rec, uint8_t* alive, bool hold) {
    if (!hold)
      t.run(stage::kRefill, [&] {
        if (whitted_)
          planSpillRefill(backend_, control_.data(), capacity_, waves_, spillStacks().perDepth);
        refill(alive);
      });
    if (refill_ == Refill::InPlaceIndexed && !octantFlags_.empty())
      t.run(stage::kPartitionOctants, [&] { rec.transferMs += partitionByOctant(alive); });
    else if (refill_ == Refill::InPlaceIndexed)
      t.run(stage::kCompactIndex, [&] { rec.transferMs += compactIndexStream(alive); });
    t.run(stage::kEndPass, [&] {
      endPass(backend_, control_.data(), hold ? Refill::Hold : refill_, capacity_, waves_);
    });
  }

  // New camera paths into the free slots: the tail after compaction, or dead slots in place.
  void refill(uint8_t* alive) {
    const PathState st = state_[cur_].view();
    if (refill_ == Refill::Tail)
      refillTail(backend_, source_, st, control_.data(), capacity_, waves_);
    else
      refillInPlace(backend_, source_, st, alive, control_.data(), capacity_, waves_);
  }

  // The index payload's next stream: the occupied slots, in slot order.
  double compactIndexStream(const uint8_t* alive) {
    fields_.clear();
    fields_.push_back({identity_.data(), slots_.data(), sizeof(uint32_t)});
    return compact(alive, fields_, capacity_, &control_.data()->nextCount);
  }

  // The index payload's next stream: the occupied slots grouped by ray octant, in slot order
  // within one (eight compactions, then the queues end to end).
  double partitionByOctant(const uint8_t* alive) {
    double transferMs = 0;
    PoolControl* ctl = control_.data();
    octantFlags(backend_, state_[cur_].view(), alive, capacity_, octantFlags_.data());
    for (uint32_t k = 0; k < kOctants; ++k) {
      fields_.clear();
      fields_.push_back(
          {identity_.data(), octantQueues_.data() + size_t(k) * capacity_, sizeof(uint32_t)});
      transferMs += compact(octantFlags_.data() + size_t(k) * capacity_, fields_, capacity_,
                            &ctl->octantCount[k]);
    }
    sumQueues(backend_, ctl);
    concatenateQueues(backend_, octantQueues_.data(), capacity_, ctl, slots_.data());
    return transferMs;
  }

  void readBack(int ring) {
    if (backend_.isCuda()) {
      SRT_CUDA_CHECK(cudaMemcpyAsync(&snapshots_[ring], control_.data(), sizeof(PoolControl),
                                     cudaMemcpyDeviceToHost, backend_.stream));
      readBackDone_[ring].record(backend_.stream);
    } else {
      snapshots_[ring] = *control_.data();
    }
  }

  // The least the primitives had to move this pass: flags read, survivors read and written.
  uint64_t compactionBytes(const PoolControl& c, const PassRecord& rec) const {
    if (!info_.compacts) return 0;
    const uint32_t bound = rec.bound;
    const uint64_t shadows = rec.shadows ? uint64_t(bound) + 8ull * c.lastShadow : 0;
    if (refill_ == Refill::InPlaceIndexed) return shadows + capacity_ + 8ull * c.count;
    if (!rec.compacted) return shadows;
    const uint64_t bytes = whitted_ ? WhittedRays::kBytesPerElement : PathState::kBytesPerElement;
    return shadows + bound + 2ull * c.lastKept * bytes;
  }

  // A harvested pass into the statistics (per depth too for the path tracer's waves).
  void recordPass(RenderStats& stats, const PoolControl& c, const PassRecord& rec,
                  const PassRecord* previous, int& nextDepth) {
    if (c.lastLive > 0) survival_ = double(c.lastKept) / double(c.lastLive);
    addPassStats(stats, c, rec, previous, capacity_, compactionBytes(c, rec), waves_ && !whitted_,
                 nextDepth);
  }

  const uint32_t capacity_;
  const bool whitted_;  // Whitted rays (shadeWhitted, spill stacks) instead of paths
  const bool waves_;
  const bool persistent_;  // persistent-thread traversal for closest hits and shadow rays
  const Refill refill_;
  const uint32_t compactEvery_;  // Tail: passes per compaction of the path state; 0: auto
  const bool deferredShadows_;   // Whitted: shadow rays as a stream (whittedShadowsDeferred())
  const int lagForced_;          // SRT_POOL_LAG, read once an integrator: -1 auto, 0 never, 1 always
  int samplesDone_ = 0;          // whole samples the film holds after the last render()
  uint32_t passesSinceCompaction_ = 0;
  double survival_ = 0;     // paths kept / paths alive in the last pass harvested
  uint32_t autoCycle_ = 1;  // auto: passes per compaction in the current cycle
  bool holding_ = false;    // Tail: the stream has dead lanes (keep_[keepIn_]) from a hold pass
  Buffer<PoolControl> control_;
  PathSource source_;
  FixedFilm filmView_;
  PathStateStorage state_[2];  // Tail: compaction moves paths from one to the other
  int cur_ = 0;
  Buffer<uint8_t> keep_[2];  // InPlace: lanes alive at the start of a pass, and after it
  int keepIn_ = 0;
  Buffer<Hit> hits_;
  Buffer<uint32_t> slots_;                   // index payload: the stream's slots
  Buffer<uint32_t> identity_, shadowIndex_;  // shadow rays' positions (compacting primitives)
  Buffer<uint8_t> octantFlags_;              // --reorder octant: a flag array per octant
  Buffer<uint32_t> octantQueues_;            // and a queue of slots per octant
  ShadowRaysStorage shadowCandidates_;
  WhittedRaysStorage spill_;  // Whitted: a stack of capacity_ rays per depth 1..maxDepth
  Buffer<uint8_t> shadowKeep_;
  Buffer<unsigned long long> film_;
  mutable Buffer<Vec3f> mean_;              // image()'s scratch, kept across frames
  Buffer<unsigned long long> depthCounts_;  // rays in, alive, shadow rays per depth (striped)
  std::vector<compaction::Field> fields_;
  std::array<PassRecord, kRing> passes_;
  PinnedBuffer<PoolControl> snapshots_;        // the control block as each pass ended
  std::array<CudaEvent, kRing> readBackDone_;  // (CUDA) the snapshot has arrived

  // The next image's pixels, made during render().
  mutable std::future<std::vector<Vec3f>> imageStorage_;
};

}  // namespace

std::unique_ptr<Integrator> makePoolIntegrator(const Scene& scene, const SceneData& data,
                                               const Backend& backend, const RenderOptions& opt,
                                               std::unique_ptr<compaction::Compactor> compactor,
                                               const compaction::Info& info) {
  return std::make_unique<PoolIntegrator>(scene, data, backend, opt, std::move(compactor), info);
}

}  // namespace srt
