// What one fragment of a pass executes, counted by hand from the shaders (OpCount's convention,
// gl_compactors.h), for the instruction and fetch roofs of streamrt-bench-gl. Counted for blocks
// of up to 128 elements (one group of flag bits) and the Hillis-Steele steps; estimates, since the
// driver may fuse or split operations (a read of NVIDIA's assembly would be the check). Other
// passes are not counted: their roof is their bytes.
#pragma once

#include "primitives/compaction/gl/gl_passes.h"

namespace srt::compaction::gl::costs {

constexpr OpCount operator+(OpCount a, OpCount b) {
  return {a.alu + b.alu, a.bitOps + b.bitOps, a.fetches + b.fetches};
}
constexpr OpCount operator*(float k, OpCount a) { return {k * a.alu, k * a.bitOps, k * a.fetches}; }

// fragIndex(): two float-to-uint conversions, a shift, an or.
constexpr OpCount kFragIndex{4, 0, 0};
// loadU4(): the clamp to the texture (textureSize, a product, a min) and texelOf(); the size
// query is a fetch, once per sampler and fragment (the compiler shares it).
constexpr OpCount kLoad{7, 0, 1};
constexpr OpCount kSizeQuery{0, 0, 1};
// loadBlock() for blocks in one group: the group, four popcounts, three word prefixes, and two
// groupBefore() (dynamic word picks, a mask, a popcount each).
constexpr OpCount kLoadBlock = OpCount{33, 6, 0} + kLoad + kSizeQuery;
// selectInGroup(): halves and words (3 popcounts), then five halvings of the word (a popcount
// and three conditional updates each); selectInBlock() adds two.
constexpr OpCount kSelectInBlock{55, 8, 0};
// nextKeptAfter(): the masked word, a rarely taken loop to the next word, findLSB.
constexpr OpCount kNextKeptAfter{14, 2, 0};
// search_aligned.frag: selectRank() (word by three compares, five halvings of the word) and
// nextKept() (isolate the lowest bit, findMSB, a rarely taken loop).
constexpr OpCount kSelectRank{58, 5, 0};
constexpr OpCount kNextKept{9, 1, 0};

// flags.frag: eight 16-byte fetches of keep bytes, 32 packWord() of nine operations, the merge.
inline OpCount flags() { return OpCount{377, 0, 8}; }

// search.frag, four positions: each searched (plain), or the first searched and three next kept
// bits (next).
inline OpCount search(bool next) {
  const OpCount head = kFragIndex + OpCount{5, 0, 0} + kLoadBlock;
  const OpCount select = kSelectInBlock + OpCount{3, 0, 0};
  return next ? head + select + 3.f * (kNextKeptAfter + OpCount{3, 0, 0}) : head + 4.f * select;
}

// search_aligned.frag, `positions` (4 or 16) a fragment: the block, the block's output start
// (one more texture), then each position (its rank, a compare, the byte packed).
inline OpCount searchAligned(uint32_t positions, bool next) {
  const float n = float(positions);
  const OpCount head = kFragIndex + OpCount{15, 0, 0} + kLoadBlock + kLoad + kSizeQuery;
  const OpCount each{positions == 16 ? 7.f : 5.f, 0, 0};
  return head + n * each + (next ? kSelectRank + (n - 1) * kNextKept : n * kSelectRank);
}

// concat.frag, one output texel of four elements: with the block layout each element's offset
// is its own loadQuarter() (four fetches and a size query); aligned, one fetch in place (wide:
// and a component picked and split into bytes); pair, two fetches packed into a 64-bit window
// and split. Fused fields: a fetch of each field an element.
inline OpCount concat(bool quad, uint32_t aligned, uint32_t fusedFields, bool pair = false) {
  const OpCount fields{0, 0, float(fusedFields * (quad ? 4 : 1))};
  if (!quad) return kFragIndex + OpCount{12, 0, 0} + kLoad + kSizeQuery + fields;
  if (aligned == 4) return OpCount{38, 0, 1} + fields;
  if (aligned == 16) return OpCount{52, 0, 1} + fields;
  if (pair) return kFragIndex + OpCount{66, 0, 2} + fields;
  return kFragIndex + OpCount{95, 0, 0} + 4.f * OpCount{0, 0, 1} + kSizeQuery + fields;
}

// What srcValue() costs for each kind of source (sources.glsl).
inline OpCount sourceRead(Source::Kind kind) {
  switch (kind) {
    case Source::TextureValues:
      return OpCount{6, 0, 0} + kLoad;
    case Source::EmptyBytes:
      return OpCount{4, 0, 1};
    case Source::EmptyBits:
      return OpCount{10, 0, 0} + kLoad;
    case Source::GroupKept:
      return OpCount{5, 4, 0} + kLoad;
    case Source::BlockKept:  // two popBefore() with run-time bounds: clamps, extracts, popcounts
      return OpCount{54, 8, 0} + kLoad;
  }
  return {};
}

// hs_step.frag: radix reads of the source and a loop step between them.
inline OpCount hillisSteeleStep(Source::Kind kind, uint32_t radix) {
  return kFragIndex + OpCount{2, 0, 0} + float(radix) * sourceRead(kind) +
         float(radix - 1) * OpCount{8, 0, 0} +
         (kind == Source::EmptyBytes ? OpCount{} : kSizeQuery);
}

}  // namespace srt::compaction::gl::costs
