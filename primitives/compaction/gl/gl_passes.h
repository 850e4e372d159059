// What the GL compactors share: programs built from the embedded shader files, full-target
// fragment passes, scratch textures, and the segmented inclusive scans (Hillis-Steele, Blelloch,
// Sengupta's hybrid) that every prefix-sum algorithm runs inside its blocks.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "primitives/compaction/gl/gl_compactors.h"
#include "primitives/gl/gl_objects.h"

namespace srt::compaction::gl {

using srt::gl::Layout;
using srt::gl::Program;
using srt::gl::Texture;

class GlPasses {
 public:
  GlPasses();
  ~GlPasses();
  GlPasses(const GlPasses&) = delete;
  GlPasses& operator=(const GlPasses&) = delete;

  // Program of shader files (fragment, and optionally vertex and geometry; the vertex stage
  // defaults to the full-viewport triangle). `defines` go before common.glsl. Built once.
  Program& program(const std::string& frag, const std::string& defines = "",
                   const std::string& vert = "fullscreen.vert", const std::string& geom = "",
                   const std::vector<const char*>& feedback = {});
  // Runs `p` over the rows of `target` that `out` covers.
  void draw(Program& p, Texture& target, const Layout& out);
  // A scratch R32UI texture for a stream with layout `l`.
  Texture& stream(const std::string& key, const Layout& l);
  srt::gl::TexturePool& pool() { return pool_; }
  GLuint emptyVertexArray() const { return vao_; }

  // Inclusive scan of `in` inside segments of `segment` elements (a power of two dividing
  // l.count). The result lives in a pool texture keyed by `tag`, with layout l.
  Texture& scanInclusive(Texture& in, const Layout& l, uint32_t segment, ScanKind kind,
                         uint32_t parallelism, const std::string& tag);
  // Levels 1..levels of a reduction tree over `in` (sums, or RLZ's run up-sweep); levels[0] = in.
  std::vector<Texture*> reduceLevels(Texture& in, const Layout& l, int levels, bool runs,
                                     const std::string& tag);

 private:
  srt::gl::TexturePool pool_;
  std::map<std::string, Program> programs_;
  GLuint vao_ = 0;
};

inline Layout levelLayout(const Layout& l, int d) {
  return {l.count >> d, l.log2Width};
}
inline uint32_t log2u(uint32_t v) {
  uint32_t r = 0;
  while ((1u << r) < v) ++r;
  return r;
}

}  // namespace srt::compaction::gl
