// Prepended to every shader (after #version and the pass's #defines). A stream lives row by row
// in a 2D texture whose width is a power of two: texel i at (i & (w - 1), i >> log2w). Keep flags
// are stored as bits, 128 to an RGBA32UI texel (a "group"): bit q of group g is element 128g + q,
// 1 = kept; padding past the stream is 0.
const uint kInvalid = 0xffffffffu;

ivec2 texelOf(uint i, uint log2w) {
  return ivec2(int(i & ((1u << log2w) - 1u)), int(i >> log2w));
}

// Reads are clamped to the texture, so fragments past a stream's end (the rest of its last row)
// read defined values; passes that loop guard those fragments themselves.
uvec4 loadU4(usampler2D t, uint log2w, uint i) {
  ivec2 size = textureSize(t, 0);
  return texelFetch(t, texelOf(min(i, uint(size.x * size.y) - 1u), log2w), 0);
}
uint loadU(usampler2D t, uint log2w, uint i) { return loadU4(t, log2w, i).r; }
// Element i of a stream packed four to a texel (RGBA8UI, RGBA16UI).
uint loadQuarter(usampler2D t, uint log2w, uint i) { return loadU4(t, log2w, i >> 2u)[i & 3u]; }

// The flag bits, shared by every pass that reads them.
uniform usampler2D bits;
uniform uint bitsLog2w;
uvec4 loadGroup(uint g) { return loadU4(bits, bitsLog2w, g); }
// Set bits among the first q (0..128) bits of a group: the first levels of a prefix sum, done by
// popcounts instead of passes.
uint popBefore(uvec4 v, uint q) {
  ivec4 n = clamp(ivec4(int(q)) - ivec4(0, 32, 64, 96), 0, 32);
  return uint(bitCount(bitfieldExtract(v.x, 0, n.x)) + bitCount(bitfieldExtract(v.y, 0, n.y)) +
              bitCount(bitfieldExtract(v.z, 0, n.z)) + bitCount(bitfieldExtract(v.w, 0, n.w)));
}
uint bitAt(uvec4 v, uint q) { return (v[q >> 5u] >> (q & 31u)) & 1u; }
// Position (0..127) of the r-th kept bit (from 0; r below the group's popcount). A dichotomic
// descent through the group as a binary tree of counts, levels 6 to 0: 64-bit halves, words,
// then halves of the word, each count a popcount.
uint selectInGroup(uvec4 v, uint r) {
  uint pos = 0u;
  uint c = uint(bitCount(v.x) + bitCount(v.y));
  uvec2 h = v.xy;
  if (r >= c) {
    r -= c;
    pos = 64u;
    h = v.zw;
  }
  c = uint(bitCount(h.x));
  uint x = h.x;
  if (r >= c) {
    r -= c;
    pos += 32u;
    x = h.y;
  }
  for (uint w = 16u; w > 0u; w >>= 1u) {
    c = uint(bitCount(x & ((1u << w) - 1u)));
    if (r >= c) {
      r -= c;
      pos += w;
      x >>= w;
    }
  }
  return pos;
}

#ifdef SRT_FRAGMENT
// The stream index this fragment writes, in a target of width 2^log2w.
uint fragIndex(uint log2w) { return (uint(gl_FragCoord.y) << log2w) | uint(gl_FragCoord.x); }
#endif
