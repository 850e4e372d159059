#include "primitives/gl/gl_context.h"

#include <epoxy/egl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "primitives/common/cuda_check.h"

namespace srt::gl {
namespace {

// The last high-severity message of the debug output, appended to the next thrown GlError.
thread_local std::string lastDebugMessage;
bool externalContext = false;

const char* errorName(GLenum e) {
  switch (e) {
    case GL_INVALID_ENUM:
      return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE:
      return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION:
      return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION:
      return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY:
      return "GL_OUT_OF_MEMORY";
    case GL_STACK_OVERFLOW:
      return "GL_STACK_OVERFLOW";
    case GL_STACK_UNDERFLOW:
      return "GL_STACK_UNDERFLOW";
  }
  return "unknown GL error";
}

void GLAPIENTRY onDebugMessage(GLenum source, GLenum type, GLuint id, GLenum severity,
                               GLsizei length, const GLchar* message, const void*) {
  if (severity == GL_DEBUG_SEVERITY_NOTIFICATION) return;
  if (type == GL_DEBUG_TYPE_ERROR || severity == GL_DEBUG_SEVERITY_HIGH) lastDebugMessage = message;
  if (std::getenv("SRT_GL_DEBUG")) std::fprintf(stderr, "[gl debug] %s\n", message);
}

std::string eglErrorText(const char* what) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s failed (EGL error 0x%04x)", what, unsigned(eglGetError()));
  return buf;
}

bool hasExtension(const char* list, const char* name) {
  if (!list) return false;
  const std::string s = std::string(" ") + list + " ";
  return s.find(std::string(" ") + name + " ") != std::string::npos;
}

// Tries one display; returns an empty string on success, else why it failed.
std::string tryDisplay(EGLDisplay dpy, EGLContext* ctxOut, EGLSurface* surfOut) {
  EGLint major = 0, minor = 0;
  if (dpy == EGL_NO_DISPLAY) return "no display";
  if (!eglInitialize(dpy, &major, &minor)) return eglErrorText("eglInitialize");
  if (!eglBindAPI(EGL_OPENGL_API)) return eglErrorText("eglBindAPI(OpenGL)");
  const EGLint configAttribs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                                  EGL_OPENGL_BIT, EGL_NONE};
  EGLConfig config = nullptr;
  EGLint numConfigs = 0;
  if (!eglChooseConfig(dpy, configAttribs, &config, 1, &numConfigs) || numConfigs == 0) {
    eglTerminate(dpy);
    return "no EGL config with OpenGL and pbuffers";
  }
  const bool debug = std::getenv("SRT_GL_DEBUG") != nullptr;
  const EGLint contextAttribs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                   4,
                                   EGL_CONTEXT_MINOR_VERSION,
                                   5,
                                   EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                   EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                   EGL_CONTEXT_OPENGL_DEBUG,
                                   debug ? EGL_TRUE : EGL_FALSE,
                                   EGL_NONE};
  EGLContext ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT, contextAttribs);
  if (ctx == EGL_NO_CONTEXT) {
    const std::string why = eglErrorText("eglCreateContext(4.5 core)");
    eglTerminate(dpy);
    return why;
  }
  // All rendering goes to framebuffer objects; a 1x1 pbuffer only where surfaceless is missing.
  EGLSurface surf = EGL_NO_SURFACE;
  if (!hasExtension(eglQueryString(dpy, EGL_EXTENSIONS), "EGL_KHR_surfaceless_context")) {
    const EGLint pb[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
    surf = eglCreatePbufferSurface(dpy, config, pb);
  }
  if (!eglMakeCurrent(dpy, surf, surf, ctx)) {
    const std::string why = eglErrorText("eglMakeCurrent");
    eglDestroyContext(dpy, ctx);
    eglTerminate(dpy);
    return why;
  }
  *ctxOut = ctx;
  *surfOut = surf;
  return "";
}

}  // namespace

void throwGlError(GLenum err, const char* expr, const char* file, int line) {
  std::string msg =
      std::string(file) + ":" + std::to_string(line) + ": " + expr + " failed: " + errorName(err);
  if (!lastDebugMessage.empty()) msg += " (" + lastDebugMessage + ")";
  lastDebugMessage.clear();
  throw GlError(msg);
}

std::unique_ptr<GlContext> GlContext::createHeadless(int cudaDevice) {
  const char* clientExt = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (!hasExtension(clientExt, "EGL_EXT_device_enumeration") &&
      !hasExtension(clientExt, "EGL_EXT_device_base"))
    throw GlUnavailable("no OpenGL 4.5 context: EGL lacks EGL_EXT_device_enumeration");
  EGLint numDevices = 0;
  eglQueryDevicesEXT(0, nullptr, &numDevices);
  std::vector<EGLDeviceEXT> devices(numDevices);
  if (numDevices == 0 || !eglQueryDevicesEXT(numDevices, devices.data(), &numDevices))
    throw GlUnavailable("no OpenGL 4.5 context: EGL lists no devices");

  // Order: the CUDA device's own, then hardware devices, then software ones (llvmpipe).
  std::vector<std::pair<int, EGLDeviceEXT>> ranked;
  for (EGLDeviceEXT dev : devices) {
    const char* ext = eglQueryDeviceStringEXT(dev, EGL_EXTENSIONS);
    int rank = hasExtension(ext, "EGL_MESA_device_software") ? 2 : 1;
    EGLAttrib cudaIndex = -1;
    if (cudaDevice >= 0 && hasExtension(ext, "EGL_NV_device_cuda") &&
        eglQueryDeviceAttribEXT(dev, EGL_CUDA_DEVICE_NV, &cudaIndex) && cudaIndex == cudaDevice)
      rank = 0;
    ranked.emplace_back(rank, dev);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });

  std::string reasons;
  for (size_t i = 0; i < ranked.size(); ++i) {
    EGLDisplay dpy = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, ranked[i].second, nullptr);
    EGLContext ctx = EGL_NO_CONTEXT;
    EGLSurface surf = EGL_NO_SURFACE;
    const std::string why = tryDisplay(dpy, &ctx, &surf);
    if (why.empty()) {
      std::unique_ptr<GlContext> c(new GlContext);
      c->display_ = dpy;
      c->context_ = ctx;
      c->surface_ = surf;
      c->description_ = currentContextDescription();
      return c;
    }
    reasons +=
        (reasons.empty() ? "" : "; ") + std::string("device ") + std::to_string(i) + ": " + why;
  }
  throw GlUnavailable("no OpenGL 4.5 context: " + reasons);
}

GlContext::~GlContext() {
  if (!display_) return;
  if (eglGetCurrentContext() == context_)
    eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  if (surface_) eglDestroySurface(display_, surface_);
  eglDestroyContext(display_, context_);
}

bool GlContext::isCurrent() const {
  return eglGetCurrentContext() == context_;
}

void GlContext::makeCurrent() {
  if (!eglMakeCurrent(display_, surface_, surface_, context_))
    throw GlError(eglErrorText("eglMakeCurrent"));
}

std::string currentContextDescription() {
  const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  const char* version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
  return std::string(renderer ? renderer : "?") + ", OpenGL " + (version ? version : "?");
}

void useExternalContext(bool external) {
  externalContext = external;
}

void ensureCurrentContext() {
  if (externalContext) return;
  // One headless context per process, made on first use; a failure is remembered so every
  // factory reports the same reason cheaply.
  static std::mutex mutex;
  static std::unique_ptr<GlContext> shared;
  static std::string failure;
  std::lock_guard<std::mutex> lock(mutex);
  if (!failure.empty()) throw GlUnavailable(failure);
  if (shared) {
    if (!shared->isCurrent()) shared->makeCurrent();
    return;
  }
  try {
    int cudaDevice = -1;
    if (cudaDeviceAvailable()) cudaGetDevice(&cudaDevice);
    shared = GlContext::createHeadless(cudaDevice);
    GLint major = 0, minor = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    if (major * 10 + minor < 45)
      throw GlUnavailable("no OpenGL 4.5 context: the driver gives " + std::to_string(major) + "." +
                          std::to_string(minor) + " (" + shared->description() + ")");
    if (epoxy_has_gl_extension("GL_KHR_debug") || major * 10 + minor >= 43) {
      glEnable(GL_DEBUG_OUTPUT);
      glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
      glDebugMessageCallback(onDebugMessage, nullptr);
    }
  } catch (const GlUnavailable& e) {
    shared.reset();
    failure = e.what();
    throw;
  }
}

bool glAvailable(std::string* why) {
  try {
    ensureCurrentContext();
    return true;
  } catch (const GlUnavailable& e) {
    if (why) *why = e.what();
    return false;
  }
}

}  // namespace srt::gl
