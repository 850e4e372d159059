#include "renderer/render.h"

#include <chrono>

namespace srt {

RenderResult renderScene(Scene scene, const Backend& backend, const RenderOptions& options,
                         const ProgressFn& progress) {
  if (!scene.camera) scene.camera = frameScene(scene, float(options.width) / float(options.height));
  RenderResult result;
  RenderStats& st = result.stats;
  st.scene = scene.name;
  st.integrator = options.integrator;
  st.backend = backend.name();
  st.device = backend.deviceDescription();
  st.compaction = options.compaction == "auto" ? defaultCompaction(backend) : options.compaction;
  st.payload = options.payload;
  st.width = options.width;
  st.height = options.height;
  st.spp = options.spp;
  st.maxDepth = options.maxDepth;
  st.seed = options.seed;

  // Validate the options (and the memory they need) before the kd-tree build.
  validateRenderOptions(backend, options);
  SceneData data(scene, backend);
  st.triangles = data.triangleCount();
  st.accelBuildSeconds = data.accelBuildSeconds();
  auto integrator = makeIntegrator(scene, data, backend, options);
  const auto t0 = std::chrono::steady_clock::now();
  result.image = integrator->render(st, progress);
  st.renderSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace srt
