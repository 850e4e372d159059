// Where a request's streams cross into GL and back, and which side moves the payload.
//
// Host streams are uploaded into GL buffers and read back with glGet* (or, with interop=vulkan,
// written into Vulkan memory GL imports: the external-memory path a machine without CUDA can
// test). CUDA streams share buffers with GL, picked on the first call:
//   - external memory (interop=vulkan, then interop=vmm): allocated once, grown when needed, and
//     addressed by CUDA and GL at once; hand-offs by Vulkan-made semaphores both import, else by
//     host waits (sync=semaphores|fences). A small round trip through each candidate checks it
//     before it is used, so a driver that accepts an import but shows other bytes is refused;
//   - registered GL buffers (cudaGraphicsGLRegisterBuffer): with the payload on CUDA the keep
//     flags' and the indices' buffers are mapped once a call, for the gather, and stay mapped
//     until the next call's flags are in (map=held); map=call maps them per use; with
//     indices=texture the gather reads the indices from GL's output texture, registered too
//     and, with map=held, mapped in the same call as the buffers: one map and one unmap a call;
//   - host copies (interop=host): CUDA to host memory, uploaded to GL, read back to the host and
//     copied to CUDA; always works where GL does, and is auto's last resort.
// auto checks each candidate by a round trip under a deadline before it is used, registered then
// host copies (external memory first only with SRT_GL_INTEROP_EXTERNAL=1).
// Only the keep flags cross in, and the survivors' indices out, when the stream's side moves the
// payload (payload=cuda): CUDA (or the host) gathers every field from the indices. With
// payload=gl the fields cross in, GL's final pass writes them, and they cross out.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "primitives/common/memory.h"
#include "primitives/compaction/compaction.h"
#include "primitives/compaction/gl/gl_compactors.h"
#include "primitives/gl/cuda_gl_buffer.h"
#include "primitives/gl/external_buffer.h"
#include "primitives/gl/gl_objects.h"

namespace srt::compaction::gl {

class StreamBuffers {
 public:
  // Where output f of a compaction lies in GL: a texture holding it row by row, or a buffer.
  struct Output {
    const srt::gl::Texture* texture = nullptr;
    GLuint buffer = 0;
    bool bands = false;  // indices in a texture, in bands of two rows (GlStreamCompactor::Emit)
  };
  // The last call's interop times, known once its stream-side work is done (finish()).
  struct Times {
    double hostMs = 0;            // host time of the interop calls, host waits included
    double streamCopyMs = 0;      // CUDA copies no host wait covered (events)
    double gatherMs = 0;          // the stream side's payload gather (CUDA events, or host time)
    bool gathered = false;        // the stream side gathered the payload (gatherMs is its time)
    bool readbackWaited = false;  // the host waited for GL's read-back (do not add its GL time)
    // Where the host time goes (registered buffers and host copies): maps, unmaps, issuing the
    // copies in (with host copies: their wait), and host waits for CUDA.
    double mapMs = 0, unmapMs = 0, copyInMs = 0, waitMs = 0;
  };

  explicit StreamBuffers(const InteropOptions& options) : options_(options) {}
  ~StreamBuffers();
  StreamBuffers(const StreamBuffers&) = delete;
  StreamBuffers& operator=(const StreamBuffers&) = delete;

  // Picks the interop for streams in `space` and makes the keep flags' and the indices' shared
  // buffers room for `count` elements (fields grow on first use).
  void prepare(MemorySpace space, uint32_t count);
  // Makes room for the request, puts its keep flags (and its fields, when `fields`) where GL
  // reads them, and hands them to GL. Picks the interop on the first call in each memory space.
  void upload(const Request& r, bool fields);
  GLuint keep() const { return slotId(in_[0]); }
  GLuint field(int f) const { return slotId(in_[size_t(f) + 1]); }
  size_t keepRoom() const { return slotBytes(in_[0]); }
  // After the GL passes, in two halves so the GL timer can mark between them: the GL side
  // (read-back into the shared buffers, or to the host), then the stream side (hand-off, moves,
  // the count to numKept).
  // payload=gl: the first `kept` elements of every output into the request's fields.
  void readOutputs(const Request& r, uint32_t kept, const std::vector<Output>& outputs);
  void copyOutputs(const Request& r, uint32_t kept);
  // payload on the stream's side: the survivors' indices, then every field gathered by them.
  // False when GL reads nothing back (indices=texture: the gather reads the output in place).
  bool readIndices(const Request& r, uint32_t kept, const Output& indices);
  void gatherByIndices(const Request& r, uint32_t kept);
  // count=device: whether it applies (registered buffers), then GL packs the count (texel `index`
  // of `t`, an integer format of up to 32 bits) into a registered buffer, and the gather reads
  // it there with the indices from GL's output texture `indices` (grid over the request's count).
  bool countOnDevice() const { return mode_ == Mode::Registered && options_.countOnDevice; }
  void packCount(const srt::gl::Texture& t, uint32_t log2w, uint32_t index);
  void gatherWithDeviceCount(const Request& r, const srt::gl::Texture& indices, bool bands);
  // Whether readIndices() reads a quad index texture in bands of two rows: read back by the host
  // (reordered there) or gathered by CUDA from the texture; not GL copies into buffers.
  bool readsIndexBands() const {
    return mode_ == Mode::HostUploads || (mode_ == Mode::Registered && options_.indicesFromTexture);
  }
  // Waits for the last call's stream-side work and returns its times. Cheap when done.
  Times finish();
  // What runs, and why not something faster ("external memory (Vulkan), Vulkan semaphores").
  const std::string& description() const { return description_; }
  // CUDA streams: whether the interop is host copies (nothing shared with GL).
  bool usesHostCopies() const { return hostCopies(); }
  // Drops the shared buffers and takes host copies from now on (a check of the interop failed).
  void fallBackToHostCopies(const std::string& why);

 private:
  // HostUploads: plain GL buffers filled from host memory (host streams, and CUDA streams
  // through host copies).
  enum class Mode { None, HostUploads, External, Registered };
  // A buffer GL reads or writes, in the current mode's kind.
  struct Slot {
    std::unique_ptr<srt::gl::ExternalBuffer> external;
    std::unique_ptr<srt::gl::CudaGlBuffer> registered;
    srt::gl::BufferObject plain;
  };
  static GLuint slotId(const Slot& s);
  static size_t slotBytes(const Slot& s);
  void* pointer(const Slot& s) const;  // the stream side's address (external mode)

  void resolve(MemorySpace space);
  bool tryExternal(srt::gl::ExternalSource source, bool semaphores, std::string* why);
  bool tryRegistered(std::string* why);
  void resolveCuda();
  bool hostCopies() const { return mode_ == Mode::HostUploads && space_ == MemorySpace::Cuda; }
  const void* staged(const Request& r, size_t i, const void* src, size_t bytes);
  void ensure(Slot& s, size_t bytes, unsigned registerFlags);
  void quiesce();  // neither side uses the buffers any more (before they are freed)
  std::vector<GLuint> sharedIds() const;
  void readToSlot(const Output& from, Slot& to, uint64_t bytes);
  // map=held: the keep flags' registered buffer (at held_->pointer(0)) and, withIndices, the
  // indices' (pointer(1)), mapped for CUDA on `stream` (kept mapped when what is held has them),
  // and given back to GL (the unmap orders CUDA's work first).
  void mapHeld(cudaStream_t stream, bool withIndices);
  void releaseHeld(cudaStream_t stream);
  bool holdsMapping(bool fields) const {
    return mode_ == Mode::Registered && options_.holdMapping && !fields;
  }
  void handToStream(const Request& r);
  void gatherFromTexture(const Request& r, uint32_t kept, bool deviceCount = false);
  void readBands(const srt::gl::Texture& t, uint32_t kept);
  void recordEvent(int k, cudaStream_t stream);
  // The stream side's moves on `stream` between events 2 and 3 (finish() waits for them), then
  // `unmap` (when given) timed as the interop's unmaps.
  void onStream(cudaStream_t stream, const std::function<void()>& moves,
                const std::function<void()>& unmap = {});
  // The first `kept` elements of every field from `from` into the request's, and the count.
  void copyFields(const Request& r, uint32_t kept, const std::vector<const void*>& from,
                  cudaMemcpyKind kind);
  double eventMs(int from, int to) const;

  InteropOptions options_;
  Mode mode_ = Mode::None;
  MemorySpace space_ = MemorySpace::Host;
  srt::gl::ExternalSource source_ = srt::gl::ExternalSource::Vulkan;
  std::unique_ptr<srt::gl::HandOff> handOff_;
  std::string description_;
  std::vector<Slot> in_, out_;  // in: keep, then one per field; out: one per field
  Slot index_;                  // the survivors' indices, for the stream side
  // indices=texture: GL's output texture of the survivors' indices (set by readIndices when the
  // gather reads it in place), registered with CUDA and mapped for the gather alone.
  const srt::gl::Texture* indexTexture_ = nullptr;
  bool indexBands_ = false;
  srt::gl::CudaGlImage indexImage_;
  Slot count_;  // count=device: the survivor count GL packed, for the gather
  // map=held: in_[0] and index_ (with indices=texture in_[0], count=device's count_ and the
  // output texture) mapped for CUDA between a gather and the next call's copy in. Declared after
  // what it maps, so it is unmapped before they are unregistered.
  std::unique_ptr<srt::gl::CudaGlMapping> held_;
  bool heldIndices_ = false;  // held_ maps index_ at pointer(1)
  std::vector<uint32_t> hostIndices_;
  // Host copies of CUDA streams: the streams staged on the host, and the indices back on CUDA.
  std::vector<std::vector<char>> stageIn_, stageOut_;
  RawBuffer deviceIndices_;
  // CUDA events: 0-1 the copies in, 2-3 the copies out or the gather (3: the last use).
  cudaEvent_t events_[4] = {};
  bool recorded_[4] = {};
  bool pending_ = false;
  cudaStream_t lastStream_ = nullptr;
  Times times_;
};

}  // namespace srt::compaction::gl
