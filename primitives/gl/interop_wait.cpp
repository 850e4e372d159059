#include "primitives/gl/interop_wait.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "primitives/common/cuda_check.h"
#include "primitives/gl/gl_context.h"

namespace srt::gl {
namespace {

using Clock = std::chrono::steady_clock;

int traceState = -1;  // -1: not read from the environment yet

std::string secondsText(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", s);
  return buf;
}

// Polls `ready` (true: done) until the deadline: yielding for the first 2 ms (a compaction's
// waits are mostly shorter, and a 200 us sleep per poll added up to that much to each), then
// sleeping 50 us between polls.
template <typename Ready>
bool pollUntil(double seconds, Ready ready) {
  const auto start = Clock::now();
  const auto end = start + std::chrono::duration<double>(seconds);
  const auto spinUntil = start + std::chrono::milliseconds(2);
  for (;;) {
    if (ready()) return true;
    const auto now = Clock::now();
    if (now > end) return false;
    if (now < spinUntil)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

void waitCuda(cudaError_t (*query)(void*), void* object, const std::string& what, double seconds) {
  if (seconds <= 0) seconds = interopDeadlineSeconds();
  cudaError_t status = cudaSuccess;
  const bool done = pollUntil(seconds, [&] {
    status = query(object);
    return status != cudaErrorNotReady;
  });
  if (!done)
    throw std::runtime_error(what + ": the CUDA work did not finish within " +
                             secondsText(seconds) +
                             " (a hand-off CUDA waits for never came; SRT_GL_INTEROP_TIMEOUT "
                             "sets the deadline)");
  if (status != cudaSuccess) throwCudaError(status, what.c_str(), __FILE__, __LINE__);
}

}  // namespace

double interopDeadlineSeconds() {
  static const double s = [] {
    const char* e = std::getenv("SRT_GL_INTEROP_TIMEOUT");
    const double v = e ? std::atof(e) : 0;
    return v > 0 ? v : 5.0;
  }();
  return s;
}

void waitGl(const std::string& what, double seconds) {
  const GLsync fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  if (!fence) throw GlError(what + ": glFenceSync failed");
  waitGlFence(fence, what, seconds);
}

void waitGlFence(GLsync fence, const std::string& what, double seconds) {
  if (seconds <= 0) seconds = interopDeadlineSeconds();
  GLbitfield flags = GL_SYNC_FLUSH_COMMANDS_BIT;
  GLenum r = GL_TIMEOUT_EXPIRED;
  const bool done = pollUntil(seconds, [&] {
    // A poll, not a wait in the driver: that one woke ~70 us after GL was done, and the GPU
    // idles until the host issues the next step.
    r = glClientWaitSync(fence, flags, 0);
    flags = 0;
    return r != GL_TIMEOUT_EXPIRED;
  });
  glDeleteSync(fence);
  if (!done)
    throw GlError(what + ": GL did not finish within " + secondsText(seconds) +
                  " (a hand-off GL waits for never came; SRT_GL_INTEROP_TIMEOUT sets the "
                  "deadline)");
  if (r == GL_WAIT_FAILED) throw GlError(what + ": glClientWaitSync failed");
}

void waitCudaStream(cudaStream_t stream, const std::string& what, double seconds) {
  waitCuda([](void* s) { return cudaStreamQuery(static_cast<cudaStream_t>(s)); }, stream, what,
           seconds);
}

void waitCudaEvent(cudaEvent_t event, const std::string& what, double seconds) {
  waitCuda([](void* e) { return cudaEventQuery(static_cast<cudaEvent_t>(e)); }, event, what,
           seconds);
}

void setInteropTrace(bool on) {
  traceState = on ? 1 : 0;
}

bool interopTraceOn() {
  if (traceState < 0) traceState = std::getenv("SRT_GL_INTEROP_TRACE") ? 1 : 0;
  return traceState == 1;
}

void interopTrace(const std::string& step) {
  if (!interopTraceOn()) return;
  std::fprintf(stderr, "[interop] %s\n", step.c_str());
  std::fflush(stderr);
}

}  // namespace srt::gl
