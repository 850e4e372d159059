#include "apps/viewer/viewer.h"

#include <epoxy/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "apps/viewer/benchmark.h"
#include "apps/viewer/camera_controller.h"
#include "apps/viewer/camera_json.h"
#include "apps/viewer/image_display.h"
#include "apps/viewer/layout_report.h"
#include "apps/viewer/mean_uploader.h"
#include "apps/viewer/render_session.h"
#include "apps/viewer/ui_context.h"
#include "apps/viewer/window.h"
#include "base/atomic_file.h"
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

// Wheel steps and key presses arrive through GLFW callbacks (installed before ImGui's, which
// chain to them); the loop takes them each frame. Presses are queued, so a short one is never
// missed between two slow frames.
struct InputQueue {
  double scroll = 0;
  struct Key {
    int key, mods;
  };
  std::vector<Key> keys;
};

InputQueue& inputOf(GLFWwindow* window) {
  return *static_cast<InputQueue*>(glfwGetWindowUserPointer(window));
}

void onScroll(GLFWwindow* window, double, double dy) {
  inputOf(window).scroll += dy;
}

void onKey(GLFWwindow* window, int key, int, int action, int mods) {
  if (action == GLFW_PRESS) inputOf(window).keys.push_back({key, mods});
}

void saveImage(const std::string& path, const Image& image, float exposure, bool quiet,
               const char* what) {
  writeImage(path, image, exposure);
  if (!quiet)
    std::fprintf(stderr, "streamrt: wrote %s (%s, %dx%d)\n", path.c_str(), what, image.width,
                 image.height);
}

// The range the timeline covers: from the first keyframe (or 0) to the last.
void animationRange(const Scene& scene, PanelStatus& status) {
  status.animationStart = 0;
  for (const Instance& inst : scene.instances)
    if (!inst.keyframes.empty())
      status.animationStart = std::min(status.animationStart, inst.keyframes.front().time);
  status.animationEnd = std::max(scene.animationEnd, status.animationStart);
}

// --time within the animation, as for `render --time`.
void checkTime(const Scene& scene, float time, const std::string& name) {
  PanelStatus animation;
  animationRange(scene, animation);
  if (time >= animation.animationStart && time <= animation.animationEnd) return;
  char range[96];
  if (animation.animated())
    std::snprintf(range, sizeof range, "is animated over [%g, %g]", animation.animationStart,
                  animation.animationEnd);
  else
    std::snprintf(range, sizeof range, "has no animation (only time %g)", animation.animationStart);
  char given[32];
  std::snprintf(given, sizeof given, "%g", time);
  throw std::invalid_argument("--time " + std::string(given) + ": " + name + " " + range);
}

class Viewer {
 public:
  Viewer(const ViewerConfig& cfg, const Scene& scene, Window& window)
      : cfg_(cfg),
        window_(window),
        settings_(cfg.settings),
        ui_(installCallbacks(window.handle())),
        uploader_(display_),
        session_(scene, settings_.backend, settings_.options, cfg.accel, settings_.time),
        camera_(session_.camera()) {
    uploader_.setBackend(session_.backend(), cfg.quiet);
    status_.cudaPresent = cudaDeviceAvailable();
    status_.glPrimitives = window.runsGlPrimitives();
    animationRange(scene, status_);
  }

  int run() {
    double last = glfwGetTime();
    while (!window_.shouldClose()) {
      const int target = cfg_.exitAfterFrames > 0 ? cfg_.exitAfterFrames : settings_.sppTarget;
      const bool done = target > 0 && session_.accumulator().frames() >= target;
      if (done && cfg_.exitAfterFrames == 0 && !settings_.playing)
        glfwWaitEventsTimeout(0.1);  // nothing to render: sleep until input
      else
        glfwPollEvents();
      const double now = glfwGetTime();
      const double seconds = now - last;
      last = now;

      ui_.beginFrame();
      handleInput(seconds);
      advanceTimeline(seconds);
      const bool rendering =
          !(target > 0 && session_.accumulator().frames() >= target) || settings_.playing;
      // A still image accumulates: frames render on until the display is due (DisplayPacer).
      if (rendering)
        while (!renderFrame(showNextFrame()) && !window_.shouldClose()) {
        }
      // The panel shows this frame's numbers; what the user changes applies from the next.
      const Layout layout = currentLayout();
      PanelReport report;
      apply(drawPanel(layout, settings_, panelStatus(), &report));
      display_.draw(framebufferRect(layout.image), framebufferWidth(), framebufferHeight(),
                    settings_.exposure);
      ui_.endFrame();
      if (scriptedEnd()) {
        finishScripted(layout, report);
        break;
      }
      window_.swapBuffers();
    }
    if (cfg_.printCamera) printCamera();
    return 0;
  }

 private:
  GLFWwindow* installCallbacks(GLFWwindow* window) {
    glfwSetWindowUserPointer(window, &input_);
    glfwSetScrollCallback(window, onScroll);
    glfwSetKeyCallback(window, onKey);
    return window;
  }

  // `--frames N`: N frames accumulated, or N frames rendered while the timeline plays (each
  // frame then shows another time and starts the accumulation over).
  bool scriptedEnd() const {
    if (cfg_.exitAfterFrames <= 0) return false;
    const long long count =
        settings_.playing ? history_.added() : (long long)session_.accumulator().frames();
    return count >= cfg_.exitAfterFrames;
  }

  void handleInput(double seconds) {
    camera_.addScroll(input_.scroll);
    input_.scroll = 0;
    if (camera_.update(window_.handle(), seconds, ui_.wantsMouse(), ui_.wantsKeyboard()))
      session_.setCamera(camera_.camera());
    PanelActions act;
    if (!ui_.wantsKeyboard())
      for (const InputQueue::Key& k : input_.keys)
        act |= applyKey(k.key, k.mods, settings_, panelStatus());
    input_.keys.clear();
    apply(act);
  }

  // While playing, the scene time follows the clock and loops over the animation. Each frame
  // announces the next one's time (its own step again), and the next frame takes that time, so
  // its kd-tree is built beside this frame's render: the steps lag the clock's by one frame.
  void advanceTimeline(double seconds) {
    if (!settings_.playing || !status_.animated()) return;
    const bool announced = announced_ && settings_.time == shownTime_;  // no slider since
    const float t = announced ? nextTime_ : wrapTime(settings_.time + float(seconds));
    settings_.time = shownTime_ = t;
    session_.setTime(t);
    nextTime_ = wrapTime(t + float(seconds));
    session_.setNextTime(nextTime_);
    announced_ = true;
  }

  float wrapTime(float t) const {
    const float span = status_.animationEnd - status_.animationStart;
    return t > status_.animationEnd
               ? status_.animationStart + std::fmod(t - status_.animationEnd, span)
               : t;
  }

  // Whether the frame about to render is shown: always while the timeline plays and for the
  // last frame a script or the spp target asks for, else when the display is due.
  bool showNextFrame() {
    const int target = cfg_.exitAfterFrames > 0 ? cfg_.exitAfterFrames : settings_.sppTarget;
    const bool last = target > 0 && session_.accumulator().frames() + 1 >= target;
    return settings_.playing || last || pacer_.due(std::chrono::steady_clock::now());
  }

  // Renders one frame and, if `show`, hands the mean to the display; returns whether it was
  // shown (a failed frame counts as shown: the panel says why).
  bool renderFrame(bool show) {
    const auto t0 = std::chrono::steady_clock::now();
    try {
      session_.renderFrame();
    } catch (const std::exception& e) {
      if (cfg_.exitAfterFrames > 0) throw;  // a scripted run must not hide a failure
      // Keep the window usable: say why and go back to the backend's default primitive.
      status_.message = e.what();
      RenderOptions fallback = session_.options();
      fallback.compaction = "auto";
      session_.setOptions(fallback);
      settings_.options = session_.options();
      return true;
    }
    const auto t1 = std::chrono::steady_clock::now();
    if (show && session_.accumulator().frames() > 0) uploader_.upload(session_.accumulator());
    const auto t2 = std::chrono::steady_clock::now();
    const auto ms = [](auto a, auto b) {
      return std::chrono::duration<double, std::milli>(b - a).count();
    };
    // A new renderer built its kd-tree before this frame: that wait belongs to the frame too.
    const RenderStats& stats = session_.lastStats();
    const double before = session_.lastBuildBeforeFrame() ? stats.accel.buildMs : 0;
    history_.add(splitFrame(stats, ms(t0, t2) + before, session_.lastAccumulateMs() + ms(t1, t2)));
    return show;
  }

  void apply(const PanelActions& act) {
    try {
      if (act.backendChanged) {
        session_.setBackend(settings_.backend);
        uploader_.setBackend(session_.backend(), cfg_.quiet);
        status_.message.clear();
      }
      if (act.optionsChanged) {
        session_.setOptions(settings_.options);
        status_.message.clear();
      }
    } catch (const std::exception& e) {
      status_.message = e.what();
    }
    settings_.backend = session_.backend().name();
    settings_.options = session_.options();
    if (act.timeChanged) session_.setTime(settings_.time);
    if (act.copyCamera) {
      const std::string entry = "\"camera\": " + cameraJson(camera_.camera());
      glfwSetClipboardString(window_.handle(), entry.c_str());
      printCamera();
      status_.message = "camera copied to the clipboard and printed on stdout";
    }
    if (act.screenshot) {
      try {
        saveImage(settings_.screenshot, session_.accumulator().mean(), settings_.exposure,
                  cfg_.quiet, "accumulated image");
        status_.message = "wrote " + settings_.screenshot;
      } catch (const std::exception& e) {
        status_.message = e.what();
      }
    }
  }

  void printCamera() const {
    std::printf("\"camera\": %s\n", cameraJson(camera_.camera()).c_str());
    std::fflush(stdout);
  }

  PanelStatus panelStatus() {
    status_.frames = session_.accumulator().frames();
    status_.stats = session_.hasStats() ? &session_.lastStats() : nullptr;
    status_.raysPerSecond = status_.stats ? status_.stats->raysPerSecond() : 0;
    status_.history = &history_;
    status_.display = uploader_.line();
    status_.cameraJson = cameraJson(camera_.camera());
    return status_;
  }

  Layout currentLayout() const {
    const ImVec2 size = ImGui::GetIO().DisplaySize;
    return computeLayout(size.x, size.y, settings_.options.width, settings_.options.height,
                         settings_.panelCollapsed);
  }
  int framebufferWidth() const {
    int w = 0, h = 0;
    window_.framebufferSize(&w, &h);
    return w;
  }
  int framebufferHeight() const {
    int w = 0, h = 0;
    window_.framebufferSize(&w, &h);
    return h;
  }
  PixelRect framebufferRect(const Rect& r) const {
    const ImGuiIO& io = ImGui::GetIO();
    return toFramebuffer(r, io.DisplaySize.y, io.DisplayFramebufferScale.x,
                         io.DisplayFramebufferScale.y);
  }

  // The scripted end of `--frames N`: the screenshots and the layout, then the window closes.
  void finishScripted(const Layout& layout, const PanelReport& report) {
    const std::string what = std::to_string(session_.accumulator().frames()) +
                             " frames of 1 spp, " + session_.backend().name();
    if (!cfg_.screenshot.empty())
      saveImage(cfg_.screenshot, session_.accumulator().mean(), settings_.exposure, cfg_.quiet,
                what.c_str());
    if (!cfg_.windowScreenshot.empty())
      saveImage(cfg_.windowScreenshot, readWindowPixels(framebufferWidth(), framebufferHeight()),
                0.f, cfg_.quiet, "window");
    if (!cfg_.layoutReport.empty()) {
      LayoutFacts facts;
      facts.layout = layout;
      facts.framebufferScaleX = ImGui::GetIO().DisplayFramebufferScale.x;
      facts.framebufferScaleY = ImGui::GetIO().DisplayFramebufferScale.y;
      facts.frames = session_.accumulator().frames();
      facts.renderedFrames = history_.added();
      facts.time = session_.time();
      facts.playing = settings_.playing;
      if (!history_.frames().empty()) facts.lastFrame = history_.frames().back();
      facts.panel = report;
      facts.cameraJson = cameraJson(camera_.camera());
      StagedFile file(checkOutputFile(cfg_.layoutReport, "--layout"), "layout");
      file.write(layoutJson(facts));
      file.commit();
    }
    if (!cfg_.quiet) std::fprintf(stderr, "streamrt: %s\n", uploader_.line().c_str());
  }

  const ViewerConfig& cfg_;
  Window& window_;
  ViewSettings settings_;
  InputQueue input_;
  UiContext ui_;
  ImageDisplay display_;
  MeanUploader uploader_;
  DisplayPacer pacer_{cfg_.displayHz};
  RenderSession session_;
  CameraController camera_;
  FrameHistory history_;
  PanelStatus status_;
  float shownTime_ = 0.f, nextTime_ = 0.f;  // playing: the time shown, the one announced
  bool announced_ = false;
};

}  // namespace

int runViewer(const ViewerConfig& cfg) {
  // Cheap checks first, so a typo fails before a window opens or a scene loads.
  if (!cfg.screenshot.empty()) checkImageExtension(cfg.screenshot);
  if (!cfg.windowScreenshot.empty()) checkImageExtension(cfg.windowScreenshot);
  std::string notice;
  const Backend backend = selectBackend(cfg.backend, &notice);
  if (!notice.empty() && !cfg.quiet) std::fprintf(stderr, "streamrt: %s\n", notice.c_str());
  ViewerConfig config = cfg;
  ViewSettings& settings = config.settings;
  settings.backend = backend.name();
  settings.options.spp = 1;
  // Checked without making the primitive (a GL one runs on the window's context, made below).
  const bool gl = checkRender(backend, settings.options, cfg.accel).compaction.usesGl();
  Scene scene = loadScene(cfg.scene);
  if (cfg.prepareScene) cfg.prepareScene(scene);
  checkTime(scene, settings.time, cfg.scene);
  if (cfg.benchmarkFrames > 0) {
    PanelStatus animation;
    animationRange(scene, animation);
    return runBenchmark(config, scene, animation.animationStart, animation.animationEnd);
  }

  Window window(cfg.windowWidth, cfg.windowHeight, "streamrt view: " + cfg.scene);
  if (gl && !window.runsGlPrimitives())
    throw std::invalid_argument("--compaction " + settings.options.compaction +
                                ": the GL primitives need OpenGL 4.5 core; the window has " +
                                window.description());
  ExternalGlContext external;
  if (!cfg.quiet) std::fprintf(stderr, "streamrt: window: %s\n", window.description().c_str());
  return Viewer(config, scene, window).run();
}

}  // namespace srt::viewer
