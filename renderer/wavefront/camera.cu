// Whitted camera rays: one per pixel and sample. (Path tracer camera paths start in
// regenerate.cu, where the pool is fed.)
#include "renderer/backend/parallel_for.h"
#include "renderer/wavefront/stages.h"

namespace srt {

void generateCameraRays(const Backend& b, const CameraView& camera, SampleKey key,
                        uint32_t numPixels, WhittedRays rays) {
  parallelFor(b, numPixels, [=] SRT_CPU_GPU(uint32_t pixel) {
    const Ray ray = cameraRay(camera, pixel, key.sample, key.seed);
    rays.pixel[pixel] = pixel;
    rays.origin[pixel] = ray.o;
    rays.direction[pixel] = ray.d;
    rays.weight[pixel] = Vec3f(1.f);
  });
}

}  // namespace srt
