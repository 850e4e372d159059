#include "apps/split_render.h"

#include <exception>
#include <sstream>
#include <stdexcept>

#include "apps/mpi_render.h"
#include "primitives/common/cuda_check.h"

namespace srt {
namespace {

int cudaDeviceCount() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return 0;
  return count;
}

// The device syntax alone, for the flag's check before any work: "all" or N,N,...
bool devicesSyntaxOk(const std::string& text) {
  if (text == "all") return true;
  if (text.empty() || text.back() == ',') return false;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (item.empty() || item.size() > 4 ||
        item.find_first_not_of("0123456789") != std::string::npos)
      return false;
  return true;
}

}  // namespace

void addDevicesFlag(CLI::App& cmd, std::string& devices) {
  cmd.add_option("--devices", devices,
                 "Split the samples over these CUDA devices, each with its own pool, kd-tree and "
                 "stream: 'all' or ordinals such as 0,1 (a device may be listed twice); the image "
                 "is the one-GPU image bit for bit (CUDA backend)")
      ->type_name("all|N,N,...")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            return devicesSyntaxOk(text) ? "" : "'" + text + "' is neither all nor N,N,...";
          },
          ""));
}

std::vector<int> parseDevices(const std::string& text, int count) {
  if (count <= 0) throw std::invalid_argument("--devices: no CUDA device is visible");
  std::vector<int> out;
  if (text == "all") {
    for (int d = 0; d < count; ++d) out.push_back(d);
    return out;
  }
  if (!devicesSyntaxOk(text))
    throw std::invalid_argument("--devices: '" + text + "' is neither all nor N,N,...");
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const int d = std::stoi(item);
    if (d >= count)
      throw std::invalid_argument("--devices: no device " + item + " (this machine has " +
                                  std::to_string(count) + ": 0-" + std::to_string(count - 1) + ")");
    out.push_back(d);
  }
  return out;
}

void setUpDevices(const std::string& devices, const Backend& backend) {
  const mpi::World& world = mpi::world();
  if (devices.empty()) {
    if (world.size > 1 && backend.isCuda())
      SRT_CUDA_CHECK(cudaSetDevice(world.localRank % cudaDeviceCount()));
    return;
  }
  if (!backend.isCuda())
    throw std::invalid_argument(
        "--devices splits a render over CUDA devices; the CPU backend has none (its threads are "
        "--threads)");
  if (world.size > 1)
    throw std::invalid_argument(
        "--devices: under mpirun each rank renders on the GPU of its local rank; start one rank "
        "per GPU instead");
  parseDevices(devices, cudaDeviceCount());
}

SplitRenderer::SplitRenderer(Scene scene, const Backend& backend, const RenderOptions& options,
                             const AccelOptions& accel, float time, const std::string& devices,
                             std::optional<FlatGeometry> flat)
    : options_(options) {
  const mpi::World& world = mpi::world();
  if (!devices.empty()) {
    setUpDevices(devices, backend);
    split_ = true;
    multi_ = std::make_unique<MultiDeviceRenderer>(scene, backend, options, accel, time,
                                                   parseDevices(devices, cudaDeviceCount()));
    return;
  }
  if (world.size == 1) {
    single_ = std::make_unique<Renderer>(std::move(scene), backend, options, accel, time,
                                         std::move(flat));
    return;
  }
  // An MPI rank: its share of the samples, on the GPU of its local rank.
  split_ = true;
  checkRender(backend, options, accel);  // on every rank, even one with no samples to render
  const SampleRange mine = splitSamples(options.firstSample, options.spp, world.size)[world.rank];
  if (mine.count == 0) return;     // more ranks than samples: this one adds an empty film
  setUpDevices(devices, backend);  // (done already by the command; here for other callers)
  single_ = std::make_unique<Renderer>(std::move(scene), backend, partOptions(options, mine), accel,
                                       time);
}

SplitRenderer::~SplitRenderer() {
  if (std::uncaught_exceptions() == 0) mpi::finish();
}

RenderResult SplitRenderer::render(float time, const ProgressFn& progress,
                                   const StopCondition& stop) {
  if (!split_) return single_->render(time, progress, stop);
  if (multi_) return multi_->render(time, progress, stop);

  const mpi::World& world = mpi::world();
  ProgressFn share;  // rank 0's own share, scaled to the whole: an estimate of everyone's
  const int partSpp = single_ ? single_->options().spp : 0;
  if (progress && world.root() && partSpp > 0)
    share = [&](int done, int, uint64_t rays) {
      progress(int(int64_t(done) * options_.spp / partSpp), options_.spp,
               rays * uint64_t(world.size));
    };
  RenderResult result;
  std::vector<unsigned long long> film;
  if (single_) {
    result = single_->render(time, share, stop);
    film = single_->filmSums();
  } else {
    film.assign(3 * size_t(options_.width) * size_t(options_.height), 0ull);
  }
  mpi::reduceFilm(film);
  mpi::reduceStats(result.stats);
  if (!world.root()) return result;
  result.stats.spp = options_.spp;
  result.image = resolveFilmSums(film, options_.width, options_.height, result.stats.samplesDone);
  return result;
}

}  // namespace srt
