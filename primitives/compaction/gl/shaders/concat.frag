// Each fragment of a block's line copies elements of the block's reduced prefix: it reads the
// in-block offset the search left there and writes that element's fields (or its index). With
// SRT_QUAD a fragment is a 16-byte texel of four output elements; those of other blocks are
// written as zeros, and the blocks that start inside the texel OR theirs in (concat.vert).
uniform usampler2D local;  // in-block offsets, four to a texel
uniform uint localLog2w;
uniform uint blockLog2;
uniform uint log2w;  // output layout (texels)
flat in uint dStart;
flat in uint dLength;
flat in uint dSource;

uint sourceOf(uint o) {
  uint p = dSource + (o - dStart);
  return ((p >> blockLog2) << blockLog2) + loadQuarter(local, localLog2w, p);
}

void main() {
  uint o = fragIndex(log2w);
#ifdef SRT_QUAD
  uvec4 src = uvec4(0u);
  bvec4 valid = bvec4(false);
  for (uint c = 0u; c < 4u; ++c) {
    uint e = (o << 2u) + c;
    valid[c] = e >= dStart && e - dStart < dLength;
    if (valid[c]) src[c] = sourceOf(e);
  }
  if (!any(valid)) discard;  // guards the rasterisation rule
  emitQuad(src, valid);
#else
  if (o < dStart || o - dStart >= dLength) discard;  // guards the rasterisation rule
  emitSource(sourceOf(o));
#endif
}
