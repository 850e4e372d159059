// Roger 2007, III-C: the blocks' reduced prefixes joined by drawing one line per block whose
// fragments write the survivors (concat.vert, concat.geom, concat.frag), then, for quad output,
// one point per block that starts inside a texel, OR-ed in. And the bench's decomposition of that
// pass (diag=concat): the same draw reduced step by step, each timed as its own step.
#pragma once

#include "primitives/compaction/gl/gl_stream_compactor.h"

namespace srt::compaction::gl {

struct ConcatInput {
  const Texture* blockScan = nullptr;  // inclusive scan of the kept counts, one texel a block
  uint32_t blockLog2w = 0, blockLog2 = 0;
  const Texture* local = nullptr;  // the in-block offsets (block or aligned layout)
  uint32_t localLog2w = 0;
  uint32_t numBlocks = 0;
  uint32_t aligned = 0;  // offsets=aligned (4) or wide (16); 0: the paper's block layout
  Wrap wrap = Wrap::Geometry;
  bool pair = false;  // concat=pair: two fetches of offsets a fragment (block layout, 8 bits)
  bool inlineHeads = false;  // heads=inline: no head points; lines' last fragments write them
};
// The emit's layout in bands of two rows (layout=bands) takes lines two pixels wide, placed by
// the vertex shader whatever the wrap.

// Whether the current context draws aliased lines two pixels wide (asked once, by setting it).
bool wideLinesWork();

// Draws the concatenation into emit's targets and records its passes.
void concatenate(GlPasses& passes, const ConcatInput& in, const GlStreamCompactor::Emit& emit);

// Quad output only (else nothing): into the same targets with the same state, before the real
// concatenation overwrites them, each of these timed as a step "diag: ...": nothing (the timer's
// own cost); the lines with the full shader into a scratch target of the same formats and
// layout, then into the output (its first draw of the call); the lines writing the fragment's
// index (no flat inputs: the vertex and geometry stages lose their outputs); the lines
// writing their flat inputs (no fetch); with the offset fetches only; the full shader again;
// the lines placed by the vertex shader (no geometry stage) writing their inputs, then with the
// full shader; the same texels in bands of two rows, each piece a line two pixels wide into the
// scratch target (writing the index, then the full shader; where the driver draws wide lines);
// the pieces as rectangles one texel high (two triangles each, into the scratch target);
// the head points with and without the logic op; a full-target triangle over the
// rows of `lastKept` survivors (the last call's; 0: all rows) writing a constant, then running
// the full shader on synthetic blocks. Recorded with the bytes of the pass they mimic.
void diagnoseConcatenation(GlPasses& passes, const ConcatInput& in,
                           const GlStreamCompactor::Emit& emit, uint32_t lastKept);

}  // namespace srt::compaction::gl
