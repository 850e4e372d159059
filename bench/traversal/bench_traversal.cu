// streamrt-bench-traversal: closest-hit tracing, traceClosest (one thread per ray) against the
// persistent-thread while-while traversal (Aila & Laine 2009) in each of its variants, on primary
// rays, on diffuse bounce-1 rays and on those as shadow rays (any hit), at full stream size and at
// sparse subsets of it: "compacted" (what compaction leaves with 10% survivors: the same rays,
// fewer of them, order kept) and "lanes" (what `none` leaves: every ray in place, 90% of them dead
// lanes). Mrays/s counts live rays.
//
//   streamrt-bench-traversal SCENE [--width 1920 --height 1080] [--fractions 1,0.1]
//                        [--repeats 20] [--warmup 3] [--json out.json]
//
// Timing: CUDA events around each call on one stream, warm-up first, the median of the repeats.
// Every persistent variant's hits (radiance, for shadow rays) are compared with traceClosest's
// (traceShadows') bit for bit ("check"); a mismatch makes the exit status 1.
// "copy" is a device-to-device copy of the stream's ray bytes (origins and directions), for scale.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "primitives/common/cuda_check.h"
#include "primitives/common/memory.h"
#include "renderer/shading/rng.h"
#include "renderer/shading/sampling.h"
#include "renderer/wavefront/camera.h"
#include "renderer/wavefront/intersect_persistent.h"
#include "renderer/wavefront/scene_data.h"
#include "scenes/loader.h"

namespace srt::bench {
namespace {

struct Rays {
  std::vector<Vec3f> origin, direction;
  size_t size() const { return origin.size(); }
};

__global__ void primaryKernel(CameraView camera, uint32_t numPixels, Vec3f* origin,
                              Vec3f* direction) {
  const uint32_t pixel = blockIdx.x * blockDim.x + threadIdx.x;
  if (pixel >= numPixels) return;
  Sampler sampler = Sampler::at(pixel, 0, 0, 1);
  const Ray ray = camera.generate(pixel, sampler.next2D(), sampler.next2D());
  origin[pixel] = ray.o;
  direction[pixel] = ray.d;
}

// Bounce 1 of a diffuse path: a cosine-distributed direction about the facing normal of the
// primary hit, from the offset hit point. keep[i] = 0 where the primary ray missed.
__global__ void bounceKernel(SceneView scene, uint32_t n, const Vec3f* origin,
                             const Vec3f* direction, const Hit* hits, Vec3f* outOrigin,
                             Vec3f* outDirection, uint8_t* keep) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  keep[i] = hits[i].triangle != kNoHit;
  if (!keep[i]) return;
  Ray ray;
  ray.o = origin[i];
  ray.d = direction[i];
  ray.tMax = kInf;
  const SurfaceHit sh = surfaceAt(scene, ray, hits[i]);
  Sampler sampler = Sampler::at(i, 0, 1, 1);
  const Vec3f d = Frame::fromNormal(sh.ng).toWorld(sampleCosineHemisphere(sampler.next2D()));
  outOrigin[i] = offsetOrigin(scene, sh, d);
  outDirection[i] = d;
}

// Whether ray i belongs to the subset of `fraction` (a hash, so survivors spread over the image).
bool inSubset(size_t i, double fraction) {
  if (fraction >= 1.0) return true;
  uint32_t h = uint32_t(i) * 0x9e3779b9u;
  h ^= h >> 16, h *= 0x85ebca6bu, h ^= h >> 13, h *= 0xc2b2ae35u, h ^= h >> 16;
  return double(h) / 4294967296.0 < fraction;
}

// Ordered subset (like a compacted stream), and the same subset as lane flags over all rays (like
// the stream `none` leaves: dead lanes stay in place).
Rays subset(const Rays& all, double fraction, std::vector<uint8_t>* flags) {
  Rays r;
  flags->assign(all.size(), 0);
  for (size_t i = 0; i < all.size(); ++i) {
    if (!inSubset(i, fraction)) continue;
    (*flags)[i] = 1;
    r.origin.push_back(all.origin[i]);
    r.direction.push_back(all.direction[i]);
  }
  return r;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

class Timer {
 public:
  Timer(cudaStream_t s, int warmup, int repeats) : stream_(s), warmup_(warmup), repeats_(repeats) {
    SRT_CUDA_CHECK(cudaEventCreate(&start_));
    SRT_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~Timer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  double medianMs(const std::function<void()>& call) {
    for (int i = 0; i < warmup_; ++i) call();
    std::vector<double> ms;
    for (int i = 0; i < repeats_; ++i) {
      SRT_CUDA_CHECK(cudaEventRecord(start_, stream_));
      call();
      SRT_CUDA_CHECK(cudaEventRecord(stop_, stream_));
      SRT_CUDA_CHECK(cudaEventSynchronize(stop_));
      float t = 0;
      SRT_CUDA_CHECK(cudaEventElapsedTime(&t, start_, stop_));
      ms.push_back(t);
    }
    return median(ms);
  }

 private:
  cudaStream_t stream_;
  int warmup_, repeats_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

// Shadow rays: traceShadows against each persistent variant. Each shadow ray feeds its own path
// (pathSlot = position) with contribution 1; the check compares the radiance after one call from
// zero. Returns the number of variants that differ.
template <typename Row>
int shadowRows(Timer& timer, const Backend& backend, const SceneView& view, const Rays& r,
               float tMax, const Row& row) {
  const uint32_t n = uint32_t(r.size());
  ShadowRaysStorage rays;
  rays.allocate(MemorySpace::Cuda, n);
  rays.origin.upload(r.origin);
  rays.direction.upload(r.direction);
  rays.tMax.upload(std::vector<float>(n, tMax));
  rays.contribution.upload(std::vector<Vec3f>(n, Vec3f(1.f, 1.f, 1.f)));
  std::vector<uint32_t> identity(n);
  for (uint32_t i = 0; i < n; ++i) identity[i] = i;
  rays.pathSlot.upload(identity);
  PathStateStorage paths;
  paths.allocate(MemorySpace::Cuda, n);
  ShadowStream stream;
  stream.rays = rays.view();
  stream.maxCount = n;
  const auto once = [&](const PersistentVariant* v) {
    paths.radianceDepth.fillBytes(0);
    if (v)
      traceShadowsPersistent(backend, view, stream, paths.view(), *v);
    else
      traceShadows(backend, view, stream, paths.view());
    backend.synchronize();
    std::vector<Vec3f> radiance;
    for (const Vec3fAnd& q : paths.radianceDepth.download()) radiance.push_back(q.v);
    return radiance;
  };
  const std::vector<Vec3f> expected = once(nullptr);
  size_t lit = 0;
  for (const Vec3f& c : expected) lit += c.x != 0.f;
  const double stdMs = timer.medianMs([&] { traceShadows(backend, view, stream, paths.view()); });
  row("shadow standard", stdMs, "reference, " + std::to_string(lit) + " unoccluded", stdMs);
  int mismatches = 0;
  for (PersistentVariant v : kAllPersistentVariants) {
    const double ms =
        timer.medianMs([&] { traceShadowsPersistent(backend, view, stream, paths.view(), v); });
    const std::vector<Vec3f> got = once(&v);
    size_t bad = 0;
    for (uint32_t i = 0; i < n; ++i) bad += std::memcmp(&got[i], &expected[i], sizeof(Vec3f)) != 0;
    mismatches += bad != 0;
    row(std::string("shadow persistent-") + toString(v), ms,
        bad ? "MISMATCH " + std::to_string(bad) : "identical", stdMs);
  }
  return mismatches;
}

struct Options {
  std::string scene = "cornell", jsonPath;
  int width = 1920, height = 1080, repeats = 20, warmup = 3;
  std::vector<double> fractions{1.0, 0.1};
};

// The stream each ray set starts from: primary rays and the bounce-1 rays of those that hit.
struct SourceRays {
  Rays primary, secondary;
};

// Primary rays, their hits, and the bounce-1 rays of the primary rays that hit.
SourceRays traceSourceRays(const Backend& backend, const SceneView& view, const CameraView& camera,
                           uint32_t numPixels) {
  SourceRays rays;
  Buffer<Vec3f> o(MemorySpace::Cuda, numPixels), d(MemorySpace::Cuda, numPixels);
  Buffer<Vec3f> o2(MemorySpace::Cuda, numPixels), d2(MemorySpace::Cuda, numPixels);
  Buffer<Hit> hits(MemorySpace::Cuda, numPixels);
  Buffer<uint8_t> keep(MemorySpace::Cuda, numPixels);
  const uint32_t grid = (numPixels + 255) / 256;
  primaryKernel<<<grid, 256, 0, backend.stream>>>(camera, numPixels, o.data(), d.data());
  SRT_CUDA_CHECK_LAUNCH();
  const RayStreamRef primary = RayStreamRef::of(o.data(), d.data(), numPixels);
  traceClosest(backend, view, primary, hits.data());
  bounceKernel<<<grid, 256, 0, backend.stream>>>(view, numPixels, o.data(), d.data(), hits.data(),
                                                 o2.data(), d2.data(), keep.data());
  SRT_CUDA_CHECK_LAUNCH();
  backend.synchronize();
  rays.primary.origin = o.download();
  rays.primary.direction = d.download();
  const std::vector<Vec3f> ho = o2.download(), hd = d2.download();
  const std::vector<uint8_t> k = keep.download();
  for (uint32_t i = 0; i < numPixels; ++i)
    if (k[i]) rays.secondary.origin.push_back(ho[i]), rays.secondary.direction.push_back(hd[i]);
  return rays;
}

// The JSON's run description; the rows go under "results".
nlohmann::json runDescription(const Options& opt, const SceneData& data) {
  nlohmann::json out;
  out["device"] = cudaDeviceDescription();
  out["scene"] = opt.scene;
  out["triangles"] = data.triangleCount();
  out["width"] = opt.width;
  out["height"] = opt.height;
  out["repeats"] = opt.repeats;
  out["warmup"] = opt.warmup;
  for (PersistentVariant v : kAllPersistentVariants)
    out["residentWarps"][toString(v)] = persistentResidentWarps(v);
  out["defaultVariant"] = toString(kDefaultPersistentVariant);
  return out;
}

// One table line and one JSON result: a method on one ray set, layout and stream size.
struct ResultRow {
  const char* setName;
  const char* layout;
  double fraction;
  uint32_t n;
  nlohmann::json* out;

  void operator()(const std::string& method, double ms, const std::string& check,
                  double stdMs) const {
    const double mrays = n / (ms * 1e3);
    std::printf("%-8s %-9s %8.3f %9u  %-30s %9.3f %9.1f %7.2fx  %s\n", setName, layout, fraction, n,
                method.c_str(), ms, mrays, stdMs / ms, check.c_str());
    (*out)["results"].push_back({{"rays", setName},
                                 {"layout", layout},
                                 {"fraction", fraction},
                                 {"n", n},
                                 {"method", method},
                                 {"ms", ms},
                                 {"mraysPerSecond", mrays},
                                 {"speedupVsStandard", stdMs / ms},
                                 {"check", check}});
  }
};

// A subset of one ray set on the device: in a row ("compacted") and as lane flags over all rays.
struct SubsetOnDevice {
  const Rays* all;
  const Buffer<Vec3f>& allOrigin;
  const Buffer<Vec3f>& allDirection;
  const std::vector<uint8_t>& flags;
  const Buffer<Vec3f>& origin;
  const Buffer<Vec3f>& direction;
  const Buffer<uint8_t>& lanes;
  uint32_t n;
};

// Closest-hit rows: traceClosest, then each persistent variant checked against it. Returns
// traceClosest's time; counts the variants that differ into *mismatches.
double closestRows(Timer& timer, const Backend& backend, const SceneView& view,
                   const SubsetOnDevice& s, bool dense, const ResultRow& row, int* mismatches) {
  RayStreamRef rays = RayStreamRef::of(dense ? s.origin.data() : s.allOrigin.data(),
                                       dense ? s.direction.data() : s.allDirection.data(),
                                       dense ? s.n : uint32_t(s.all->size()));
  rays.lanes = dense ? nullptr : s.lanes.data();
  Buffer<Hit> refHits(MemorySpace::Cuda, rays.count), hits(MemorySpace::Cuda, rays.count);
  const double stdMs = timer.medianMs([&] { traceClosest(backend, view, rays, refHits.data()); });
  row("standard", stdMs, "reference", stdMs);
  const std::vector<Hit> expected = refHits.download();
  for (PersistentVariant v : kAllPersistentVariants) {
    const double ms =
        timer.medianMs([&] { traceClosestPersistent(backend, view, rays, hits.data(), v); });
    const std::vector<Hit> got = hits.download();
    size_t bad = 0;
    for (uint32_t i = 0; i < rays.count; ++i)  // dead lanes are not written: not compared
      bad += (dense || s.flags[i]) && std::memcmp(&got[i], &expected[i], sizeof(Hit)) != 0;
    *mismatches += bad != 0;
    row(std::string("persistent-") + toString(v), ms,
        bad ? "MISMATCH " + std::to_string(bad) : "identical", stdMs);
  }
  return stdMs;
}

// The scale row: a device-to-device copy of the subset's ray bytes.
void copyRow(Timer& timer, const Backend& backend, const SubsetOnDevice& s, double stdMs,
             const ResultRow& row) {
  Buffer<Vec3f> copyDst(MemorySpace::Cuda, 2 * size_t(s.n));
  const double copyMs = timer.medianMs([&] {
    SRT_CUDA_CHECK(cudaMemcpyAsync(copyDst.data(), s.origin.data(), s.origin.bytes(),
                                   cudaMemcpyDeviceToDevice, backend.stream));
    SRT_CUDA_CHECK(cudaMemcpyAsync(copyDst.data() + s.n, s.direction.data(), s.direction.bytes(),
                                   cudaMemcpyDeviceToDevice, backend.stream));
  });
  row("copy (ray bytes, D2D)", copyMs, "-", stdMs);
}

// Everything the rows of one run share.
struct RunContext {
  const Backend& backend;
  const SceneView& view;
  Timer& timer;
  nlohmann::json& out;
  float shadowTMax;  // 30% of the scene's diagonal: some shadow rays blocked, some not
};

// Every row of one ray set at one stream size. Returns the number of variants that differ.
int subsetRows(const RunContext& ctx, const char* setName, const Rays* all,
               const Buffer<Vec3f>& allO, const Buffer<Vec3f>& allD, double fraction) {
  const bool shadow = std::strcmp(setName, "shadow") == 0;
  std::vector<uint8_t> flags;
  const Rays r = subset(*all, fraction, &flags);
  const uint32_t n = uint32_t(r.size());
  if (n == 0) return 0;
  const Buffer<Vec3f> o(MemorySpace::Cuda, r.origin), d(MemorySpace::Cuda, r.direction);
  const Buffer<uint8_t> lanes(MemorySpace::Cuda, flags);
  const SubsetOnDevice s{all, allO, allD, flags, o, d, lanes, n};
  int mismatches = 0;
  // Layouts: "compacted" (n rays in a row); below 1, also "lanes" (all rays, n of them live).
  for (const char* layout : {"compacted", "lanes"}) {
    const bool dense = std::strcmp(layout, "compacted") == 0;
    if (!dense && (fraction >= 1.0 || shadow)) continue;
    const ResultRow row{setName, layout, fraction, n, &ctx.out};
    if (shadow) {
      mismatches += shadowRows(ctx.timer, ctx.backend, ctx.view, r, ctx.shadowTMax, row);
      continue;
    }
    const double stdMs = closestRows(ctx.timer, ctx.backend, ctx.view, s, dense, row, &mismatches);
    if (dense) copyRow(ctx.timer, ctx.backend, s, stdMs, row);
  }
  return mismatches;
}

// Every ray set at every stream size. Returns the number of variants that differ.
int allRows(const RunContext& ctx, const SourceRays& rays, const std::vector<double>& fractions) {
  int mismatches = 0;
  // "shadow": the bounce-1 rays as shadow rays (cut at ctx.shadowTMax), traced by traceShadows and
  // traceShadowsPersistent.
  const std::pair<const char*, const Rays*> sets[] = {
      {"primary", &rays.primary}, {"bounce1", &rays.secondary}, {"shadow", &rays.secondary}};
  for (const auto& [setName, all] : sets) {
    const Buffer<Vec3f> allO(MemorySpace::Cuda, all->origin),
        allD(MemorySpace::Cuda, all->direction);
    for (double fraction : fractions)
      mismatches += subsetRows(ctx, setName, all, allO, allD, fraction);
  }
  return mismatches;
}

void writeJson(const std::string& path, const nlohmann::json& out) {
  if (path.empty()) return;
  std::ofstream f(path);
  if (!(f << out.dump(2) << "\n")) throw std::runtime_error("cannot write " + path);
  std::printf("\nwrote %s\n", path.c_str());
}

int run(const Options& opt) {
  if (!cudaDeviceAvailable())
    throw std::runtime_error("needs a CUDA device: " + cudaDeviceDescription());
  const Backend backend = selectBackend("cuda");
  const Scene scene = loadScene(opt.scene);
  const SceneData data(scene, backend);
  const SceneView& view = data.view();
  const uint32_t numPixels = uint32_t(opt.width) * uint32_t(opt.height);
  const Camera cam =
      scene.camera ? *scene.camera : frameScene(scene, float(opt.width) / opt.height);
  const CameraView camera = CameraView::from(cam, opt.width, opt.height);
  std::printf("device: %s\nscene: %s, %zu triangles, %dx%d\n", cudaDeviceDescription().c_str(),
              opt.scene.c_str(), data.triangleCount(), opt.width, opt.height);
  const SourceRays rays = traceSourceRays(backend, view, camera, numPixels);
  std::printf("primary rays %zu, bounce-1 rays %zu (primary hits)\n", rays.primary.size(),
              rays.secondary.size());

  nlohmann::json out = runDescription(opt, data);
  Timer timer(backend.stream, opt.warmup, opt.repeats);
  std::printf("\n%-8s %-9s %8s %9s  %-30s %9s %9s %8s  %s\n", "rays", "layout", "fraction", "n",
              "method", "ms", "Mrays/s", "vs std", "check");
  RunContext ctx{backend, view, timer, out,
                 0.3f * length(view.accel.bounds.hi - view.accel.bounds.lo)};
  const int mismatches = allRows(ctx, rays, opt.fractions);
  writeJson(opt.jsonPath, out);
  if (mismatches) {
    std::fprintf(stderr,
                 "streamrt-bench-traversal: error: %d configuration(s) differ from traceClosest or "
                 "traceShadows\n",
                 mismatches);
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace srt::bench

int main(int argc, char** argv) {
  CLI::App app{"Closest-hit tracing: traceClosest against the persistent while-while traversal"};
  srt::bench::Options opt;
  app.add_option("scene", opt.scene, "built-in scene name or scene file (default cornell)");
  app.add_option("--width", opt.width, "primary rays per row")->check(CLI::Range(1, 16384));
  app.add_option("--height", opt.height, "rows")->check(CLI::Range(1, 16384));
  app.add_option("--fractions", opt.fractions, "stream sizes as fractions of the rays")
      ->delimiter(',')
      ->check(CLI::Range(1e-6, 1.0));
  app.add_option("--repeats", opt.repeats, "timed calls per configuration (median reported)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--warmup", opt.warmup, "untimed calls first")->check(CLI::Range(0, 100));
  app.add_option("--json", opt.jsonPath, "write the results as JSON to this file");
  CLI11_PARSE(app, argc, argv);
  try {
    return srt::bench::run(opt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "streamrt-bench-traversal: error: %s\n", e.what());
    return 1;
  }
}
