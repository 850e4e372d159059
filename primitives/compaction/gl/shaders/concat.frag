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
  // This block's elements in the texel are consecutive, and so are their positions in the block:
  // their in-block offsets lie in at most two texels of `local`, fetched once each (the fragment
  // stage runs on few SMs, where four fetches a fragment cost more than the bytes).
  uint e0 = o << 2u;
  uint c0 = e0 >= dStart ? 0u : min(dStart - e0, 4u);
  uint c1 = dStart + dLength <= e0 ? 0u : min(dStart + dLength - e0, 4u);
  if (c0 >= c1) discard;  // guards the rasterisation rule
  uint p0 = dSource + (e0 + c0 - dStart);
  uvec4 t0 = loadU4(local, localLog2w, p0 >> 2u);
  uvec4 t1 = (p0 & 3u) + (c1 - c0) > 4u ? loadU4(local, localLog2w, (p0 >> 2u) + 1u) : t0;
  uint blockBase = (p0 >> blockLog2) << blockLog2;
  uvec4 src = uvec4(0u);
  bvec4 valid = bvec4(false);
  for (uint c = c0; c < c1; ++c) {
    uint p = p0 + (c - c0);
    valid[c] = true;
    src[c] = blockBase + ((p >> 2u) == (p0 >> 2u) ? t0 : t1)[p & 3u];
  }
  emitQuad(src, valid);
#else
  if (o < dStart || o - dStart >= dLength) discard;  // guards the rasterisation rule
  emitSource(sourceOf(o));
#endif
}
