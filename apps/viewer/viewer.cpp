#include "apps/viewer/viewer.h"

#include <epoxy/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include "apps/viewer/camera_controller.h"
#include "apps/viewer/image_display.h"
#include "apps/viewer/interop_upload.h"
#include "apps/viewer/render_session.h"
#include "apps/viewer/ui_context.h"
#include "apps/viewer/window.h"
#include "primitives/common/cuda_check.h"
#include "primitives/compaction/compaction.h"
#include "primitives/gl/gl_context.h"
#include "scenes/loader.h"

namespace srt::viewer {
namespace {

// The GL primitives run on the window's context while the viewer lives, never on a second one.
struct ExternalGlContext {
  ExternalGlContext() { gl::useExternalContext(true); }
  ~ExternalGlContext() { gl::useExternalContext(false); }
};

// Wheel steps arrive through a GLFW callback; the loop hands them to the camera each frame.
void onScroll(GLFWwindow* window, double, double dy) {
  *static_cast<double*>(glfwGetWindowUserPointer(window)) += dy;
}

// Moves the mean into the display texture: through CUDA-GL interop on the CUDA backend (falling
// back to a host upload, said in the panel, where the GL context cannot be shared with CUDA),
// else glTexSubImage2D from the host image.
class MeanUploader {
 public:
  explicit MeanUploader(ImageDisplay& display) : display_(display) {}
  void setBackend(const Backend& backend, bool quiet) {
    backend_ = backend;
    quiet_ = quiet;
    interop_.reset();
    if (backend.isCuda() && !interopFailed_) {
      interop_ = std::make_unique<InteropUpload>();
      line_ = "display: CUDA-GL interop (mean copied into a registered pixel buffer)";
    } else if (!backend.isCuda()) {
      line_ = "display: host upload (glTexSubImage2D)";
    }
  }
  void upload(const Image& mean) {
    display_.resize(mean.width, mean.height);
    if (interop_) {
      try {
        display_.uploadFromPixelBuffer(interop_->write(mean, backend_.stream));
        return;
      } catch (const CudaError& e) {
        interop_.reset();
        interopFailed_ = true;
        line_ = std::string("display: host upload; CUDA-GL interop failed: ") + e.what();
        if (!quiet_) std::fprintf(stderr, "streamrt: %s\n", line_.c_str());
      }
    }
    display_.uploadFromHost(mean);
  }
  const std::string& line() const { return line_; }

 private:
  ImageDisplay& display_;
  Backend backend_;
  std::unique_ptr<InteropUpload> interop_;
  bool interopFailed_ = false, quiet_ = false;
  std::string line_;
};

void saveImage(const std::string& path, const Image& image, float exposure, bool quiet,
               const char* what) {
  writeImage(path, image, exposure);
  if (!quiet)
    std::fprintf(stderr, "streamrt: wrote %s (%s, %dx%d)\n", path.c_str(), what, image.width,
                 image.height);
}

}  // namespace

int runViewer(const ViewerConfig& cfg) {
  // Cheap checks first, so a typo fails before a window opens or a scene loads.
  if (!cfg.screenshot.empty()) checkImageExtension(cfg.screenshot);
  if (!cfg.windowScreenshot.empty()) checkImageExtension(cfg.windowScreenshot);
  std::string notice;
  const Backend backend = selectBackend(cfg.backend, &notice);
  if (!notice.empty() && !cfg.quiet) std::fprintf(stderr, "streamrt: %s\n", notice.c_str());
  ViewSettings settings = cfg.settings;
  settings.backend = backend.name();
  settings.options.spp = 1;
  // Checked without making the primitive (a GL one runs on the window's context, made below).
  const bool gl = checkRender(backend, settings.options).compaction.usesGl();
  const Scene scene = loadScene(cfg.scene);

  Window window(cfg.windowWidth, cfg.windowHeight, "streamrt view: " + cfg.scene);
  if (gl && !window.runsGlPrimitives())
    throw std::invalid_argument("--compaction " + settings.options.compaction +
                                ": the GL primitives need OpenGL 4.5 core; the window has " +
                                window.description());
  ExternalGlContext external;
  double scroll = 0;
  glfwSetWindowUserPointer(window.handle(), &scroll);
  glfwSetScrollCallback(window.handle(), onScroll);  // before ImGui, which chains to it
  UiContext ui(window.handle());
  ImageDisplay display;
  MeanUploader uploader(display);

  RenderSession session(scene, settings.backend, settings.options);
  uploader.setBackend(session.backend(), cfg.quiet);
  CameraController camera(session.camera());
  PanelStatus status;
  status.cudaPresent = cudaDeviceAvailable();
  status.glPrimitives = window.runsGlPrimitives();
  if (!cfg.quiet) std::fprintf(stderr, "streamrt: window: %s\n", window.description().c_str());

  double last = glfwGetTime();
  while (!window.shouldClose()) {
    const int target = cfg.exitAfterFrames > 0 ? cfg.exitAfterFrames : settings.sppTarget;
    const bool done = target > 0 && session.accumulator().frames() >= target;
    if (done && cfg.exitAfterFrames == 0)
      glfwWaitEventsTimeout(0.1);  // nothing to render: sleep until input
    else
      glfwPollEvents();
    const double now = glfwGetTime();
    const double seconds = now - last;
    last = now;

    ui.beginFrame();
    camera.addScroll(scroll);
    scroll = 0;
    if (camera.update(window.handle(), seconds, ui.wantsMouse(), ui.wantsKeyboard()))
      session.setCamera(camera.camera());
    status.frames = session.accumulator().frames();
    status.stats = session.hasStats() ? &session.lastStats() : nullptr;
    status.raysPerSecond = status.stats ? status.stats->raysPerSecond() : 0;
    status.display = uploader.line();
    const PanelActions act = drawPanel(settings, status);
    try {
      if (act.backendChanged) {
        session.setBackend(settings.backend);
        uploader.setBackend(session.backend(), cfg.quiet);
        status.message.clear();
      }
      if (act.optionsChanged) {
        session.setOptions(settings.options);
        status.message.clear();
      }
    } catch (const std::exception& e) {
      status.message = e.what();
    }
    settings.backend = session.backend().name();
    settings.options = session.options();

    if (!done) {
      const auto t0 = std::chrono::steady_clock::now();
      try {
        session.renderFrame();
      } catch (const std::exception& e) {
        if (cfg.exitAfterFrames > 0) throw;  // a scripted run must not hide a failure
        // Keep the window usable: say why and go back to the backend's default primitive.
        status.message = e.what();
        RenderOptions fallback = session.options();
        fallback.compaction = "auto";
        session.setOptions(fallback);
        settings.options = session.options();
      }
      status.frameMs =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (session.accumulator().frames() > 0) uploader.upload(session.accumulator().mean());
    }

    int fbWidth = 0, fbHeight = 0;
    window.framebufferSize(&fbWidth, &fbHeight);
    display.draw(fbWidth, fbHeight, settings.exposure);
    ui.endFrame();
    if (act.screenshot) {
      try {
        saveImage(settings.screenshot, session.accumulator().mean(), settings.exposure, cfg.quiet,
                  "accumulated image");
        status.message = "wrote " + settings.screenshot;
      } catch (const std::exception& e) {
        status.message = e.what();
      }
    }
    if (cfg.exitAfterFrames > 0 && session.accumulator().frames() >= cfg.exitAfterFrames) {
      const std::string what = std::to_string(session.accumulator().frames()) +
                               " frames of 1 spp, " + session.backend().name();
      if (!cfg.screenshot.empty())
        saveImage(cfg.screenshot, session.accumulator().mean(), settings.exposure, cfg.quiet,
                  what.c_str());
      if (!cfg.windowScreenshot.empty())
        saveImage(cfg.windowScreenshot, readWindowPixels(fbWidth, fbHeight), 0.f, cfg.quiet,
                  "window");
      if (!cfg.quiet) std::fprintf(stderr, "streamrt: %s\n", uploader.line().c_str());
      break;
    }
    window.swapBuffers();
  }
  return 0;
}

}  // namespace srt::viewer
