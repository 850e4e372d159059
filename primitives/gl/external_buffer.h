// Buffers that the stream's side (CUDA, or the host in tests) and GL address at the same time,
// with no copy between them, and the hand-offs that order their work on those buffers.
//
// The memory is allocated once (grown by the owner when needed) on the side that can export it
// and imported by the others as an opaque file descriptor (GL_EXT_memory_object_fd):
//   - Vulkan: a dedicated exportable allocation that CUDA (cudaImportExternalMemory) and GL both
//     import, the pairing the CUDA programming guide describes for OpenGL interop;
//   - CUDA virtual memory management: cuMemCreate with a POSIX file descriptor handle, mapped
//     into CUDA's address space and imported by GL (no Vulkan needed).
// Hand-offs are binary semaphores made by Vulkan and imported by both (GL_EXT_semaphore_fd,
// cudaImportExternalSemaphore), so neither side's host thread waits; or, where those are
// missing, host waits (a stream synchronize one way, a GL fence the other).
#pragma once

#include <epoxy/gl.h>
// After epoxy (see cuda_gl_buffer.h).
#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "primitives/gl/gl_objects.h"
#include "primitives/gl/vulkan_export.h"

namespace srt::gl {

enum class StreamSide { Cuda, Host };
enum class ExternalSource { Vulkan, CudaVmm };
const char* toString(ExternalSource s);  // "Vulkan", "CUDA VMM"

// The GL context's device UUID (GL_EXT_memory_object); false when GL does not give one.
bool glDeviceUuid(vulkan::Uuid* uuid);
// The current CUDA device's UUID; false without a device.
bool cudaDeviceUuid(vulkan::Uuid* uuid);
// Whether the current GL context can import memory (GL_EXT_memory_object_fd) and, when
// `semaphores`, semaphores (GL_EXT_semaphore_fd); `why` names what is missing.
bool glCanImport(bool semaphores, std::string* why);

// A GL buffer of `bytes` whose storage is memory imported from `source`; pointer() is the same
// bytes for the stream side (a CUDA device pointer, or a host mapping: Vulkan only). Throws
// (GlError, CudaError, std::runtime_error) naming the step that failed. The owner makes sure
// neither side still uses the buffer before destroying it.
class ExternalBuffer {
 public:
  ExternalBuffer(ExternalSource source, StreamSide side, size_t bytes);
  ~ExternalBuffer();
  ExternalBuffer(const ExternalBuffer&) = delete;
  ExternalBuffer& operator=(const ExternalBuffer&) = delete;
  GLuint id() const { return buffer_.id(); }
  size_t bytes() const { return buffer_.bytes(); }
  void* pointer() const { return pointer_; }

 private:
  void importIntoGl(int fd, size_t allocationBytes, size_t bufferBytes, bool dedicated);
  void release() noexcept;
  std::unique_ptr<vulkan::ExportableMemory> vulkan_;
  cudaExternalMemory_t cudaMemory_ = nullptr;  // Vulkan memory imported into CUDA
  unsigned long long vmmHandle_ = 0, vmmAddress_ = 0;
  size_t vmmBytes_ = 0;
  void* pointer_ = nullptr;
  GLuint memoryObject_ = 0;
  BufferObject buffer_;
};

// Orders the stream side's work and GL's on shared buffers. Throws when semaphores are asked
// for and cannot be made (the caller decides whether to fall back to host waits).
class HandOff {
 public:
  HandOff(StreamSide side, bool semaphores);
  ~HandOff();
  HandOff(const HandOff&) = delete;
  HandOff& operator=(const HandOff&) = delete;
  bool semaphores() const { return glSemaphores_[0] != 0; }
  // GL commands issued after this come after the stream-side work issued before it (CUDA:
  // queued on `stream`; the host: done).
  void toGl(cudaStream_t stream, const std::vector<GLuint>& buffers);
  // Stream-side work issued after this comes after the GL commands issued before it.
  void toStream(cudaStream_t stream, const std::vector<GLuint>& buffers);

 private:
  void release() noexcept;
  StreamSide side_;
  // [0]: the stream side signals, GL waits; [1]: GL signals, CUDA waits.
  std::unique_ptr<vulkan::ExportableSemaphore> made_[2];
  GLuint glSemaphores_[2] = {0, 0};
  cudaExternalSemaphore_t cudaSemaphores_[2] = {nullptr, nullptr};
  // Hand-offs checked by a host wait with a deadline (the first few; then trusted).
  static constexpr int kCheckedHandOffs = 3;
  int checkedToGl_ = 0, checkedToStream_ = 0;
};

}  // namespace srt::gl
