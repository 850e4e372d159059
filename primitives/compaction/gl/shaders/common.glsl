// Prepended to every shader (after #version and the pass's #defines). A stream lives row by row
// in a 2D texture whose width is a power of two: element i at (i & (w - 1), i >> log2w).
const uint kInvalid = 0xffffffffu;

ivec2 texelOf(uint i, uint log2w) {
  return ivec2(int(i & ((1u << log2w) - 1u)), int(i >> log2w));
}

// Reads are clamped to the texture, so fragments past a stream's end (the rest of its last row)
// read defined values; passes that loop guard those fragments themselves.
uint loadU(usampler2D t, uint log2w, uint i) {
  ivec2 size = textureSize(t, 0);
  return texelFetch(t, texelOf(min(i, uint(size.x * size.y) - 1u), log2w), 0).r;
}

#ifdef SRT_FRAGMENT
// The stream index this fragment writes, in a target of width 2^log2w.
uint fragIndex(uint log2w) { return (uint(gl_FragCoord.y) << log2w) | uint(gl_FragCoord.x); }
#endif
