// Roger 2007, III-B: inside each block, position i receives the valid element j with
// j - pSum[j] = i, found by dichotomic search over pSum (the empties among positions [0, j],
// evaluated from the flag bits: blocks.glsl). Four positions per fragment; each output is the
// in-block offset j (8 bits for blocks up to 256 elements, else 16). Texels wholly past the
// block's kept count are not written: concatenation never reads them.
uniform uint count;     // padded stream length, a multiple of the block
uniform uint log2w;     // output layout, four positions per texel
uniform uint improved;  // 1: Fig. 5 (conditional loop, tightened bounds); 0: fixed-length loop
// SRT_NEXT_KEPT (search=next): only a texel's first position is searched; positions i + 1.. of a
// block hold the kept elements that follow j, so each is the next set bit after the last.
layout(location = 0) out uvec4 result;

uint search(uint i) {
  if (improved != 0u) {
    // Fig. 5: j - pSum[j] is contracting, so each probe also tightens the bounds by |found|.
    uint lo = i + pSum(i);
    uint hi = i + (kBlock - gTotal);
    uint j = (lo + hi) >> 1u;
    int found = int(j) - int(pSum(j)) - int(i);
    while (found != 0 || !isKept(j)) {
      if (found < 0) lo = uint(int(j) - found);
      else hi = j - uint(max(1, found));
      j = (lo + hi) >> 1u;
      found = int(j) - int(pSum(j)) - int(i);
    }
    return j;
  }
  // Fixed length (log2(s) + 1 probes on the 8800): the same bisection for the first j whose
  // count of kept elements in [0, j] reaches i + 1, its probes read from the counts of the bits.
  return selectInBlock(i);
}

#ifdef SRT_NEXT_KEPT
// The block position of the first kept element after position j (one exists in the block).
uint nextKeptAfter(uint j) {
#if BLOCK_LOG2 <= 7
  // In the block's group, already loaded: a masked word, then the words after it.
  uint q = gQ0 + j + 1u;
  uint w = q >> 5u;
  uint m = gBits[w] & (~0u << (q & 31u));
  while (m == 0u) m = gBits[++w];
  return (w << 5u) + uint(findLSB(m)) - gQ0;
#else
  uint p = gBase + j + 1u;
  for (;;) {
    uvec4 v = loadGroup(p >> 7u);
    for (uint w = (p & 127u) >> 5u; w < 4u; ++w) {
      uint m = v[w] & (~0u << ((p & 127u) >> 5u == w ? p & 31u : 0u));
      if (m != 0u) return (p & ~127u) + (w << 5u) + uint(findLSB(m)) - gBase;
    }
    p = (p & ~127u) + 128u;
  }
#endif
}
#endif

void main() {
  uint first = fragIndex(log2w) << 2u;
  if (first >= count) discard;
  loadBlock(first & ~(kBlock - 1u));
  uint i0 = first - gBase;
  if (i0 >= gTotal) discard;
  uvec4 r = uvec4(0u);
#ifdef SRT_NEXT_KEPT
  r[0] = search(i0);
  for (uint k = 1u; k < 4u; ++k)
    if (i0 + k < gTotal) r[k] = nextKeptAfter(r[k - 1u]);
#else
  for (uint k = 0u; k < 4u; ++k)
    if (i0 + k < gTotal) r[k] = search(i0 + k);
#endif
  result = r;
}
