// `streamrt render` over several GPUs (--devices) and several processes (mpirun): the samples of
// each frame are split over the MPI ranks, and a rank's share over its devices; the fixed-point
// films are summed, so rank 0 writes the image one GPU would have made, bit for bit.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "renderer/multi_device.h"

namespace srt {

// --devices all|N,N,...: the CUDA devices a render is split over (a device may be listed twice).
void addDevicesFlag(CLI::App& cmd, std::string& devices);

// The --devices text as device ordinals, checked against the `count` devices present ("all":
// every one). Throws std::invalid_argument naming the flag.
std::vector<int> parseDevices(const std::string& text, int count);

// Called once before any other CUDA call of a render (checkRender sizes the pool from the current
// device's memory). Checks --devices: refused on the CPU backend (its threads are --threads) and
// under mpirun, and every ordinal must name a device present; throws std::invalid_argument. Under
// mpirun on CUDA, makes the GPU of this rank's local rank current (modulo the GPUs visible).
void setUpDevices(const std::string& devices, const Backend& backend);

// Renders like Renderer, split as the run asks: over the listed devices (one Renderer per entry,
// MultiDeviceRenderer), over the MPI ranks (each takes the GPU of its local rank and a share of
// the samples; rank 0 receives the sums), or not at all (one Renderer, as before).
class SplitRenderer {
 public:
  // `devices`: the --devices text, empty when not given (checked by setUpDevices). `flat`:
  // flatten(scene, time) made beforehand, used by a render on one device (Renderer).
  SplitRenderer(Scene scene, const Backend& backend, const RenderOptions& options,
                const AccelOptions& accel, float time, const std::string& devices,
                std::optional<FlatGeometry> flat = std::nullopt);
  // Ends MPI after a run that went well (mpi::finish).
  ~SplitRenderer();
  SplitRenderer(const SplitRenderer&) = delete;
  SplitRenderer& operator=(const SplitRenderer&) = delete;

  // Every rank calls it for every frame (collective under MPI). On rank 0 (and without MPI): the
  // whole image and statistics. On the other ranks: their share, not to be written. Progress
  // is reported on rank 0 only.
  RenderResult render(float time, const ProgressFn& progress = {}, const StopCondition& stop = {});
  // The time of the frame after the next (Renderer::setNextTime); ignored across devices.
  void setNextTime(float time) {
    if (single_) single_->setNextTime(time);
  }

 private:
  RenderOptions options_;  // the whole render's
  bool split_ = false;     // across ranks or devices: films are summed
  std::unique_ptr<Renderer> single_;
  std::unique_ptr<MultiDeviceRenderer> multi_;
};

}  // namespace srt
