// Each fragment of a block's line copies elements of the block's reduced prefix: it reads the
// in-block offset the search left there and writes that element's fields (or its index). With
// SRT_QUAD a fragment is a 16-byte texel of four output elements; those of other blocks are
// written as zeros, and the blocks that start inside the texel OR theirs in (concat.vert), or,
// with SRT_INLINE_HEADS (heads=inline), the line's last fragment writes them itself: it finds
// the blocks that follow on the scan of kept counts. With SRT_ALIGNED (offsets=aligned|wide)
// the search laid the offsets out in output texels: one fetch a fragment, each offset already in
// its component (search_aligned.frag). With SRT_PAIR (concat=pair, block layout, 8-bit offsets)
// a fragment fetches the two texels of `local` that hold its four offsets, once each. The
// SRT_DIAG_* variants are the bench's decomposition of this pass (diag=concat; their output is
// not used): BARE writes the fragment's index, CONST the line's values (no fetch), FETCH makes
// the offset fetches only, FULLSCREEN runs the full shader over a full-target triangle on
// synthetic blocks (every element valid). With SRT_TWO_ROWS (layout=bands) output texel t lies
// in a band of two rows (column t / 2, row t mod 2), drawn as lines two pixels wide.
uniform usampler2D local;  // in-block offsets, four to a texel (SRT_WIDE: sixteen)
uniform uint localLog2w;
uniform uint blockLog2;
uniform uint log2w;  // output layout (texels)
#ifdef SRT_DIAG_FULLSCREEN
uint dStart, dLength, dSource;
#else
flat in uint dStart;
flat in uint dLength;
flat in uint dSource;
#endif
#if defined(SRT_TWO_ROWS) && !defined(SRT_HEADS) && !defined(SRT_DIAG_FULLSCREEN)
#define SRT_LINE_TEXELS
flat in uint dFirst;
flat in uint dTexels;
#endif

uint sourceOf(uint o) {
  uint p = dSource + (o - dStart);
  return ((p >> blockLog2) << blockLog2) + loadQuarter(local, localLog2w, p);
}

#ifdef SRT_QUAD
// The elements of output texel o that belong to the block of `length` survivors starting at
// output element `start` and input element `source` (its first): their sources, and which.
void blockTexel(uint o, uint start, uint length, uint source, out uvec4 src, out bvec4 valid) {
#if defined(SRT_ALIGNED)
  // The search laid the block's offsets out in output texels (search_aligned.frag): texel j of
  // the block reads slot j mod s/4, one fetch, each offset in its own component.
  uint j = o - (start >> 2u);
  uint slot = j & ((1u << (blockLog2 - 2u)) - 1u);
#ifdef SRT_WIDE
  uvec4 t = texelFetch(local, texelOf((source >> 4u) + (slot >> 2u), localLog2w), 0);
  uint word = (slot & 2u) != 0u ? ((slot & 1u) != 0u ? t.w : t.z) : ((slot & 1u) != 0u ? t.y : t.x);
  uvec4 offsets = (uvec4(word) >> uvec4(0u, 8u, 16u, 24u)) & 0xffu;
#else
  uvec4 offsets = texelFetch(local, texelOf((source >> 2u) + slot, localLog2w), 0);
#endif
  // Ranks below 0 (the texel's elements before the block's) wrap to large values: not valid.
  valid = lessThan(uvec4(j * 4u - (start & 3u)) + uvec4(0u, 1u, 2u, 3u), uvec4(length));
  src = uvec4(source) + offsets;
#elif defined(SRT_PAIR)
  // concat=pair (8-bit offsets): the texel's elements are block positions j0..j0+3 (j0 below 0
  // in the texel where the block starts), so their offsets lie in two consecutive texels of the
  // block's offsets: fetched once each, no loop, no size query, joined as one 64-bit window.
  int j0 = int(o << 2u) - int(start);
  uint base = source >> 2u, last = base + (1u << (blockLog2 - 2u)) - 1u;
  uint qa = base + (uint(max(j0, 0)) >> 2u);
  uvec4 ta = texelFetch(local, texelOf(qa, localLog2w), 0);
  uvec4 tb = texelFetch(local, texelOf(j0 < 0 ? qa : min(qa + 1u, last), localLog2w), 0);
  uint lo = ta.x | (ta.y << 8u) | (ta.z << 16u) | (ta.w << 24u);
  uint hi = tb.x | (tb.y << 8u) | (tb.z << 16u) | (tb.w << 24u);
  uint sh = (uint(j0) & 3u) << 3u;
  uint window = sh == 0u ? lo : (lo >> sh) | (hi << (32u - sh));
  uvec4 offsets = (uvec4(window) >> uvec4(0u, 8u, 16u, 24u)) & 0xffu;
  // Positions below 0 wrap to large values: not valid.
  valid = lessThan(uvec4(ivec4(j0) + ivec4(0, 1, 2, 3)), uvec4(length));
  src = uvec4(source) + offsets;
#else
  src = uvec4(0u);
  valid = bvec4(false);
  for (uint c = 0u; c < 4u; ++c) {
    uint e = (o << 2u) + c;
    valid[c] = e >= start && e - start < length;
    if (valid[c]) src[c] = source + loadQuarter(local, localLog2w, source + (e - start));
  }
#endif
}

#ifdef SRT_INLINE_HEADS
uniform usampler2D blockScan;  // inclusive scan of the kept counts
uniform uint blockLog2w;
uniform uint numBlocks;

// The block holding output element e (below the total), from block `from` on: usually `from`
// itself; past empty blocks, a binary search of the scan.
uint blockHolding(uint e, uint from) {
  if (loadU(blockScan, blockLog2w, from) > e) return from;
  uint lo = from + 1u, hi = numBlocks - 1u;
  while (lo < hi) {
    uint mid = (lo + hi) >> 1u;
    if (loadU(blockScan, blockLog2w, mid) > e) hi = mid;
    else lo = mid + 1u;
  }
  return lo;
}

// In the line's last texel, the elements past this block's belong to the blocks that follow
// (each holding at least one of them, so at most three): merged into src and valid.
void laterBlocks(uint o, inout uvec4 src, inout bvec4 valid) {
  uint e = dStart + dLength, texelEnd = (o << 2u) + 4u;
  if (e >= texelEnd) return;
  uint total = loadU(blockScan, blockLog2w, numBlocks - 1u);
  uint b = dSource >> blockLog2;
  while (e < min(total, texelEnd)) {
    b = blockHolding(e, b + 1u);
    uint end = loadU(blockScan, blockLog2w, b);
    uvec4 s;
    bvec4 v;
    blockTexel(o, e, end - e, b << blockLog2, s, v);
    src = mix(src, s, v);
    valid = bvec4(uvec4(valid) | uvec4(v));
    e = end;
  }
}
#endif
#endif

void main() {
#ifdef SRT_TWO_ROWS
  // Texel t of a band of two rows at column t / 2, row t mod 2 (concat.vert); a line's end
  // columns may hold a texel of the next or last block's line.
  uint y = uint(gl_FragCoord.y);
  uint o = ((y >> 1u) << (log2w + 1u)) | (uint(gl_FragCoord.x) << 1u) | (y & 1u);
#ifdef SRT_LINE_TEXELS
  if (o - dFirst >= dTexels) discard;
#endif
#else
  uint o = fragIndex(log2w);
#endif
#ifdef SRT_DIAG_FULLSCREEN
  // Blocks keeping half their elements, laid end to end from texel 0.
  uint h = blockLog2 - 1u, b = (o << 2u) >> h;
  dStart = b << h;
  dLength = 1u << h;
  dSource = b << blockLog2;
#endif
#if defined(SRT_DIAG_BARE)
  emitQuad(uvec4(o), bvec4(true));  // no flat inputs: the linker drops the lines' outputs
#elif defined(SRT_DIAG_CONST)
  emitQuad(uvec4(dStart, dLength, dSource, o), bvec4(true));
#elif defined(SRT_DIAG_FETCH) && defined(SRT_ALIGNED)
  uint slot = (o - (dStart >> 2u)) & ((1u << (blockLog2 - 2u)) - 1u);
#ifdef SRT_WIDE
  uint t = (dSource >> 4u) + (slot >> 2u);
#else
  uint t = (dSource >> 2u) + slot;
#endif
  emitQuad(texelFetch(local, texelOf(t, localLog2w), 0), bvec4(true));
#elif defined(SRT_DIAG_FETCH) && defined(SRT_PAIR)
  uint base = dSource >> 2u, qa = base + (((o << 2u) - dStart) >> 2u);
  uint qb = min(qa + 1u, base + (1u << (blockLog2 - 2u)) - 1u);
  emitQuad(texelFetch(local, texelOf(qa, localLog2w), 0) +
               texelFetch(local, texelOf(qb, localLog2w), 0),
           bvec4(true));
#elif defined(SRT_DIAG_FETCH)
  uint p = dSource + (o << 2u) - dStart;
  emitQuad(uvec4(loadQuarter(local, localLog2w, p), loadQuarter(local, localLog2w, p + 1u),
                 loadQuarter(local, localLog2w, p + 2u), loadQuarter(local, localLog2w, p + 3u)),
           bvec4(true));
#elif defined(SRT_QUAD)
  uvec4 src;
  bvec4 valid;
  blockTexel(o, dStart, dLength, dSource, src, valid);
#ifdef SRT_INLINE_HEADS
  laterBlocks(o, src, valid);
#endif
  if (!any(valid)) discard;  // guards the rasterisation rule
  emitQuad(src, valid);
#else
  if (o < dStart || o - dStart >= dLength) discard;  // guards the rasterisation rule
  emitSource(sourceOf(o));
#endif
}
