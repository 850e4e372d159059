// Host waits with a deadline for the CUDA-GL interop, and a step trace. A hand-off that never
// completes (a semaphore signal the other API never sees, a driver that loses a mapping) must
// end in an exception that names the interop and the step, never in a hang: GL is waited on
// through a fence polled with glClientWaitSync, CUDA by polling cudaStreamQuery/cudaEventQuery.
#pragma once

#include <epoxy/gl.h>
// After epoxy (see cuda_gl_buffer.h).
#include <cuda_runtime_api.h>

#include <string>

namespace srt::gl {

// Seconds a hand-off may take: SRT_GL_INTEROP_TIMEOUT in the environment, else 5.
double interopDeadlineSeconds();

// The GL commands issued so far are done within `seconds` (default: the interop deadline), else
// throws GlError("<what>: GL did not finish within N s").
void waitGl(const std::string& what, double seconds = 0);
// The same for the commands before `fence`, which it deletes.
void waitGlFence(GLsync fence, const std::string& what, double seconds = 0);
// The work queued on `stream` is done within the deadline; a CUDA error is thrown as CudaError,
// a timeout as std::runtime_error naming `what`.
void waitCudaStream(cudaStream_t stream, const std::string& what, double seconds = 0);
void waitCudaEvent(cudaEvent_t event, const std::string& what, double seconds = 0);

// With SRT_GL_INTEROP_TRACE set (or after setInteropTrace(true)), prints "[interop] <step>" to
// stderr, flushed, before each step: the last line before a hang names the step that hung.
void setInteropTrace(bool on);
bool interopTraceOn();
void interopTrace(const std::string& step);

}  // namespace srt::gl
