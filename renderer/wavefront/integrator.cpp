#include "renderer/wavefront/integrator.h"

#include <stdexcept>
#include <string>

#include <unistd.h>

#include "renderer/wavefront/integrator_common.h"

namespace srt {

Counters::Counters(const Backend& backend) : device_(backend.memory(), kCount) {
  device_.fillBytes(0);
  if (backend.isCuda()) {
    SRT_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&host_), kCount * sizeof(uint32_t)));
    pinned_ = true;
  }
}

Counters::~Counters() {
  if (pinned_) cudaFreeHost(host_);
}

const uint32_t* Counters::readBack(const Backend& backend) {
  if (!backend.isCuda()) return device_.data();
  SRT_CUDA_CHECK(cudaMemcpyAsync(host_, device_.data(), kCount * sizeof(uint32_t),
                                 cudaMemcpyDeviceToHost, backend.stream));
  backend.synchronize();
  return host_;
}

Image resolveFilm(const Buffer<Vec3f>& film, const RenderOptions& opt, const Backend& backend) {
  backend.synchronize();
  Image img;
  img.width = opt.width;
  img.height = opt.height;
  img.pixels = film.download();
  const float inv = 1.f / float(opt.spp);
  for (Vec3f& p : img.pixels) p = p * inv;
  return img;
}

std::string defaultCompaction(const Backend& backend) {
  return backend.isCuda() ? "cub" : "cpu";
}

size_t estimateRenderBytes(const RenderOptions& opt) {
  const size_t n = size_t(opt.width) * size_t(opt.height);
  // Two copies of each stream (compaction moves from one to the other), hits, flags, film.
  const size_t perPixel = 2 * PathState::kBytesPerElement + 2 * ShadowRays::kBytesPerElement +
                          sizeof(Hit) + 3 + sizeof(Vec3f) + 2 * sizeof(uint32_t);
  const size_t perWhitted = 2 * 2 * WhittedRays::kBytesPerElement + sizeof(Hit) + 2;
  return n * (opt.integrator == "whitted" ? perWhitted + sizeof(Vec3f) : perPixel);
}

void validateRenderOptions(const Backend& backend, const RenderOptions& opt) {
  if (opt.width <= 0 || opt.height <= 0)
    throw std::invalid_argument("--width and --height must be positive");
  if (size_t(opt.width) * size_t(opt.height) > (size_t(1) << 30))
    throw std::invalid_argument("--width x --height: " + std::to_string(opt.width) + "x" +
                                std::to_string(opt.height) + " is more than 2^30 pixels");
  if (opt.spp <= 0) throw std::invalid_argument("--spp must be at least 1");
  if (opt.maxDepth < 0 || opt.maxDepth > 64)
    throw std::invalid_argument("--max-depth must be between 0 and 64");
  if (opt.payload != "state" && opt.payload != "index")
    throw std::invalid_argument("--payload must be state or index (got '" + opt.payload + "')");
  if (opt.integrator != "path" && opt.integrator != "whitted")
    throw std::invalid_argument("--integrator must be path or whitted (got '" + opt.integrator +
                                "')");

  const std::string spec = opt.compaction == "auto" ? defaultCompaction(backend) : opt.compaction;
  auto& registry = compaction::Registry::global();
  const compaction::Info* info = registry.find(compaction::Registry::nameOf(spec));
  if (!info) registry.create(spec);  // throws, listing the registered names
  if (!info->accepts_(backend.memory())) {
    std::string fits;
    for (const auto& e : registry.entries())
      if (e.info.accepts_(backend.memory())) fits += (fits.empty() ? "" : ", ") + e.info.name;
    throw std::invalid_argument(
        "--compaction " + info->name + " runs on " + compaction::toString(info->device) +
        " and cannot take streams in " + toString(backend.memory()) + " memory (--backend " +
        backend.name() + "); primitives that can: " + fits);
  }

  // Check the streams fit before allocating any of them.
  const size_t need = estimateRenderBytes(opt);
  if (backend.isCuda()) {
    size_t freeBytes = 0, total = 0;
    SRT_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &total));
    if (need > freeBytes)
      throw std::invalid_argument(
          "--width x --height: " + std::to_string(opt.width) + "x" + std::to_string(opt.height) +
          " needs " + std::to_string(need >> 20) + " MiB of GPU memory for its ray streams; " +
          std::to_string(freeBytes >> 20) + " MiB are free");
  } else {
    const size_t physical = size_t(sysconf(_SC_PHYS_PAGES)) * size_t(sysconf(_SC_PAGE_SIZE));
    if (need > physical / 2)
      throw std::invalid_argument(
          "--width x --height: " + std::to_string(opt.width) + "x" + std::to_string(opt.height) +
          " needs " + std::to_string(need >> 20) + " MiB for its ray streams, more than half of " +
          "this machine's " + std::to_string(physical >> 20) + " MiB");
  }
  registry.create(spec);  // options are checked here, before any long work
}

std::unique_ptr<Integrator> makeIntegrator(const Scene& scene, const SceneData& data,
                                           const Backend& backend, const RenderOptions& opt) {
  validateRenderOptions(backend, opt);
  if (!scene.camera) throw std::invalid_argument("the scene has no camera");
  const std::string spec = opt.compaction == "auto" ? defaultCompaction(backend) : opt.compaction;
  auto& registry = compaction::Registry::global();
  const compaction::Info* info = registry.find(compaction::Registry::nameOf(spec));
  auto compactor = registry.create(spec);
  if (opt.integrator == "path")
    return makePathIntegrator(scene, data, backend, opt, std::move(compactor), *info);
  if (opt.integrator == "whitted")
    return makeWhittedIntegrator(scene, data, backend, opt, std::move(compactor), *info);
  throw std::invalid_argument("--integrator must be path or whitted (got '" + opt.integrator +
                              "')");
}

}  // namespace srt
