#include "primitives/compaction/gl/gl_interop.h"

#include <chrono>
#include <cstring>
#include <functional>
#include <stdexcept>

#include "primitives/compaction/gl/gl_stream_gather.h"
#include "primitives/gl/gl_context.h"
#include "primitives/gl/interop_wait.h"
#include "primitives/gl/texel_readback.h"

namespace srt::compaction::gl {
namespace {

using Clock = std::chrono::steady_clock;
using srt::gl::StreamSide;
using srt::gl::waitCudaStream;
using srt::gl::waitGl;

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}
// Registered inputs: CUDA writes only the stream's bytes, not the whole buffer, so the buffer is
// not write-discard (which promises every byte is overwritten).
constexpr unsigned kRegisterInput = cudaGraphicsRegisterFlagsNone;
// Room for `bytes` rounded up to whole 16-byte texels.
size_t room(size_t bytes) {
  return (std::max<size_t>(bytes, 16) + 15) / 16 * 16;
}
}  // namespace

GLuint StreamBuffers::slotId(const Slot& s) {
  return s.external ? s.external->id() : s.registered ? s.registered->id() : s.plain.id();
}

size_t StreamBuffers::slotBytes(const Slot& s) {
  return s.external ? s.external->bytes() : s.registered ? s.registered->bytes() : s.plain.bytes();
}

void* StreamBuffers::pointer(const Slot& s) const {
  return s.external ? s.external->pointer() : nullptr;
}

StreamBuffers::~StreamBuffers() {
  try {
    quiesce();
  } catch (...) {
  }
  for (cudaEvent_t e : events_)
    if (e) cudaEventDestroy(e);
}

void StreamBuffers::quiesce() {
  if (space_ == MemorySpace::Cuda && recorded_[3])
    srt::gl::waitCudaEvent(events_[3], "GL interop: the last call's CUDA work");
  if (mode_ != Mode::None) waitGl("GL interop: the last call's GL work");
  releaseHeld(nullptr);  // the last use is done; its stream may be gone
}

void StreamBuffers::mapHeld(cudaStream_t stream, bool withIndices) {
  if (held_ && (heldIndices_ || !withIndices)) {
    held_->setStream(stream);
    return;
  }
  releaseHeld(stream);
  const auto t0 = Clock::now();
  std::vector<srt::gl::CudaGlBuffer*> buffers{in_[0].registered.get()};
  if (withIndices) buffers.push_back(index_.registered.get());
  held_ = std::make_unique<srt::gl::CudaGlMapping>(buffers, stream);
  heldIndices_ = withIndices;
  times_.mapMs += msSince(t0);
}

void StreamBuffers::releaseHeld(cudaStream_t stream) {
  if (!held_) return;
  const auto t0 = Clock::now();
  held_->setStream(stream);
  held_->unmap();
  held_.reset();
  times_.unmapMs += msSince(t0);
}

void StreamBuffers::recordEvent(int k, cudaStream_t stream) {
  SRT_CUDA_CHECK(cudaEventRecord(events_[k], stream));
  recorded_[k] = true;
}

double StreamBuffers::eventMs(int from, int to) const {
  if (!recorded_[from] || !recorded_[to]) return 0;
  float ms = 0;
  SRT_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[from], events_[to]));
  return ms;
}

std::vector<GLuint> StreamBuffers::sharedIds() const {
  std::vector<GLuint> ids;
  for (const auto* slots : {&in_, &out_})
    for (const Slot& s : *slots)
      if (s.external) ids.push_back(s.external->id());
  if (index_.external) ids.push_back(index_.external->id());
  return ids;
}

void StreamBuffers::ensure(Slot& s, size_t bytes, unsigned registerFlags) {
  if (slotId(s) && slotBytes(s) >= bytes) return;
  if (slotId(s)) quiesce();                      // the old buffer may still be read on either side
  const size_t grown = room(bytes + bytes / 2);  // half again, so growth stays rare
  switch (mode_) {
    case Mode::HostUploads:
      s.plain = srt::gl::BufferObject(grown);
      break;
    case Mode::External:
      s.external.reset();
      s.external = std::make_unique<srt::gl::ExternalBuffer>(
          source_, space_ == MemorySpace::Cuda ? StreamSide::Cuda : StreamSide::Host, grown);
      break;
    case Mode::Registered:
      if (!s.registered) s.registered = std::make_unique<srt::gl::CudaGlBuffer>();
      s.registered->reserve(bytes, registerFlags);
      break;
    case Mode::None:
      break;
  }
}

void StreamBuffers::prepare(MemorySpace space, uint32_t count) {
  resolve(space);
  if (mode_ == Mode::HostUploads) return;  // uploads grow their buffers on first use
  if (in_.empty()) in_.resize(1);
  ensure(in_[0], room(count), kRegisterInput);
  ensure(index_, room(size_t(count) * 4), cudaGraphicsRegisterFlagsReadOnly);
}

void StreamBuffers::upload(const Request& r, bool fields) {
  resolve(r.memory);
  const auto t0 = Clock::now();
  times_ = Times{};
  for (int k = 0; k < 3; ++k) recorded_[k] = false;  // [3] stays: the last use
  std::vector<size_t> bytes{room(r.count)};
  for (int f = 0; f < r.numFields && fields; ++f)
    bytes.push_back(room(size_t(r.count) * r.fields[f].bytes));
  if (in_.size() < bytes.size()) in_.resize(bytes.size());
  const bool cuda = space_ == MemorySpace::Cuda;
  // The last call's stream-side reads may have run on another stream.
  if (cuda && recorded_[3] && lastStream_ != r.stream)
    SRT_CUDA_CHECK(cudaStreamWaitEvent(r.stream, events_[3]));
  for (size_t i = 0; i < bytes.size(); ++i) ensure(in_[i], bytes[i], kRegisterInput);
  auto sourceOf = [&](size_t i) { return i == 0 ? (const void*)r.keep : r.fields[i - 1].src; };
  auto sizeOf = [&](size_t i) {
    return i == 0 ? size_t(r.count) : size_t(r.count) * r.fields[i - 1].bytes;
  };
  if (mode_ == Mode::HostUploads) {
    for (size_t i = 0; i < bytes.size(); ++i)
      SRT_GL_CHECK(glNamedBufferSubData(slotId(in_[i]), 0, GLsizeiptr(sizeOf(i)),
                                        staged(r, i, sourceOf(i), sizeOf(i))));
  } else if (mode_ == Mode::External && !cuda) {
    for (size_t i = 0; i < bytes.size(); ++i) std::memcpy(pointer(in_[i]), sourceOf(i), sizeOf(i));
    handOff_->toGl(nullptr, sharedIds());
  } else if (mode_ == Mode::External) {
    recordEvent(0, r.stream);
    for (size_t i = 0; i < bytes.size(); ++i)
      SRT_CUDA_CHECK(cudaMemcpyAsync(pointer(in_[i]), sourceOf(i), sizeOf(i),
                                     cudaMemcpyDeviceToDevice, r.stream));
    recordEvent(1, r.stream);
    handOff_->toGl(r.stream, sharedIds());
  } else if (holdsMapping(fields)) {
    // Mapped since the last call's gather (or now): the copy goes in, and the unmap orders it
    // before GL's passes, so the host does not wait.
    mapHeld(r.stream, false);
    const auto tc = Clock::now();
    SRT_CUDA_CHECK(
        cudaMemcpyAsync(held_->pointer(0), r.keep, r.count, cudaMemcpyDeviceToDevice, r.stream));
    times_.copyInMs += msSince(tc);
    releaseHeld(r.stream);
  } else {
    releaseHeld(r.stream);
    std::vector<srt::gl::CudaGlBuffer*> mapped;
    for (size_t i = 0; i < bytes.size(); ++i) mapped.push_back(in_[i].registered.get());
    auto tc = Clock::now();
    srt::gl::CudaGlMapping map(mapped, r.stream);
    times_.mapMs += msSince(tc);
    tc = Clock::now();
    for (size_t i = 0; i < bytes.size(); ++i)
      SRT_CUDA_CHECK(cudaMemcpyAsync(map.pointer(i), sourceOf(i), sizeOf(i),
                                     cudaMemcpyDeviceToDevice, r.stream));
    times_.copyInMs += msSince(tc);
    tc = Clock::now();
    map.unmap();
    times_.unmapMs += msSince(tc);
    tc = Clock::now();
    waitCudaStream(r.stream, "interop=registered: copies into the mapped buffers");
    times_.waitMs += msSince(tc);
  }
  lastStream_ = r.stream;
  times_.hostMs += msSince(t0);
}

// Host copies of CUDA streams: stream i's bytes brought to the host first (the host time covers
// the copy); host streams as they are.
const void* StreamBuffers::staged(const Request& r, size_t i, const void* src, size_t bytes) {
  if (!hostCopies()) return src;
  if (stageIn_.size() <= i) stageIn_.resize(i + 1);
  stageIn_[i].resize(bytes);
  const auto t0 = Clock::now();
  SRT_CUDA_CHECK(cudaMemcpyAsync(stageIn_[i].data(), src, bytes, cudaMemcpyDeviceToHost, r.stream));
  waitCudaStream(r.stream, "interop=host: copy from CUDA to the host");
  times_.copyInMs += msSince(t0);
  return stageIn_[i].data();
}

void StreamBuffers::readToSlot(const Output& from, Slot& to, uint64_t bytes) {
  if (bytes == 0) return;
  if (from.texture) {
    SRT_GL_CHECK(glBindBuffer(GL_PIXEL_PACK_BUFFER, slotId(to)));
    srt::gl::downloadStream(*from.texture, bytes, nullptr, true);
    SRT_GL_CHECK(glBindBuffer(GL_PIXEL_PACK_BUFFER, 0));
  } else {
    SRT_GL_CHECK(glCopyNamedBufferSubData(from.buffer, slotId(to), 0, 0, GLsizeiptr(bytes)));
  }
}

void StreamBuffers::readOutputs(const Request& r, uint32_t kept,
                                const std::vector<Output>& outputs) {
  const auto t0 = Clock::now();
  if (mode_ == Mode::HostUploads) {
    // Straight into the request's fields (host copies: into host memory first); the host waits
    // for GL here.
    SRT_GL_CHECK(glBindBuffer(GL_PIXEL_PACK_BUFFER, 0));
    if (hostCopies() && stageOut_.size() < size_t(r.numFields)) stageOut_.resize(r.numFields);
    for (int f = 0; f < r.numFields && kept > 0; ++f) {
      const uint64_t bytes = uint64_t(kept) * r.fields[f].bytes;
      void* to = r.fields[f].dst;
      if (hostCopies()) {
        stageOut_[f].resize(bytes);
        to = stageOut_[f].data();
      }
      if (outputs[f].texture)
        srt::gl::downloadStream(*outputs[f].texture, bytes, to, false);
      else
        SRT_GL_CHECK(glGetNamedBufferSubData(outputs[f].buffer, 0, GLsizeiptr(bytes), to));
    }
    times_.readbackWaited = true;
  } else {
    if (out_.size() < size_t(r.numFields)) out_.resize(size_t(r.numFields));
    for (int f = 0; f < r.numFields; ++f) {
      ensure(out_[f], room(size_t(r.count) * r.fields[f].bytes), cudaGraphicsRegisterFlagsReadOnly);
      readToSlot(outputs[f], out_[f], uint64_t(kept) * r.fields[f].bytes);
    }
  }
  times_.hostMs += msSince(t0);
}

bool StreamBuffers::readIndices(const Request& r, uint32_t kept, const Output& indices) {
  const auto t0 = Clock::now();
  const uint64_t bytes = uint64_t(kept) * 4;
  if (mode_ == Mode::HostUploads) {
    hostIndices_.resize(kept);
    if (kept > 0 && indices.texture && indices.bands)
      readBands(*indices.texture, kept);
    else if (kept > 0 && indices.texture)
      srt::gl::downloadStream(*indices.texture, bytes, hostIndices_.data(), false);
    else if (kept > 0)
      SRT_GL_CHECK(
          glGetNamedBufferSubData(indices.buffer, 0, GLsizeiptr(bytes), hostIndices_.data()));
    times_.readbackWaited = true;
  } else if (mode_ == Mode::Registered && options_.indicesFromTexture && indices.texture) {
    indexTexture_ = indices.texture;  // the gather reads it where it is
    indexBands_ = indices.bands;
    times_.hostMs += msSince(t0);
    return false;
  } else {
    ensure(index_, room(size_t(r.count) * 4), cudaGraphicsRegisterFlagsReadOnly);
    readToSlot(indices, index_, bytes);
  }
  times_.hostMs += msSince(t0);
  return true;
}

// External memory: GL's read-back before the stream side's work that follows.
void StreamBuffers::handToStream(const Request& r) {
  handOff_->toStream(space_ == MemorySpace::Cuda ? r.stream : nullptr, sharedIds());
  times_.readbackWaited = !handOff_->semaphores();
}

void StreamBuffers::copyOutputs(const Request& r, uint32_t kept) {
  const auto t0 = Clock::now();
  if (hostCopies()) {
    std::vector<const void*> from;
    for (int f = 0; f < r.numFields; ++f) from.push_back(stageOut_[f].data());
    onStream(r.stream, [&] { copyFields(r, kept, from, cudaMemcpyHostToDevice); });
  } else if (mode_ == Mode::HostUploads) {
    *r.numKept = kept;
  } else if (mode_ == Mode::External && space_ == MemorySpace::Host) {
    handToStream(r);
    for (int f = 0; f < r.numFields && kept > 0; ++f)
      std::memcpy(r.fields[f].dst, pointer(out_[f]), size_t(kept) * r.fields[f].bytes);
    *r.numKept = kept;
  } else {
    std::unique_ptr<srt::gl::CudaGlMapping> map;
    std::vector<const void*> from;
    if (mode_ == Mode::External) {
      handToStream(r);
      for (int f = 0; f < r.numFields; ++f) from.push_back(pointer(out_[f]));
    } else {
      std::vector<srt::gl::CudaGlBuffer*> mapped;
      for (int f = 0; f < r.numFields; ++f) mapped.push_back(out_[f].registered.get());
      const auto tm = Clock::now();
      map = std::make_unique<srt::gl::CudaGlMapping>(mapped, r.stream);
      times_.mapMs += msSince(tm);
      for (int f = 0; f < r.numFields; ++f) from.push_back(map->pointer(size_t(f)));
    }
    onStream(
        r.stream, [&] { copyFields(r, kept, from, cudaMemcpyDeviceToDevice); },
        [&] {
          if (map) map->unmap();
        });
  }
  times_.hostMs += msSince(t0);
}

void StreamBuffers::onStream(cudaStream_t stream, const std::function<void()>& moves,
                             const std::function<void()>& unmap) {
  recordEvent(2, stream);
  moves();
  recordEvent(3, stream);
  const auto t0 = Clock::now();
  if (unmap) unmap();
  times_.unmapMs += msSince(t0);
  pending_ = true;
}

void StreamBuffers::copyFields(const Request& r, uint32_t kept, const std::vector<const void*>& from,
                               cudaMemcpyKind kind) {
  for (int f = 0; f < r.numFields && kept > 0; ++f)
    SRT_CUDA_CHECK(cudaMemcpyAsync(r.fields[f].dst, from[f], size_t(kept) * r.fields[f].bytes,
                                   kind, r.stream));
  gatherOnCuda(r, nullptr, kept, r.stream);  // the count alone
}

void StreamBuffers::gatherByIndices(const Request& r, uint32_t kept) {
  times_.gathered = true;
  if (space_ == MemorySpace::Host) {
    const uint32_t* indices = hostIndices_.data();
    if (mode_ == Mode::External) {
      const auto t0 = Clock::now();
      handToStream(r);
      times_.hostMs += msSince(t0);
      indices = static_cast<const uint32_t*>(pointer(index_));
    }
    const auto t1 = Clock::now();
    gatherOnHost(r, indices, kept);
    times_.gatherMs = msSince(t1);
    return;
  }
  const auto t0 = Clock::now();
  if (indexTexture_) {
    gatherFromTexture(r, kept);
    times_.hostMs += msSince(t0);
    return;
  }
  std::unique_ptr<srt::gl::CudaGlMapping> map;
  const uint32_t* indices = nullptr;
  if (mode_ == Mode::External) {
    handToStream(r);
    indices = static_cast<const uint32_t*>(pointer(index_));
  } else if (hostCopies()) {
    if (deviceIndices_.bytes() < size_t(kept) * 4 + 4)
      deviceIndices_ = RawBuffer(MemorySpace::Cuda, room(size_t(r.count) * 4));
    if (kept > 0)
      SRT_CUDA_CHECK(cudaMemcpyAsync(deviceIndices_.data(), hostIndices_.data(), size_t(kept) * 4,
                                     cudaMemcpyHostToDevice, r.stream));
    indices = static_cast<const uint32_t*>(deviceIndices_.data());
  } else if (holdsMapping(false)) {
    // Maps after GL's read-back (the map orders it before the gather) and stays mapped.
    mapHeld(r.stream, true);
    indices = static_cast<const uint32_t*>(held_->pointer(1));
  } else {
    const auto tm = Clock::now();
    map = std::make_unique<srt::gl::CudaGlMapping>(
        std::vector<srt::gl::CudaGlBuffer*>{index_.registered.get()}, r.stream);
    times_.mapMs += msSince(tm);
    indices = static_cast<const uint32_t*>(map->pointer(0));
  }
  onStream(
      r.stream, [&] { gatherOnCuda(r, kept > 0 ? indices : nullptr, kept, r.stream); },
      [&] {
        if (map) map->unmap();
      });
  times_.hostMs += msSince(t0);
}

// layout=bands on the host: the whole bands holding the first `kept` indices, reordered.
void StreamBuffers::readBands(const srt::gl::Texture& t, uint32_t kept) {
  const uint32_t log2w = uint32_t(__builtin_ctz(t.width())), band = 2u << log2w;
  const uint32_t texels = (kept + 3) / 4, bands = (texels + band - 1) / band;
  std::vector<uint32_t> rows(size_t(bands) * band * 4);
  srt::gl::downloadTexels(t, srt::gl::Layout{bands * band, log2w}, GL_RGBA_INTEGER,
                          GL_UNSIGNED_INT, 16, rows.data(), rows.size() * 4);
  for (uint32_t k = 0; k < kept; ++k) {
    const uint32_t texel = k >> 2, b = texel >> (log2w + 1), x = (texel & (band - 1)) >> 1;
    const uint32_t y = (b << 1) | (texel & 1);
    hostIndices_[k] = rows[((size_t(y) << log2w) + x) * 4 + (k & 3)];
  }
}

// indices=texture: the gather reads GL's output texture in place. map=held maps it in one call
// with the keep flags' buffer (and count=device's count), all given back to GL by
// the next call's one unmap (GL writes the texture again then); map=call maps it for the gather.
void StreamBuffers::gatherFromTexture(const Request& r, uint32_t kept, bool deviceCount) {
  const srt::gl::Texture& t = *indexTexture_;
  indexTexture_ = nullptr;
  times_.gathered = true;
  const auto tm = Clock::now();
  std::unique_ptr<srt::gl::CudaGlMapping> countMap;
  const uint32_t* count = nullptr;
  cudaTextureObject_t texture = 0;
  if (holdsMapping(false)) {
    releaseHeld(r.stream);
    // The keep flags' buffer first (the next call's copy in), then what this gather reads.
    std::vector<srt::gl::CudaGlBuffer*> buffers{in_[0].registered.get()};
    if (deviceCount) buffers.push_back(count_.registered.get());
    held_ = std::make_unique<srt::gl::CudaGlMapping>(buffers, r.stream,
                                                     std::vector{indexImage_.registered(t)});
    heldIndices_ = false;
    texture = indexImage_.objectOfMapped();
    if (deviceCount) count = static_cast<const uint32_t*>(held_->pointer(1));
  } else {
    if (deviceCount) {
      countMap = std::make_unique<srt::gl::CudaGlMapping>(
          std::vector<srt::gl::CudaGlBuffer*>{count_.registered.get()}, r.stream);
      count = static_cast<const uint32_t*>(countMap->pointer(0));
    }
    texture = indexImage_.map(t, r.stream);
  }
  times_.mapMs += msSince(tm);
  const uint32_t perTexel = t.format() == GL_RGBA32UI ? 4 : 1;
  const uint32_t widthLog2 = uint32_t(__builtin_ctz(t.width()));  // widths are powers of two
  onStream(
      r.stream,
      [&] {
        gatherOnCudaFromTexture(r, texture, widthLog2, perTexel, kept, r.stream, count,
                                indexBands_);
      },
      [&] {
        indexImage_.unmap();  // nothing to do when held_ mapped it
        if (countMap) countMap->unmap();
      });
}

void StreamBuffers::packCount(const srt::gl::Texture& t, uint32_t log2w, uint32_t index) {
  ensure(count_, 16, cudaGraphicsRegisterFlagsReadOnly);
  srt::gl::packTexel(t, log2w, index, slotId(count_));
}

void StreamBuffers::gatherWithDeviceCount(const Request& r, const srt::gl::Texture& indices,
                                          bool bands) {
  const auto t0 = Clock::now();
  indexTexture_ = &indices;
  indexBands_ = bands;
  // The map orders GL's passes and the packing before the gather.
  gatherFromTexture(r, r.count, true);
  times_.hostMs += msSince(t0);
}

StreamBuffers::Times StreamBuffers::finish() {
  if (!pending_) return times_;
  pending_ = false;
  srt::gl::waitCudaEvent(events_[3], std::string("GL interop (") + description_ +
                                         "): the stream side's gather or copies out");
  // Copies in that no host wait covered: with semaphores the host never waited for them.
  if (mode_ == Mode::External && handOff_->semaphores()) times_.streamCopyMs += eventMs(0, 1);
  (times_.gathered ? times_.gatherMs : times_.streamCopyMs) += eventMs(2, 3);
  return times_;
}

}  // namespace srt::compaction::gl
