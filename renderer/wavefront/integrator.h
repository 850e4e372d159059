// The wavefront integrators: streams of rays through camera → extend → shade → shadow → film,
// with the dead rays removed between bounces by the compaction primitive the user picked.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "base/image_io.h"
#include "primitives/compaction/compaction.h"
#include "renderer/backend/backend.h"
#include "renderer/wavefront/render_options.h"
#include "renderer/wavefront/render_stats.h"
#include "renderer/wavefront/scene_data.h"

namespace srt {

// Called after each sample pass with the passes done so far and the rays traced so far.
using ProgressFn = std::function<void(int done, int total, uint64_t rays)>;

// Stops a render early. The integrator asks after every pass over its streams; once the answer is
// yes no new sample starts and the samples already begun are finished, so the film holds whole
// samples (RenderStats::samplesDone of them) and the image is the one a render of that many
// samples gives, bit for bit. Either member may be set; either stops.
struct StopCondition {
  // Set from another thread or a signal handler (lock-free, so async-signal-safe to store to).
  const std::atomic<bool>* flag = nullptr;
  // Polled on the rendering thread after each pass (a time limit, a UI button).
  std::function<bool()> poll;

  bool requested() const {
    return (flag && flag->load(std::memory_order_relaxed)) || (poll && poll());
  }
};
static_assert(std::atomic<bool>::is_always_lock_free, "a signal handler stores to the flag");

class Integrator {
 public:
  virtual ~Integrator() = default;
  // Renders all samples into the film (or, once `stop` asks, the samples begun so far) and fills
  // the per-bounce statistics; returns once the film holds them (the time a render is measured
  // by). Sets stats.samplesDone and stats.stopped.
  virtual void render(RenderStats& stats, const ProgressFn& progress,
                      const StopCondition& stop) = 0;
  // The film of the last render() as the mean radiance per pixel over the samples it holds, on
  // the host.
  virtual Image image() const = 0;
  // The film of the last render() as its fixed-point sums (3 per pixel, kFilmScale per unit), on
  // the host: films of disjoint sample ranges add up exactly to the film of their union.
  virtual std::vector<unsigned long long> filmSums() const = 0;
  // The same sums where the film lives (device memory on CUDA), valid until the next render():
  // the viewer adds them into its running sum there, with no copy to the host.
  virtual const unsigned long long* filmData() const = 0;
  // The next render() takes samples [firstSample, firstSample + spp): the streams stay as they
  // are (a viewer's progressive frames).
  virtual void setSampleRange(uint32_t firstSample, int spp) = 0;
  // Saves what the compaction primitive learned (Compactor::persist), after a timed render.
  virtual void persist() {}
};

// Checks the options against the backend (a primitive or option that cannot run there, sizes
// that do not fit in memory) without making or allocating anything; throws
// std::invalid_argument naming the flag at fault. Returns the primitive's Info as its options
// make it (Registry::check).
compaction::Info validateRenderOptions(const Backend& backend, const RenderOptions& options);

// Builds the integrator of options validateRenderOptions() accepted (`checked` is what it
// returned) with its compaction primitive.
std::unique_ptr<Integrator> makeIntegrator(const Scene& scene, const SceneData& data,
                                           const Backend& backend, const RenderOptions& options,
                                           const compaction::Info& checked);

// Paths in flight when RenderOptions::poolSize is 0: enough to fill the device several times
// over, at most a quarter of its free memory.
uint32_t defaultPoolSize(const Backend& backend, const RenderOptions& options);

// Whitted's emitter shadow rays: traced inline in shading ("inline"), or ("stream") written as a
// stream that the shadow stage traces (persistent threads on CUDA) after shading, as the path
// tracer's are. The same image bit for bit either way. SRT_WHITTED_SHADOWS=auto|inline|stream;
// auto, the default, streams on CUDA (1080p Conference Room frames 18% faster on an H200: the
// inline traversal diverged inside the shading kernel) and stays inline on the CPU (where the
// stream is only an extra loop). Memory estimates pass onCuda=true: the larger of the two.
bool whittedShadowsDeferred(bool onCuda);

// Bytes of memory a render of these options needs on its backend (the path pool or the Whitted
// streams, and the film), to check it against the memory there before allocating anything.
size_t estimateRenderBytes(const RenderOptions& options, uint32_t poolSize);

}  // namespace srt
