#include "renderer/backend/parallel_for.h"
#include "renderer/shading/rng.h"
#include "renderer/wavefront/stages.h"

namespace srt {
namespace {
// The camera ray of a pixel's sample: jitter and lens position from bounce 0 of its sampler.
SRT_CPU_GPU inline Ray cameraRay(const CameraView& camera, SampleKey key, uint32_t pixel) {
  Sampler sampler = Sampler::at(pixel, key.sample, 0, key.seed);
  const Vec2f jitter = sampler.next2D();
  const Vec2f lens = sampler.next2D();
  return camera.generate(pixel, jitter, lens);
}
}  // namespace

void generateCameraPaths(const Backend& b, const CameraView& camera, SampleKey key,
                         uint32_t numPixels, PathState state, uint32_t* slots) {
  parallelFor(b, numPixels, [=] SRT_CPU_GPU(uint32_t pixel) {
    const Ray ray = cameraRay(camera, key, pixel);
    state.pixel[pixel] = pixel;
    state.origin[pixel] = ray.o;
    state.direction[pixel] = ray.d;
    state.throughput[pixel] = Vec3f(1.f);
    state.radiance[pixel] = Vec3f(0.f);
    state.bsdfPdf[pixel] = 0.f;  // camera rays see emitters with full weight, like specular ones
    if (slots) slots[pixel] = pixel;
  });
}

void generateCameraRays(const Backend& b, const CameraView& camera, SampleKey key,
                        uint32_t numPixels, WhittedRays rays) {
  parallelFor(b, numPixels, [=] SRT_CPU_GPU(uint32_t pixel) {
    const Ray ray = cameraRay(camera, key, pixel);
    rays.pixel[pixel] = pixel;
    rays.origin[pixel] = ray.o;
    rays.direction[pixel] = ray.d;
    rays.weight[pixel] = Vec3f(1.f);
  });
}

}  // namespace srt
