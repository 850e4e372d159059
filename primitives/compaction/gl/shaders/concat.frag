// Each fragment of a block's line copies elements of the block's reduced prefix: it reads the
// in-block offset the search left there and writes that element's fields (or its index). With
// SRT_QUAD a fragment is a 16-byte texel of four output elements; those of other blocks are
// written as zeros, and the blocks that start inside the texel OR theirs in (concat.vert). With
// SRT_ALIGNED (offsets=aligned|wide) the search laid the offsets out in output texels: one fetch
// a fragment, each offset already in its component (search_aligned.frag).
uniform usampler2D local;  // in-block offsets, four to a texel (SRT_WIDE: sixteen)
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
#if defined(SRT_QUAD) && defined(SRT_ALIGNED)
  // The search laid the block's offsets out in output texels (search_aligned.frag): texel j of
  // the block reads slot j mod s/4, one fetch, each offset in its own component.
  uint j = o - (dStart >> 2u);
  uint slot = j & ((1u << (blockLog2 - 2u)) - 1u);
#ifdef SRT_WIDE
  uvec4 t = texelFetch(local, texelOf((dSource >> 4u) + (slot >> 2u), localLog2w), 0);
  uint word = (slot & 2u) != 0u ? ((slot & 1u) != 0u ? t.w : t.z) : ((slot & 1u) != 0u ? t.y : t.x);
  uvec4 offsets = (uvec4(word) >> uvec4(0u, 8u, 16u, 24u)) & 0xffu;
#else
  uvec4 offsets = texelFetch(local, texelOf((dSource >> 2u) + slot, localLog2w), 0);
#endif
  // Ranks below 0 (the texel's elements before the block's) wrap to large values: not valid.
  bvec4 valid = lessThan(uvec4(j * 4u - (dStart & 3u)) + uvec4(0u, 1u, 2u, 3u), uvec4(dLength));
  if (!any(valid)) discard;  // guards the rasterisation rule
  emitQuad(uvec4(dSource) + offsets, valid);
#elif defined(SRT_QUAD)
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
