// Whitted's tracer in the same stream machinery: every ray writes up to two children into
// candidate slots 2i and 2i+1, and the next bounce's stream is formed by compacting the
// candidates, so Whitted exercises the compaction primitive as much as the path tracer does.
#include <algorithm>
#include <cstring>

#include "renderer/wavefront/integrator_common.h"
#include "renderer/wavefront/pass_timer.h"

namespace srt {
namespace {

class WhittedIntegrator final : public WavefrontIntegrator {
 public:
  WhittedIntegrator(const Scene& scene, const SceneData& data, const Backend& backend,
                    const RenderOptions& opt, std::unique_ptr<compaction::Compactor> compactor,
                    const compaction::Info& info)
      : WavefrontIntegrator(scene, data, backend, opt, std::move(compactor), info),
        timer_(backend),
        counters_(backend) {
    const size_t n = size_t(opt.width) * opt.height;
    film_ = Buffer<unsigned long long>(backend.memory(), 3 * n);
    grow(n);
  }

  void render(RenderStats& stats, const ProgressFn& progress, const StopCondition& stop) override {
    const uint32_t n = uint32_t(size_t(opt_.width) * opt_.height);
    const SceneView& scene = data_.view();
    uint64_t raysSoFar = 0;
    std::vector<compaction::Field> fields;
    film_.fillBytes(0);
    samplesDone_ = 0;

    for (int sample = 0; sample < opt_.spp; ++sample) {
      const SampleKey key{opt_.firstSample + uint32_t(sample), opt_.seed};
      generateCameraRays(backend_, camera_, key, n, stream_.view());
      WhittedStream rays{stream_.view(), nullptr, n};
      uint64_t liveIn = n;
      for (int bounce = 0; bounce <= opt_.maxDepth; ++bounce) {
        grow(size_t(rays.count));  // may move the stream and its lanes
        rays.rays = stream_.view();
        if (rays.lanes) rays.lanes = childKeep_[1].data();
        if (backend_.isCuda())
          SRT_CUDA_CHECK(cudaMemsetAsync(counters_.device() + 1, 0, 4, backend_.stream));
        else
          counters_.device()[1] = 0;
        timer_.start();
        RayStreamRef stream = RayStreamRef::of(rays.rays.origin, rays.rays.direction, rays.count);
        stream.lanes = rays.lanes;
        timer_.run(stage::kTrace, [&] { traceClosest(backend_, scene, stream, hits_.data()); });
        WhittedOutputs out{candidates_.view(), childKeep_[0].data(),
                           FixedFilm{film_.data(), float(kFilmMaxSum / opt_.filmClampSamples())},
                           counters_.device() + 1};
        // Shadow rays are traced inside shading.
        timer_.run(stage::kShade, [&] {
          shadeWhitted(backend_, scene, rays, hits_.data(), key, uint32_t(bounce),
                       uint32_t(opt_.maxDepth), out);
        });
        const uint32_t candidates = 2 * rays.count;
        double transferMs = 0;
        if (info_.compacts) {
          timer_.run(stage::kCompactChildren, [&] {
            fields.clear();
            WhittedRaysStorage::compactionFields(candidates_, stream_, fields);
            transferMs = compact(childKeep_[0].data(), fields, candidates, counters_.device());
          });
        } else {
          timer_.run(stage::kCountChildren, [&] {
            countFlags(backend_, childKeep_[0].data(), candidates, counters_.device());
          });
        }
        const uint32_t* counts = counters_.readBack(backend_);

        BounceStats& bs = stats.bounce(size_t(bounce));
        bs.raysIn += liveIn;
        bs.lanes += rays.count;
        bs.raysAlive += counts[0];
        bs.shadowRays += counts[1];
        addStageTimes(timer_, bs);
        bs.transferMs += transferMs;
        raysSoFar += liveIn + counts[1];
        liveIn = counts[0];
        if (counts[0] == 0) break;
        if (info_.compacts) {
          rays.count = counts[0];
          rays.lanes = nullptr;
        } else {
          // No compaction: the candidate slots become the next stream, dead lanes included.
          std::swap(stream_, candidates_);
          std::swap(childKeep_[0], childKeep_[1]);
          rays.count = candidates;
          rays.lanes = childKeep_[1].data();
        }
      }
      samplesDone_ = sample + 1;
      if (progress) progress(sample + 1, opt_.spp, raysSoFar);
      if (samplesDone_ < opt_.spp && stop.requested()) break;
    }
    backend_.synchronize();  // the film is complete
    stats.compactionChoice = compactor_->choiceSummary();
    stats.samplesDone = samplesDone_;
    stats.stopped = samplesDone_ < opt_.spp;
  }

  Image image() const override { return resolveFilm(film_, opt_, samplesDone_, backend_); }
  std::vector<unsigned long long> filmSums() const override { return film_.download(); }
  const unsigned long long* filmData() const override { return film_.data(); }

 private:
  // Streams that hold `count` rays and their 2*count children. Reallocates only when a bounce
  // needs more room than any before it (glass can double the stream at each bounce).
  void grow(size_t count) {
    const size_t need = 2 * std::max<size_t>(count, 1);
    if (candidates_.capacity >= need && stream_.capacity >= need) return;
    const MemorySpace space = backend_.memory();
    const size_t cap = std::max(need, 2 * candidates_.capacity);
    WhittedRaysStorage stream;
    stream.allocate(space, cap);
    if (stream_.capacity > 0) {
      // Keep the rays already in the stream (this runs before the bounce reads them).
      std::vector<compaction::Field> fields;
      WhittedRaysStorage::compactionFields(stream_, stream, fields);
      for (const auto& f : fields) {
        const size_t bytes = size_t(f.bytes) * stream_.capacity;
        if (backend_.isCuda())
          SRT_CUDA_CHECK(
              cudaMemcpyAsync(f.dst, f.src, bytes, cudaMemcpyDeviceToDevice, backend_.stream));
        else
          std::memcpy(f.dst, f.src, bytes);
      }
      const size_t keepBytes = childKeep_[1].bytes();
      Buffer<uint8_t> lanes(space, cap);
      if (keepBytes) {
        if (backend_.isCuda())
          SRT_CUDA_CHECK(cudaMemcpyAsync(lanes.data(), childKeep_[1].data(), keepBytes,
                                         cudaMemcpyDeviceToDevice, backend_.stream));
        else
          std::memcpy(lanes.data(), childKeep_[1].data(), keepBytes);
      }
      childKeep_[1] = std::move(lanes);
    } else {
      childKeep_[1] = Buffer<uint8_t>(space, cap);
    }
    stream_ = std::move(stream);
    candidates_.allocate(space, cap);
    childKeep_[0] = Buffer<uint8_t>(space, cap);
    hits_ = Buffer<Hit>(space, cap);
    compactor_->reserve(uint32_t(std::min<size_t>(cap, 0xffffffffu)));
  }

  WhittedRaysStorage stream_, candidates_;
  Buffer<uint8_t> childKeep_[2];
  Buffer<Hit> hits_;
  Buffer<unsigned long long> film_;
  int samplesDone_ = 0;  // samples the film holds after the last render()
  PassTimer timer_;      // one bounce's named stages
  Counters counters_;    // survivors and shadow rays, read back after every bounce
};

}  // namespace

std::unique_ptr<Integrator> makeWhittedIntegrator(const Scene& scene, const SceneData& data,
                                                  const Backend& backend, const RenderOptions& opt,
                                                  std::unique_ptr<compaction::Compactor> compactor,
                                                  const compaction::Info& info) {
  return std::make_unique<WhittedIntegrator>(scene, data, backend, opt, std::move(compactor), info);
}

}  // namespace srt
