// Choosing the interop (gl_interop.h): the asked kind or auto's candidates in order, each checked
// before it is used by a round trip (a small buffer of the candidate kind goes from the stream
// side to GL and back, with the candidate's hand-offs and every wait under the interop deadline),
// and the fall-back to host copies when a later check fails.
#include <cstdio>
#include <cstdlib>
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

const char* interopName(InteropKind k) {
  switch (k) {
    case InteropKind::Vulkan:
      return "vulkan";
    case InteropKind::Vmm:
      return "vmm";
    case InteropKind::Registered:
      return "registered";
    case InteropKind::Host:
      return "host";
    case InteropKind::Auto:
      break;
  }
  return "auto";
}

}  // namespace

void StreamBuffers::resolve(MemorySpace space) {
  if (mode_ != Mode::None && space_ == space) return;
  // A compactor used on one memory space and then the other starts over.
  quiesce();
  in_.clear();
  out_.clear();
  index_ = Slot();
  handOff_.reset();
  mode_ = Mode::None;
  space_ = space;
  const InteropKind kind = options_.interop;
  const std::string asked = std::string("GL compaction: interop=") + interopName(kind);
  if (space_ == MemorySpace::Host) {
    if (kind == InteropKind::Vmm || kind == InteropKind::Registered)
      throw std::invalid_argument(asked + " needs streams in CUDA memory");
    if (options_.sync == SyncKind::Semaphores)
      throw std::invalid_argument("GL compaction: sync=semaphores needs streams in CUDA memory");
    if (kind == InteropKind::Vulkan) {
      std::string why;
      if (!tryExternal(ExternalSource::Vulkan, false, &why))
        throw std::runtime_error(asked + ": " + why);
      description_ += " (host side mapped)";
      return;
    }
    mode_ = Mode::HostUploads;
    description_ = "host memory: uploads and read-backs";
    return;
  }
  for (cudaEvent_t& e : events_)
    if (!e) SRT_CUDA_CHECK(cudaEventCreate(&e));
  resolveCuda();
  interopTrace("interop chosen: " + description_);
}

// CUDA streams: the asked interop, or auto's first candidate whose round trip passes.
void StreamBuffers::resolveCuda() {
  const InteropKind kind = options_.interop;
  const std::string asked = std::string("GL compaction: interop=") + interopName(kind);
  if (kind == InteropKind::Host || kind == InteropKind::Registered) {
    if (options_.sync != SyncKind::Auto)
      throw std::invalid_argument("GL compaction: sync= applies to external memory (interop=" +
                                  std::string(interopName(kind)) + ")");
  }
  std::string reasons;
  auto note = [&](const std::string& what, const std::string& why) {
    reasons += (reasons.empty() ? "" : "; ") + what + ": " + why;
  };
  auto attempt = [&](ExternalSource source) {
    for (bool semaphores : {true, false}) {
      if (options_.sync == (semaphores ? SyncKind::Fences : SyncKind::Semaphores)) continue;
      std::string why;
      if (tryExternal(source, semaphores, &why)) return true;
      note(std::string(srt::gl::toString(source)) + (semaphores ? " with semaphores" : ""), why);
    }
    return false;
  };
  // sync= asks for external memory, which auto otherwise leaves out.
  const bool autoExternal = kind == InteropKind::Auto && (std::getenv("SRT_GL_INTEROP_EXTERNAL") ||
                                                          options_.sync != SyncKind::Auto);
  if (kind == InteropKind::Vulkan || autoExternal) {
    if (attempt(ExternalSource::Vulkan)) return;
  }
  if (kind == InteropKind::Vmm || autoExternal) {
    if (attempt(ExternalSource::CudaVmm)) return;
  }
  if (kind == InteropKind::Vulkan || kind == InteropKind::Vmm)
    throw std::runtime_error(asked + " failed: " + reasons);
  if (kind == InteropKind::Registered || kind == InteropKind::Auto) {
    std::string why;
    if (tryRegistered(&why)) {
      mode_ = Mode::Registered;
      description_ = options_.holdMapping ? "registered GL buffers, mapped once a call and held"
                                          : "registered GL buffers, mapped per use";
      if (!reasons.empty()) description_ += " [not: " + reasons + "]";
      return;
    }
    if (kind == InteropKind::Registered)
      throw std::runtime_error(asked +
                               ": the round trip through a registered buffer failed: " + why);
    note("registered", why);
    std::fprintf(stderr, "streamrt: note: GL compaction takes host copies (%s)\n", reasons.c_str());
  }
  mode_ = Mode::HostUploads;
  description_ = "host copies (CUDA to host to GL and back)";
  if (!reasons.empty()) description_ += " [not: " + reasons + "]";
}

void StreamBuffers::fallBackToHostCopies(const std::string& why) {
  try {
    quiesce();
  } catch (const std::exception& e) {
    interopTrace(std::string("fall back: the old interop did not finish: ") + e.what());
  }
  in_.clear();
  out_.clear();
  index_ = Slot();
  handOff_.reset();
  for (bool& r : recorded_) r = false;
  pending_ = false;
  held_.reset();  // unmaps (never throws) before the buffers go
  std::fprintf(stderr, "streamrt: note: GL compaction takes host copies (%s: %s)\n",
               description_.c_str(), why.c_str());
  description_ =
      "host copies (CUDA to host to GL and back) [not: " + description_ + ": " + why + "]";
  mode_ = Mode::HostUploads;
}

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
