// A headless OpenGL 4.5 core context through EGL's device platform (no window, no X server), and
// checked GL calls that throw with file, line and expression like SRT_CUDA_CHECK.
//
// The GL algorithms run on whatever context is current: the viewer's GLFW context once it calls
// useExternalContext(), or else a process-wide headless one that ensureCurrentContext() makes on
// first use. Only GlContext::createHeadless() is EGL-specific. GL work stays on one thread: the
// headless context is made current on the thread that calls.
#pragma once

#include <epoxy/gl.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace srt::gl {

class GlError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// No OpenGL 4.5 core context could be made; the message says why ("no OpenGL 4.5 context: ...").
class GlUnavailable : public GlError {
 public:
  using GlError::GlError;
};

[[noreturn]] void throwGlError(GLenum err, const char* expr, const char* file, int line);

class GlContext {
 public:
  // Picks an EGL device: the one driving CUDA device `cudaDevice` when >= 0 and the driver says
  // (EGL_CUDA_DEVICE_NV), else the first hardware device, else a software one (Mesa llvmpipe).
  // SRT_GL_DEBUG=1 in the environment asks for a debug context. Throws GlUnavailable.
  static std::unique_ptr<GlContext> createHeadless(int cudaDevice = -1);
  ~GlContext();
  GlContext(const GlContext&) = delete;
  GlContext& operator=(const GlContext&) = delete;

  void makeCurrent();
  bool isCurrent() const;
  const std::string& description() const { return description_; }  // "llvmpipe ..., 4.5 (Core ...)"

 private:
  GlContext() = default;
  void* display_ = nullptr;  // EGLDisplay
  void* context_ = nullptr;  // EGLContext
  void* surface_ = nullptr;  // EGLSurface, a 1x1 pbuffer when surfaceless is not supported
  std::string description_;
};

// The viewer calls this once its own context (GLFW) is current on the rendering thread: the
// algorithms then use that context and never make the headless one.
void useExternalContext(bool external);
// Makes sure a GL 4.5 context is current on this thread (the external one or the shared headless
// one, made on first use), checks the version, hooks debug output. Throws GlUnavailable.
void ensureCurrentContext();
// Whether ensureCurrentContext() succeeds here; `why` receives the reason when it does not.
bool glAvailable(std::string* why = nullptr);
// Renderer and version of the current context.
std::string currentContextDescription();

}  // namespace srt::gl

// Checks glGetError() after `expr`. GL errors are sticky until read, so an error raised by an
// unchecked call before is reported here too: check every call that can fail.
#define SRT_GL_CHECK(expr)                                             \
  do {                                                                 \
    expr;                                                              \
    const GLenum srt_gl_err_ = glGetError();                           \
    if (srt_gl_err_ != GL_NO_ERROR)                                    \
      ::srt::gl::throwGlError(srt_gl_err_, #expr, __FILE__, __LINE__); \
  } while (0)
