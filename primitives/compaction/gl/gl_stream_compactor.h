// The part every GL compactor shares: the keep flags and fields in buffers read through buffer
// textures (uploads, or memory shared with CUDA: gl_interop.h), the output stage an algorithm's
// final pass writes through (the fields themselves; or the survivors' indices, followed by GL
// gather passes or by the stream side's gather: payload=cuda), the read-back, the count and the
// timings.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "primitives/compaction/gl/gl_interop.h"
#include "primitives/compaction/gl/gl_passes.h"
#include "primitives/gl/gl_objects.h"
#include "primitives/gl/texel_readback.h"

namespace srt::compaction::gl {

class GlStreamCompactor : public GlCompactor {
  // First member: a GL context is current before any GL object below is made. Throws
  // GlUnavailable.
  struct CurrentContext {
    CurrentContext();
  } context_;

 public:
  explicit GlStreamCompactor(const InteropOptions& interop)
      : buffers_(interop), options_(interop) {}
  // With SRT_GL_INTEROP_STATS set, prints every step's total over the calls made (stderr).
  ~GlStreamCompactor() override;
  // Also compiles the programs and sets up the interop (see the definition).
  void reserve(uint32_t maxCount) override;
  void compact(const Request& r) override;
  // These wait for the last call's work on the stream side (queued on its CUDA stream) first.
  double lastTransferMs() const override;
  std::vector<std::pair<std::string, double>> lastStepTimes() const override;
  std::vector<PassRecord> lastPasses() const override { return passes_.records(); }
  // The interop that ran and who moved the payload ("interop: ...; payload: ...").
  std::string choiceSummary() const override;

  // What an algorithm's final pass writes through: emitSource(src) in its fragment shader
  // (declared by `fragment`) writes survivor src's fields into `targets` (fused), or src itself
  // into targets[0] (the indices). With `quad` (every output 4 bytes an element, and the
  // algorithm asks for it) the targets hold four elements to a 16-byte texel and the pass calls
  // emitQuad(src, valid) for the four elements of its texel instead; `fragment` then defines
  // SRT_QUAD for every stage. No targets: only the count is wanted.
  struct Emit {
    bool fused = false;
    bool quad = false;
    // Quad indices only, where the algorithm asks and the reader knows the layout: texel t
    // in bands of two rows (column (t mod 2w) / 2, row 2 (t / 2w) + t mod 2), layout.count
    // whole bands.
    bool bands = false;
    std::string fragment;
    std::vector<Texture*> targets;
    Layout layout;  // layout of the targets (texels), rows for the whole stream
    uint32_t readPerKept = 0, writtenPerKept = 0;  // field bytes per survivor, for the records
    const GlStreamCompactor* owner = nullptr;
    void bind(Program& p) const;  // the fields' buffer textures
  };

 protected:
  // The algorithm: from the keep flags (keepWords_/keepBytes_, `n` elements) through `emit`.
  virtual void run(uint32_t n, const Emit& emit) = 0;
  // The survivors of the last run (reads back, waits for the GPU).
  virtual uint32_t keptCount() = 0;
  // Where keptCount() reads it, when that is one texel as it is: then the count is queued for the
  // host behind the passes (hostCount_), and count=device packs it for CUDA.
  virtual bool countTexel(const Texture** t, uint32_t* log2w, uint32_t* index) const {
    return false;
  }
  // Smallest element-layout width the algorithm needs (Roger: the block, so a segment wraps once).
  virtual uint32_t minWidth() const { return 1; }
  // Whether the final pass writes four 4-byte elements per fragment when it can.
  virtual bool wantsQuad() const { return false; }
  // Whether a quad output of indices takes bands of two rows when its reader can (Emit::bands).
  virtual bool wantsBands() const { return false; }
  // Whether run() can write fused outputs itself (transform feedback: at most four).
  virtual uint32_t maxFusedFields() const { return 8; }
  // The GS packing writes into buffers instead: it takes over the output stage.
  virtual bool writesBuffers() const { return false; }
  virtual GLuint outputBuffer(int field) const { return 0; }
  virtual GLuint indexBuffer() const { return 0; }

  uint32_t readTexel(const Texture& t, uint32_t log2w, uint32_t index);
  const std::vector<Field>& fields() const { return fields_; }
  BufferTexture& fieldView(int f) { return *fieldViews_[f]; }
  static GLenum fieldFormat(uint32_t bytes);

  GlPasses passes_;
  // The last call's survivors, once the host has read them.
  uint32_t lastKept_ = 0;
  BufferTexture keepWords_, keepBytes_;  // RGBA32UI and R8UI views of the keep flags
  uint32_t capacity_ = 0;
  // Widths (log2) of every layout, chosen from the capacity so pool textures stay put.
  uint32_t elemLog2w_ = 0, quadLog2w_ = 0, groupLog2w_ = 0, blockLog2w_ = 0;
  uint32_t quadOutLog2w_ = 0;  // quad outputs: at least half a block wide, so a line wraps once

 private:
  void grow(uint32_t maxCount);  // the layouts' widths for streams of up to maxCount
  bool fusable(const Request& r) const;
  bool payloadOnStream(const Request& r) const;
  Emit makeEmit(const Request& r, uint32_t n, bool indicesOnly);
  void viewFields(const Request& r);
  void gather(uint32_t kept, const Emit& emit);
  void moveOutputs(const Request& r, uint32_t kept, const Emit& emit);
  // Reads the last call's GL timer queries and waits for its stream-side work (once).
  void finalize();
  // The first call on CUDA streams: GL's count and the count CUDA receives against the keep
  // flags themselves; a mismatch moves to host copies and the call runs again. Returns false then.
  bool checkedOnCuda(const Request& r, uint32_t kept);
  // count=device: the gather reads the count GL packed; the host waits for nothing. False when
  // it does not apply (the call then reads the count on the host).
  bool gatherWithDeviceCount(const Request& r, const Emit& emit);
  // The steps of compact(), in the order it takes them.
  void writeZeroCount(const Request& r);
  void uploadInputs(const Request& r, bool byIndices);
  uint32_t waitForPassesAndCount();
  void gatherOnStream(const Request& r, uint32_t kept, const Emit& emit);
  // The first call on CUDA streams, after its work: false when CUDA received another count than
  // GL's, which moves to host copies (the call then runs again).
  bool countReceivedByCuda(const Request& r, uint32_t kept);

  // The survivors, read when the passes are done: from the texel queued behind them
  // (countTexel), else by keptCount().
  uint32_t readKept();

  std::vector<Field> fields_;
  std::vector<std::unique_ptr<BufferTexture>> fieldViews_;
  srt::gl::TexelReadback hostCount_;
  std::vector<Texture*> outputs_;  // per field, the texture holding its compacted stream
  StreamBuffers buffers_;
  InteropOptions options_;
  BufferTexture indexView_;                       // transform feedback's indices, for gather passes
  bool pending_ = false;                          // finalize() has work left from the last call
  bool warmedUp_ = false;                         // reserve() has compiled the programs
  bool checkedCuda_ = false;                      // the interop on CUDA streams was checked
  bool lastOnStream_ = false, lastHost_ = false;  // the last call's payload side and memory
  bool settleLater_ = false;  // count=device: the records' per-survivor bytes wait for finalize()
  double transferMs_ = 0;
  std::vector<std::pair<std::string, double>> steps_;
  double passWaitMs_ = 0, countMs_ = 0;  // host: the wait for the passes, the count's read-back
  // Totals over the calls, for SRT_GL_INTEROP_STATS: per step (in first-seen order), interop.
  std::vector<std::pair<std::string, double>> totals_;
  double totalTransferMs_ = 0;
  uint64_t calls_ = 0;
};

}  // namespace srt::compaction::gl
