// Horn 2005: position o of the output receives the o-th kept element of the whole stream, found
// by a binary search with a loop of fixed length over pSum, the inclusive scan of the empty
// flags: the first j whose count of kept elements in [0, j], j + 1 - pSum[j], reaches o + 1. The
// search writes the element's fields (or its index) itself: no separate gather pass.
uniform usampler2D pSumTex;
uniform uint pSumLog2w;
uniform uint count;    // stream length
uniform uint steps;    // log2 of the stream length rounded up to a power of two, plus 1
uniform uint log2w;    // output layout (texels)

uint ps(uint j) { return loadU(pSumTex, pSumLog2w, j); }

uint search(uint o, uint empties) {
  uint lo = o, hi = o + empties;
  for (uint step = 0u; step < steps; ++step) {
    uint mid = (lo + hi) >> 1u;
    if (mid + 1u - ps(mid) >= o + 1u) hi = mid;
    else lo = min(mid + 1u, hi);
  }
  return lo;
}

void main() {
  uint o = fragIndex(log2w);
  uint empties = ps(count - 1u);
#ifdef SRT_QUAD
  // Four output positions per fragment, written as one 16-byte texel.
  uvec4 src = uvec4(0u);
  bvec4 valid = bvec4(false);
  for (uint c = 0u; c < 4u; ++c) {
    valid[c] = (o << 2u) + c < count - empties;
    if (valid[c]) src[c] = search((o << 2u) + c, empties);
  }
  if (!valid.x) discard;
  emitQuad(src, valid);
#else
  if (o >= count - empties) discard;
  emitSource(search(o, empties));
#endif
}
