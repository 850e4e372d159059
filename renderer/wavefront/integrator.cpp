#include "renderer/wavefront/integrator.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <unistd.h>

#include "renderer/wavefront/integrator_common.h"

namespace srt {

Image resolveFilm(const Buffer<unsigned long long>& film, const RenderOptions& opt, int samples,
                  const Backend& backend, Buffer<Vec3f>& mean, std::vector<Vec3f>* storage) {
  // Divided where the film lives: half the bytes cross to the host, and no host loop.
  const uint32_t pixels = uint32_t(film.size() / 3);
  if (mean.size() != pixels || mean.space() != backend.memory())
    mean = Buffer<Vec3f>(backend.memory(), pixels);
  resolveFixedFilm(backend, film.data(), pixels, 1.0 / (kFilmScale * double(std::max(samples, 1))),
                   mean.data());
  backend.synchronize();
  Image img;
  img.width = opt.width;
  img.height = opt.height;
  if (storage && storage->size() == pixels) {
    img.pixels = std::move(*storage);
    mean.download(img.pixels.data(), pixels);
  } else {
    img.pixels = mean.download(pixels);
  }
  return img;
}

namespace {
// Bytes a pool slot costs: two copies of the path (compaction moves between them), the shadow
// candidates, the hit, flags and index streams.
constexpr size_t kBytesPerPoolPath = 2 * PathState::kBytesPerElement +
                                     ShadowRays::kBytesPerElement + sizeof(Hit) + 4 +
                                     3 * sizeof(uint32_t);
// A Whitted slot: two copies of the ray (as a path), its spill stacks (one ray per depth), the
// hit, flags and the index stream.
// Deferred shadows add a shadow candidate, its flag and its position.
size_t bytesPerWhittedSlot(const RenderOptions& opt) {
  const size_t shadows =
      whittedShadowsDeferred(/*onCuda=*/true) ? ShadowRays::kBytesPerElement + 1 + sizeof(uint32_t) : 0;
  return 2 * PathState::kBytesPerElement + size_t(opt.maxDepth) * WhittedRays::kBytesPerElement +
         sizeof(Hit) + 2 + 2 * sizeof(uint32_t) + shadows;
}
size_t bytesPerSlot(const RenderOptions& opt) {
  return opt.integrator == IntegratorKind::Whitted ? bytesPerWhittedSlot(opt) : kBytesPerPoolPath;
}
// Whitted's default pool on CUDA: a 1080p frame's camera rays in one pass; more only adds spill
// stacks (maxDepth rays a slot) that a frame of Whitted rays seldom touches.
constexpr uint64_t kWhittedCudaPool = 1u << 21;
}  // namespace

bool whittedShadowsDeferred(bool onCuda) {
  const char* env = std::getenv("SRT_WHITTED_SHADOWS");
  const std::string mode = env ? env : "auto";
  if (mode != "auto" && mode != "inline" && mode != "stream")
    throw std::invalid_argument("SRT_WHITTED_SHADOWS must be auto, inline or stream (got '" +
                                mode + "')");
  return mode == "stream" || (mode == "auto" && onCuda);
}

uint32_t defaultPoolSize(const Backend& backend, const RenderOptions& opt) {
  if (!backend.isCuda()) return 1u << 18;  // enough to keep the CPU's threads busy per stage
  int device = 0, sms = 0, threadsPerSm = 0;
  SRT_CUDA_CHECK(cudaGetDevice(&device));
  SRT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  SRT_CUDA_CHECK(
      cudaDeviceGetAttribute(&threadsPerSm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  // Forty-eight times the threads the GPU holds at once (H100: 132 SMs x 2048 x 48 = 13.0M paths,
  // about 2.7 GB): each pass ends in a tail of slow warps, and a larger pass pays it less often.
  // On the H100 that rendered the bench/tracer scenes up to 1.3% faster than 8.65M (x32), which
  // was 1-4% faster than 4.3M; past x48 the compactions of the first passes, which move nearly
  // every path, cost more than the tails save (bench/tracer/RESULTS.md).
  uint64_t n = uint64_t(sms) * uint64_t(threadsPerSm) * 48;
  if (opt.integrator == IntegratorKind::Whitted) n = std::min(n, kWhittedCudaPool);
  size_t freeBytes = 0, total = 0;
  SRT_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &total));
  n = std::min<uint64_t>(n, freeBytes / 4 / bytesPerSlot(opt));
  return uint32_t(std::max<uint64_t>(n, 1024));
}

size_t estimateRenderBytes(const RenderOptions& opt, uint32_t poolSize) {
  const size_t n = size_t(opt.width) * size_t(opt.height);
  const size_t film = n * 3 * sizeof(unsigned long long);
  const uint64_t work = uint64_t(n) * uint64_t(opt.spp);
  const size_t reorder = opt.reorder == Reorder::Octant ? kOctants * (1 + sizeof(uint32_t)) : 0;
  return size_t(std::min<uint64_t>(poolSize, work)) * (bytesPerSlot(opt) + reorder) + film;
}

compaction::Info validateRenderOptions(const Backend& backend, const RenderOptions& opt) {
  if (opt.width <= 0 || opt.height <= 0)
    throw std::invalid_argument("--width and --height must be positive");
  if (size_t(opt.width) * size_t(opt.height) > (size_t(1) << 30))
    throw std::invalid_argument("--width x --height: " + std::to_string(opt.width) + "x" +
                                std::to_string(opt.height) + " is more than 2^30 pixels");
  if (opt.spp <= 0) throw std::invalid_argument("--spp must be at least 1");
  if (opt.maxDepth < 0 || opt.maxDepth > 64)
    throw std::invalid_argument("--max-depth must be between 0 and 64");
  if (opt.traversal == Traversal::Persistent && !backend.isCuda())
    throw std::invalid_argument("--traversal persistent needs the CUDA backend (--backend " +
                                std::string(backend.name()) + ")");
  if (opt.reorder == Reorder::Octant &&
      (opt.payload != Payload::Index || opt.integrator != IntegratorKind::Path))
    throw std::invalid_argument(
        "--reorder octant partitions the path tracer's index stream: it needs --payload index");
  if (opt.compactEvery > 64)
    throw std::invalid_argument("--compact-every must be auto or in [1, 64] (got " +
                                std::to_string(opt.compactEvery) + ")");
  if (opt.compactEvery > 1 &&
      (opt.payload != Payload::State || opt.integrator != IntegratorKind::Path))
    throw std::invalid_argument(
        "--compact-every spaces out the path tracer's state compaction: it needs --integrator "
        "path and --payload state");
  if (opt.poolSize > (1u << 30))
    throw std::invalid_argument("--pool " + std::to_string(opt.poolSize) +
                                " is more than 2^30 paths");
  if (uint64_t(opt.firstSample) + uint64_t(opt.spp) > 0xffffffffull)
    throw std::invalid_argument("first sample + --spp passes 2^32");
  if (opt.filmSamples != 0 && opt.filmSamples < uint32_t(opt.spp))
    throw std::invalid_argument("the film's clamp is sized for fewer samples than --spp");

  compaction::Needs needs;
  needs.memory = backend.memory();
  const compaction::Info info = compaction::Registry::global().check(opt.compaction, needs);

  // Check the streams fit before allocating any of them.
  const uint32_t pool = opt.poolSize ? opt.poolSize : defaultPoolSize(backend, opt);
  const size_t need = estimateRenderBytes(opt, pool);
  if (backend.isCuda()) {
    size_t freeBytes = 0, total = 0;
    SRT_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &total));
    if (need > freeBytes)
      throw std::invalid_argument(
          "--width x --height: " + std::to_string(opt.width) + "x" + std::to_string(opt.height) +
          " needs " + std::to_string(need >> 20) + " MiB of GPU memory for its film and ray " +
          "streams; " + std::to_string(freeBytes >> 20) + " MiB are free");
  } else {
    const size_t physical = size_t(sysconf(_SC_PHYS_PAGES)) * size_t(sysconf(_SC_PAGE_SIZE));
    if (need > physical / 2)
      throw std::invalid_argument(
          "--width x --height: " + std::to_string(opt.width) + "x" + std::to_string(opt.height) +
          " needs " + std::to_string(need >> 20) + " MiB for its ray streams, more than half of " +
          "this machine's " + std::to_string(physical >> 20) + " MiB");
  }
  return info;
}

std::unique_ptr<Integrator> makeIntegrator(const Scene& scene, const SceneData& data,
                                           const Backend& backend, const RenderOptions& opt,
                                           const compaction::Info& checked) {
  if (!scene.camera) throw std::invalid_argument("the scene has no camera");
  auto compactor = compaction::Registry::global().create(opt.compaction);
  return makePoolIntegrator(scene, data, backend, opt, std::move(compactor), checked);
}

}  // namespace srt
