// What the GL compactors share: programs built from the embedded shader files, full-target
// fragment passes that record the bytes they move, scratch textures, the sources a pass reads its
// first level from (a texture, keep bytes, flag bits, popcounts), and the segmented inclusive
// scans (Hillis-Steele, Blelloch, Sengupta's hybrid) every prefix-sum algorithm runs inside its
// blocks. Every intermediate texture takes the narrowest format its values fit (8, 16 or 32 bits).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "primitives/compaction/gl/gl_compactors.h"
#include "primitives/gl/gl_objects.h"

namespace srt::compaction::gl {

using srt::gl::BufferTexture;
using srt::gl::Layout;
using srt::gl::Program;
using srt::gl::Texture;

// Texture units by role, so a source bound for one pass never collides with a pass's own inputs.
constexpr int kUnitSource = 6, kUnitBits = 7, kUnitKeep = 8, kUnitGroupScan = 9, kUnitField = 16;

inline uint32_t log2u(uint32_t v) {
  uint32_t r = 0;
  while ((1u << r) < v) ++r;
  return r;
}
inline uint32_t nextPow2(uint32_t v) {
  return 1u << log2u(v);
}

// The values a pass reads on its first level (sources.glsl).
struct Source {
  enum Kind { TextureValues = 1, EmptyBytes = 2, EmptyBits = 3, GroupKept = 4, BlockKept = 5 };
  Kind kind = TextureValues;
  uint32_t count = 0;     // elements; past it the source reads 0
  uint64_t maxValue = 1;  // the largest value an element holds (picks the formats downstream)
  // TextureValues: element i is texel i * stride + offset (as complement - value when nonzero;
  // RLZ's run starts only when runMask is nonzero).
  const Texture* texture = nullptr;
  uint32_t log2w = 0, stride = 1, offset = 0, complement = 0, runMask = 0;
  // The flag bits (EmptyBits, GroupKept, BlockKept) and the keep bytes (EmptyBytes).
  const Texture* bits = nullptr;
  uint32_t bitsLog2w = 0, blockLog2 = 0, keepCount = 0;
  GLuint keepBytes = 0;

  static Source fromTexture(const Texture& t, uint32_t log2w, uint32_t count, uint64_t maxValue);
  std::string defines() const;
  void bind(Program& p) const;
  uint64_t bytesFor(uint64_t elements) const;  // bytes a pass reading that many elements moves
};

class GlPasses {
 public:
  GlPasses();
  ~GlPasses();
  GlPasses(const GlPasses&) = delete;
  GlPasses& operator=(const GlPasses&) = delete;

  // Program of shader files (fragment, and optionally vertex and geometry; the vertex stage
  // defaults to the full-viewport triangle). `defines` go after the stage's #define and before
  // common.glsl, sources.glsl and blocks.glsl. Built once.
  Program& program(const std::string& frag, const std::string& defines = "",
                   const std::string& vert = "fullscreen.vert", const std::string& geom = "",
                   const std::vector<const char*>& feedback = {});
  // Runs `p` over the texels of `out` (its rows) into `targets` (colour attachments 0..), and
  // records the pass: `read` bytes in, out.count texels of each target out.
  void draw(Program& p, const std::vector<Texture*>& targets, const Layout& out, uint64_t read);
  void draw(Program& p, Texture& target, const Layout& out, uint64_t read) {
    draw(p, std::vector<Texture*>{&target}, out, read);
  }
  // Binds `targets` for drawing over `width` x `rows` (line drawing sets up the rest itself).
  void bindTargets(const std::vector<Texture*>& targets, uint32_t width, uint32_t rows);
  // A scratch texture for `texels` texels of width 2^log2w, by key and format.
  Texture& texture(const std::string& key, GLenum format, const Layout& l);
  GLuint emptyVertexArray() const { return vao_; }

  // Step bookkeeping: passes recorded since the last mark belong to the step marked.
  void start();
  void mark(const char* step);
  void record(PassRecord r) { pending_.push_back(std::move(r)); }
  PassRecord& lastPass() { return pending_.back(); }
  // Adds the per-survivor bytes of the passes recorded so far, now that `kept` is known.
  void settle(uint32_t kept);
  std::vector<std::pair<std::string, double>> readTimes() { return timer_.read(); }
  const std::vector<PassRecord>& records() const { return records_; }

  // Inclusive scan of `in` inside segments of `segment` elements (a power of two dividing
  // in.count, or at least in.count), in layouts of width 2^log2w. The result lives in a pool
  // texture keyed by `tag`; its layout is {in.count, log2w}.
  // Hillis-Steele passes add radix - 1 earlier elements each (a power of two; 2: doubling).
  Texture& scanInclusive(const Source& in, uint32_t segment, ScanKind kind, uint32_t parallelism,
                         uint32_t radix, uint32_t log2w, const std::string& tag);
  // Levels 1..levels of a reduction tree over `in` (sums, or RLZ's run up-sweep), each as a
  // source; level 0 is `in`.
  std::vector<Source> reduceLevels(const Source& in, int levels, bool runs, uint32_t log2w,
                                   const std::string& tag);

 private:
  srt::gl::TexturePool pool_;
  srt::gl::StepTimer timer_;
  std::vector<PassRecord> pending_, records_;
  std::map<std::string, Program> programs_;
  std::map<size_t, GLuint> framebuffers_;  // by attachment count, re-attached per draw
  GLuint vao_ = 0;
};

}  // namespace srt::compaction::gl
