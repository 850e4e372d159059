// The wavefront path tracer's bounce loop. Per bounce: extend (closest hit), shade (emission,
// NEE candidates, next direction, roulette), compact the shadow candidates, trace them, add dead
// paths to the film, compact the live paths. The only host read-back per bounce is the two
// survivor counts: they size the next launches and end the loop early.
#include <algorithm>
#include <stdexcept>

#include "renderer/wavefront/integrator_common.h"

namespace srt {
namespace {

class PathIntegrator final : public WavefrontIntegrator {
 public:
  PathIntegrator(const Scene& scene, const SceneData& data, const Backend& backend,
                 const RenderOptions& opt, std::unique_ptr<compaction::Compactor> compactor,
                 const compaction::Info& info)
      : WavefrontIntegrator(scene, data, backend, opt, std::move(compactor), info) {
    const MemorySpace space = backend.memory();
    const size_t n = size_t(opt.width) * opt.height;
    const bool compacts = info_.compacts;
    indexPayload_ = opt.payload == "index";
    state_[0].allocate(space, n);
    if (compacts && !indexPayload_) state_[1].allocate(space, n);
    if (indexPayload_) {
      slots_[0] = Buffer<uint32_t>(space, n);
      if (compacts) slots_[1] = Buffer<uint32_t>(space, n);
    }
    hits_ = Buffer<Hit>(space, n);
    keep_[0] = Buffer<uint8_t>(space, n);
    if (!compacts) keep_[1] = Buffer<uint8_t>(space, n);
    shadowCandidates_.allocate(space, n);
    if (compacts && indexPayload_) {
      // Index payload: shadow rays stay where shading wrote them; only their positions move.
      identity_ = Buffer<uint32_t>(space, n);
      fillIdentity(backend, identity_.data(), uint32_t(n));
      shadowIndex_ = Buffer<uint32_t>(space, n);
    } else if (compacts) {
      shadowQueue_.allocate(space, n);
    }
    shadowKeep_ = Buffer<uint8_t>(space, n);
    film_ = Buffer<Vec3f>(space, n);
    if (compacts) compactor_->reserve(uint32_t(n));
  }

  Image render(RenderStats& stats, const ProgressFn& progress) override {
    const uint32_t n = uint32_t(size_t(opt_.width) * opt_.height);
    const bool compacts = info_.compacts;
    const SceneView& scene = data_.view();
    uint64_t raysSoFar = 0;
    std::vector<compaction::Field> fields;
    film_.fillBytes(0);

    for (int sample = 0; sample < opt_.spp; ++sample) {
      const SampleKey key{uint32_t(sample), opt_.seed};
      int cur = 0;
      generateCameraPaths(backend_, camera_, key, n, state_[0].view(),
                          indexPayload_ ? slots_[0].data() : nullptr);
      PathStream paths;
      paths.count = n;
      uint64_t liveIn = n;
      int keepOut = 0;

      for (int bounce = 0; bounce <= opt_.maxDepth; ++bounce) {
        const int stateIdx = indexPayload_ ? 0 : cur;
        paths.state = state_[stateIdx].view();
        paths.slots = indexPayload_ ? slots_[cur].data() : nullptr;
        uint8_t* keep = keep_[keepOut].data();
        clock_.reset();
        const auto m0 = clock_.mark();
        traceClosest(backend_, scene, RayStreamRef::of(paths), hits_.data());
        const auto m1 = clock_.mark();
        ShadeOutputs out{keep, shadowCandidates_.view(), shadowKeep_.data()};
        shadePaths(backend_, scene, paths, hits_.data(), key, uint32_t(bounce),
                   uint32_t(opt_.maxDepth), out);
        const auto m2 = clock_.mark();

        ShadowStream shadows;
        shadows.maxCount = paths.count;
        double transferMs = 0;
        if (compacts) {
          fields.clear();
          if (indexPayload_) {
            fields.push_back({identity_.data(), shadowIndex_.data(), sizeof(uint32_t)});
            shadows.rays = shadowCandidates_.view();
            shadows.indices = shadowIndex_.data();
          } else {
            ShadowRaysStorage::compactionFields(shadowCandidates_, shadowQueue_, fields);
            shadows.rays = shadowQueue_.view();
          }
          transferMs += compact(shadowKeep_.data(), fields, paths.count, counters_.device() + 1);
          shadows.deviceCount = counters_.device() + 1;
        } else {
          countFlags(backend_, shadowKeep_.data(), paths.count, counters_.device() + 1);
          shadows.rays = shadowCandidates_.view();
          shadows.lanes = shadowKeep_.data();
        }
        const auto m3 = clock_.mark();
        traceShadows(backend_, scene, shadows, paths.state);
        const auto m4 = clock_.mark();
        finishPaths(backend_, paths, keep, film_.data());
        const auto m5 = clock_.mark();

        if (compacts) {
          fields.clear();
          if (indexPayload_)
            fields.push_back({slots_[cur].data(), slots_[1 - cur].data(), sizeof(uint32_t)});
          else
            PathStateStorage::compactionFields(state_[cur], state_[1 - cur], fields);
          transferMs += compact(keep, fields, paths.count, counters_.device());
        } else {
          countFlags(backend_, keep, paths.count, counters_.device());
        }
        const auto m6 = clock_.mark();
        const uint32_t* counts = counters_.readBack(backend_);  // synchronises

        BounceStats& bs = stats.bounce(size_t(bounce));
        bs.raysIn += liveIn;
        bs.lanes += paths.count;
        bs.raysAlive += counts[0];
        bs.shadowRays += counts[1];
        bs.traceMs += clock_.elapsedMs(m0, m1);
        bs.shadeMs += clock_.elapsedMs(m1, m2) + clock_.elapsedMs(m4, m5);
        bs.compactionMs += clock_.elapsedMs(m2, m3) + clock_.elapsedMs(m5, m6);
        bs.transferMs += transferMs;
        bs.shadowMs += clock_.elapsedMs(m3, m4);
        raysSoFar += liveIn + counts[1];

        liveIn = counts[0];
        if (counts[0] == 0) break;
        if (compacts) {
          cur = 1 - cur;
          paths.count = counts[0];
        } else {
          paths.lanes = keep;  // dead lanes stay in the stream and return early
          keepOut = 1 - keepOut;
        }
      }
      if (progress) progress(sample + 1, opt_.spp, raysSoFar);
    }
    return resolveFilm(film_, opt_, backend_);
  }

 private:
  bool indexPayload_ = false;
  PathStateStorage state_[2];
  Buffer<uint32_t> slots_[2];
  Buffer<Hit> hits_;
  Buffer<uint8_t> keep_[2];
  ShadowRaysStorage shadowCandidates_, shadowQueue_;
  Buffer<uint32_t> identity_, shadowIndex_;  // index payload: 0..n-1, and the compacted positions
  Buffer<uint8_t> shadowKeep_;
  Buffer<Vec3f> film_;
};

}  // namespace

std::unique_ptr<Integrator> makePathIntegrator(const Scene& scene, const SceneData& data,
                                               const Backend& backend, const RenderOptions& opt,
                                               std::unique_ptr<compaction::Compactor> compactor,
                                               const compaction::Info& info) {
  return std::make_unique<PathIntegrator>(scene, data, backend, opt, std::move(compactor), info);
}

}  // namespace srt
