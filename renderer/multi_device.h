// A render split by sample ranges: over several GPUs of one process (MultiDeviceRenderer), and
// the pieces a split across processes needs (MPI ranks: apps/mpi_render.h). Every pixel sample's
// random numbers are keyed by (pixel, sample index, depth), and the film sums 64-bit fixed point,
// so the films of disjoint sample ranges add up to the film of the whole range exactly, in any
// order: a split render's image is bit-identical to one device's.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "renderer/render.h"

namespace srt {

// Samples [first, first + count).
struct SampleRange {
  uint32_t first = 0;
  int count = 0;
  bool operator==(const SampleRange& o) const { return first == o.first && count == o.count; }
};

// `spp` samples from `first` in `parts` contiguous ranges, in order, the first `spp % parts` one
// sample longer; a part gets an empty range when there are fewer samples than parts.
std::vector<SampleRange> splitSamples(uint32_t first, int spp, int parts);

// `options` restricted to one part's samples, its film clamp sized for the whole render.
RenderOptions partOptions(const RenderOptions& options, const SampleRange& part);

// Adds `part` (a film of the same size) into `sum`, element by element.
void addFilm(std::vector<unsigned long long>& sum, const std::vector<unsigned long long>& part);

// The summed film as the mean radiance over `samples` samples per pixel: the same arithmetic as
// an integrator's resolve, so the same bits.
Image resolveFilmSums(const std::vector<unsigned long long>& film, int width, int height,
                      int samples);

// Adds a part's statistics into the whole's: samples done, rays and stage times per bounce, pass
// occupancy and times by pass index (parts run their passes side by side), paths in flight;
// `stopped` if either stopped. The description fields and the timings of the whole are the
// caller's.
void addRenderStats(RenderStats& whole, const RenderStats& part);

// One Renderer per entry of `devices` (CUDA ordinals; a device may be listed twice, each entry
// then has its own pool, kd-tree and stream on it), each driven by its own host thread that stays
// on its device. render() splits the sample range of the options over the entries, runs them side
// by side and sums their films. On the CPU backend the entries' numbers are not used: each is a
// part on its own host thread (how the tests check the split without a GPU).
class MultiDeviceRenderer {
 public:
  MultiDeviceRenderer(const Scene& scene, const Backend& backend, const RenderOptions& options,
                      const AccelOptions& accel, float time, const std::vector<int>& devices);
  ~MultiDeviceRenderer();
  MultiDeviceRenderer(const MultiDeviceRenderer&) = delete;
  MultiDeviceRenderer& operator=(const MultiDeviceRenderer&) = delete;

  // As Renderer::render. Progress counts the samples all parts have finished; `stop` reaches
  // every part (each stops at a whole sample of its own range). The stats are part 0's
  // description with the parts' counts and times added (addRenderStats) and the device line
  // naming every entry; renderSeconds is the wall time until the last part finished (less the
  // kd-tree rebuild of a new time, outside it as in Renderer).
  RenderResult render(float time, const ProgressFn& progress = {}, const StopCondition& stop = {});
  // The summed film of the last render() (fixed point, as Integrator::filmSums).
  const std::vector<unsigned long long>& filmSums() const { return film_; }
  int parts() const { return int(parts_.size()); }

 private:
  struct Part;
  void release();
  RenderOptions options_;
  Backend backend_;
  float time_;  // the scene time the parts' kd-trees were built for
  std::vector<std::unique_ptr<Part>> parts_;
  std::vector<unsigned long long> film_;
};

}  // namespace srt
