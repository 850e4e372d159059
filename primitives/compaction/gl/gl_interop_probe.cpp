// The round trips that check an interop before it is used (gl_interop.h): a small buffer of the
// candidate kind goes from the stream side to GL and back, with the candidate's hand-offs and
// every wait under the interop deadline.
#include <cstring>
#include <stdexcept>

#include "primitives/compaction/gl/gl_interop.h"
#include "primitives/gl/gl_context.h"
#include "primitives/gl/interop_wait.h"

namespace srt::compaction::gl {
namespace {

using srt::gl::ExternalSource;
using srt::gl::StreamSide;
using srt::gl::interopTrace;
using srt::gl::waitCudaStream;
using srt::gl::waitGl;

// The probes' pattern: every word different, none zero.
std::vector<uint32_t> probePattern(size_t words) {
  std::vector<uint32_t> p(words);
  for (size_t i = 0; i < words; ++i) p[i] = 0x9e3779b9u * uint32_t(i + 1);
  return p;
}
// Where `got` first differs from `want`, for the error.
std::string firstDifference(const std::vector<uint32_t>& got, const std::vector<uint32_t>& want) {
  for (size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i])
      return "word " + std::to_string(i) + " is " + std::to_string(got[i]) + ", want " +
             std::to_string(want[i]);
  return "";
}

}  // namespace

// A round trip through a small buffer of the candidate kind, with the candidate hand-offs: the
// stream side writes, GL reads and then writes, the stream side reads. Every wait has the
// interop deadline, so a hand-off that never arrives is an error here, not a hang later.
bool StreamBuffers::tryExternal(ExternalSource source, bool semaphores, std::string* why) {
  const StreamSide side = space_ == MemorySpace::Cuda ? StreamSide::Cuda : StreamSide::Host;
  const std::string name = std::string(srt::gl::toString(source)) +
                           (semaphores ? " with semaphores" : " with host waits");
  try {
    interopTrace("probe " + name + ": make the hand-offs");
    // (A GL context on another GPU than CUDA's fails the imports or the round trip below.)
    auto handOff = std::make_unique<srt::gl::HandOff>(side, semaphores);
    const size_t words = 4096, bytes = words * 4;
    interopTrace("probe " + name + ": make a " + std::to_string(bytes) + "-byte shared buffer");
    srt::gl::ExternalBuffer probe(source, side, bytes);
    const std::vector<uint32_t> pattern = probePattern(words);
    std::vector<uint32_t> back(words);
    interopTrace("probe " + name + ": the stream side writes the pattern");
    if (side == StreamSide::Cuda) {
      SRT_CUDA_CHECK(
          cudaMemcpyAsync(probe.pointer(), pattern.data(), bytes, cudaMemcpyHostToDevice));
      waitCudaStream(nullptr, "probe " + name + ": CUDA's write");
    } else {
      std::memcpy(probe.pointer(), pattern.data(), bytes);
    }
    handOff->toGl(nullptr, {probe.id()});
    interopTrace("probe " + name + ": GL reads it back (fence, then glGetNamedBufferSubData)");
    waitGl("probe " + name + ": GL's wait for the stream side");
    SRT_GL_CHECK(glGetNamedBufferSubData(probe.id(), 0, GLsizeiptr(bytes), back.data()));
    if (back != pattern)
      throw std::runtime_error("GL read other bytes than the stream side wrote (" +
                               firstDifference(back, pattern) + ")");
    const uint32_t value = 0x5aa5c33cu;
    interopTrace("probe " + name + ": GL overwrites it (glClearNamedBufferSubData)");
    SRT_GL_CHECK(glClearNamedBufferSubData(probe.id(), GL_R32UI, 0, GLsizeiptr(bytes),
                                           GL_RED_INTEGER, GL_UNSIGNED_INT, &value));
    handOff->toStream(nullptr, {probe.id()});
    interopTrace("probe " + name + ": the stream side reads GL's value");
    if (side == StreamSide::Cuda) {
      SRT_CUDA_CHECK(cudaMemcpyAsync(back.data(), probe.pointer(), bytes, cudaMemcpyDeviceToHost));
      waitCudaStream(nullptr, "probe " + name + ": CUDA's read after GL's write");
    } else {
      std::memcpy(back.data(), probe.pointer(), bytes);
    }
    if (back != std::vector<uint32_t>(words, value))
      throw std::runtime_error("the stream side read other bytes than GL wrote (" +
                               firstDifference(back, std::vector<uint32_t>(words, value)) + ")");
    interopTrace("probe " + name + ": passed");
    handOff_ = std::move(handOff);
    source_ = source;
    mode_ = Mode::External;
    description_ = std::string("external memory (") + srt::gl::toString(source) +
                   ", GL_EXT_memory_object_fd), " +
                   (semaphores ? "Vulkan-made semaphores (GL_EXT_semaphore_fd)" : "host waits");
    return true;
  } catch (const std::exception& e) {
    interopTrace("probe " + name + ": FAILED: " + e.what());
    *why = e.what();
    return false;
  }
}

// The same round trip through a registered buffer: CUDA writes into the mapping from device
// memory (as uploads do), GL reads the buffer on the host and through a GPU copy, GL overwrites
// it, CUDA reads the mapping.
bool StreamBuffers::tryRegistered(std::string* why) {
  try {
    const size_t words = 4096, bytes = words * 4;
    const std::vector<uint32_t> pattern = probePattern(words);
    std::vector<uint32_t> back(words);
    RawBuffer device(MemorySpace::Cuda, bytes);
    device.upload(pattern.data(), bytes);
    interopTrace("probe registered: cudaGraphicsGLRegisterBuffer");
    srt::gl::CudaGlBuffer probe;
    probe.reserve(bytes, cudaGraphicsRegisterFlagsNone);
    {
      interopTrace("probe registered: map, CUDA copies the pattern in, unmap");
      srt::gl::CudaGlMapping map({&probe}, nullptr);
      SRT_CUDA_CHECK(cudaMemcpyAsync(map.pointer(0), device.data(), bytes,
                                     cudaMemcpyDeviceToDevice, nullptr));
      map.unmap();
      waitCudaStream(nullptr, "probe registered: CUDA's write and unmap");
    }
    interopTrace("probe registered: GL reads it (glGetNamedBufferSubData, and a GPU copy)");
    waitGl("probe registered: GL after the unmap");
    SRT_GL_CHECK(glGetNamedBufferSubData(probe.id(), 0, GLsizeiptr(bytes), back.data()));
    if (back != pattern)
      throw std::runtime_error("GL read other bytes than CUDA wrote into the mapping (" +
                               firstDifference(back, pattern) + ")");
    srt::gl::BufferObject copy(bytes);
    SRT_GL_CHECK(glCopyNamedBufferSubData(probe.id(), copy.id(), 0, 0, GLsizeiptr(bytes)));
    waitGl("probe registered: GL's copy");
    SRT_GL_CHECK(glGetNamedBufferSubData(copy.id(), 0, GLsizeiptr(bytes), back.data()));
    if (back != pattern)
      throw std::runtime_error("a GL copy of the buffer CUDA wrote holds other bytes (" +
                               firstDifference(back, pattern) + ")");
    const uint32_t value = 0x5aa5c33cu;
    interopTrace("probe registered: GL overwrites it, CUDA maps and reads it");
    SRT_GL_CHECK(glClearNamedBufferSubData(probe.id(), GL_R32UI, 0, GLsizeiptr(bytes),
                                           GL_RED_INTEGER, GL_UNSIGNED_INT, &value));
    waitGl("probe registered: GL's clear");
    {
      srt::gl::CudaGlMapping map({&probe}, nullptr);
      SRT_CUDA_CHECK(cudaMemcpyAsync(device.data(), map.pointer(0), bytes,
                                     cudaMemcpyDeviceToDevice, nullptr));
      map.unmap();
      waitCudaStream(nullptr, "probe registered: CUDA's read and unmap");
    }
    device.download(back.data(), bytes);
    if (back != std::vector<uint32_t>(words, value))
      throw std::runtime_error("CUDA read other bytes through the mapping than GL wrote (" +
                               firstDifference(back, std::vector<uint32_t>(words, value)) + ")");
    interopTrace("probe registered: passed");
    return true;
  } catch (const std::exception& e) {
    interopTrace(std::string("probe registered: FAILED: ") + e.what());
    *why = e.what();
    return false;
  }
}

}  // namespace srt::compaction::gl
