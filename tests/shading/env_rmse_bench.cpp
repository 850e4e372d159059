// Environment-map importance sampling against uniform light sampling, at equal time, measured as
// RMSE against a high-spp reference (a benchmark run by hand; renderer/shading/RESULTS.md).
//   streamrt-bench-env [--backend cpu|cuda] [--width W --height H] [--spp N] [--ref-spp N]
//                      [--seeds K] [--sky OUT.hdr]
// --ref-spp 0 with --sky only writes the sky (for `streamrt render ... --env OUT.hdr`).
// The sky is synthetic (gradient, ground, a 1.5° sun about 4× the sky's irradiance), written as
// a Radiance .hdr and read back through the renderer's reader. --sky keeps the file for CLI use.
#include <stb_image_write.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/image_read.h"
#include "renderer/render.h"
#include "scenes/shapes.h"
#include "tests/shading/env_test_util.h"

namespace srt {
namespace {

struct Args {
  std::string backend = "cpu", sky;
  int width = 64, height = 48, spp = 16, refSpp = 4096, seeds = 4;
};

Scene studyScene(const EnvironmentMap& sky, bool importance) {
  Scene s;
  Material ground, gloss, matte;
  ground.name = "ground", ground.kd = Vec3f(0.6f);
  gloss.name = "gloss", gloss.type = MaterialType::Glossy;
  gloss.kd = Vec3f(0.1f, 0.15f, 0.3f), gloss.ks = Vec3f(0.6f), gloss.ns = 200.f;
  matte.name = "matte", matte.kd = Vec3f(0.7f, 0.4f, 0.3f);
  s.materials = {ground, gloss, matte};
  Mesh quad = makeQuad(Vec3f(-6.f, 0.f, 6.f), Vec3f(12.f, 0.f, 0.f), Vec3f(0.f, 0.f, -12.f), 0);
  Mesh a = makeSphere(Vec3f(-1.1f, 1.f, 0.f), 1.f, 32, false, 1);
  Mesh b = makeSphere(Vec3f(1.2f, 0.8f, 0.5f), 0.8f, 32, false, 2);
  quad.materialIds.assign(quad.triangleCount(), 0);
  a.materialIds.assign(a.triangleCount(), 1);
  b.materialIds.assign(b.triangleCount(), 2);
  s.meshes = {quad, a, b};
  s.instances = {Instance{0, {}, {}}, Instance{1, {}, {}}, Instance{2, {}, {}}};
  Camera c;
  c.position = Vec3f(0.f, 2.2f, 6.5f);
  c.target = Vec3f(0.f, 0.7f, 0.f);
  c.vfovDegrees = 45.f;
  s.camera = c;
  s.environmentMap = sky;
  s.environmentMap->importanceSampled = importance;
  return s;
}

struct Run {
  Image image;
  double seconds = 0;
};

Run render(const Args& args, const EnvironmentMap& sky, bool importance, int spp, uint32_t seed) {
  RenderOptions o;
  o.width = args.width, o.height = args.height, o.spp = spp, o.seed = seed;
  o.compaction = args.backend == "cuda" ? "cub" : "cpu";
  Renderer r(studyScene(sky, importance), selectBackend(args.backend), o);
  const auto t0 = std::chrono::steady_clock::now();
  Run run;
  run.image = r.render(0.f).image;
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return run;
}

double rmse(const Image& a, const Image& b) {
  double s = 0;
  for (size_t i = 0; i < a.pixels.size(); ++i)
    for (int c = 0; c < 3; ++c) {
      const double d = double(a.pixels[i][c]) - double(b.pixels[i][c]);
      s += d * d;
    }
  return std::sqrt(s / (3.0 * double(a.pixels.size())));
}

struct Row {
  int spp = 0;
  double seconds = 0, rmse = 0;
};

// Mean time and RMSE over `seeds` renders (seeds 1..K; the reference uses seed 0).
Row measure(const Args& args, const EnvironmentMap& sky, bool importance, int spp,
            const Image& reference) {
  Row row;
  row.spp = spp;
  for (int k = 1; k <= args.seeds; ++k) {
    const Run run = render(args, sky, importance, spp, uint32_t(k));
    row.seconds += run.seconds / args.seeds;
    row.rmse += rmse(run.image, reference) / args.seeds;
  }
  return row;
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "streamrt-bench-env: %s needs a value\n", k.c_str());
      std::exit(2);
    }
    const char* v = argv[++i];
    if (k == "--backend")
      a.backend = v;
    else if (k == "--sky")
      a.sky = v;
    else if (k == "--width")
      a.width = std::atoi(v);
    else if (k == "--height")
      a.height = std::atoi(v);
    else if (k == "--spp")
      a.spp = std::atoi(v);
    else if (k == "--ref-spp")
      a.refSpp = std::atoi(v);
    else if (k == "--seeds")
      a.seeds = std::atoi(v);
    else {
      std::fprintf(stderr, "streamrt-bench-env: unknown flag %s\n", k.c_str());
      std::exit(2);
    }
  }
  if (a.width <= 0 || a.height <= 0 || a.spp <= 0 || a.refSpp < 0 || a.seeds <= 0 ||
      (a.refSpp == 0 && a.sky.empty())) {
    std::fprintf(stderr, "streamrt-bench-env: sizes, spp and seeds must be positive\n");
    std::exit(2);
  }
  return a;
}

int run(int argc, char** argv) {
  const Args args = parse(argc, argv);
  const std::string path = args.sky.empty() ? "/tmp/streamrt-bench-sky.hdr" : args.sky;
  const Image sky = test::syntheticSky(256, 128);
  if (!stbi_write_hdr(path.c_str(), sky.width, sky.height, 3, &sky.pixels[0].x)) {
    std::fprintf(stderr, "streamrt-bench-env: cannot write %s\n", path.c_str());
    return 1;
  }
  if (args.refSpp == 0) return 0;  // only the sky was asked for
  const EnvironmentMap map = test::mapOf(readRadianceImage(path), path);
  if (args.sky.empty()) std::remove(path.c_str());

  render(args, map, false, args.spp, 0);  // warm-up: threads, allocator, device context
  const Run reference = render(args, map, true, args.refSpp, 0);
  std::printf("reference: %dx%d, %d spp importance sampled, %.1f s (%s backend)\n", args.width,
              args.height, args.refSpp, reference.seconds, args.backend.c_str());
  const Row is = measure(args, map, true, args.spp, reference.image);
  const Row uniformSameSpp = measure(args, map, false, args.spp, reference.image);
  // Equal time: give uniform sampling the samples it can draw in importance sampling's time.
  const int equalSpp =
      std::max(1, int(std::lround(args.spp * is.seconds / uniformSameSpp.seconds)));
  const Row uniform = measure(args, map, false, equalSpp, reference.image);
  std::printf("\n| sampling | spp | time (s) | RMSE | RMSE ratio (uniform / importance) |\n");
  std::printf("|---|---|---|---|---|\n");
  std::printf("| importance (luminance x sin theta) | %d | %.3f | %.5f | 1 |\n", is.spp, is.seconds,
              is.rmse);
  std::printf("| uniform, same spp | %d | %.3f | %.5f | %.2f |\n", uniformSameSpp.spp,
              uniformSameSpp.seconds, uniformSameSpp.rmse, uniformSameSpp.rmse / is.rmse);
  std::printf("| uniform, equal time | %d | %.3f | %.5f | %.2f |\n", uniform.spp, uniform.seconds,
              uniform.rmse, uniform.rmse / is.rmse);
  return 0;
}

}  // namespace
}  // namespace srt

int main(int argc, char** argv) {
  try {
    return srt::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "streamrt-bench-env: %s\n", e.what());
    return 1;
  }
}
