// Roger 2007, III-B: inside each block, position i receives the valid element j with
// j - pSum[j] = i, found by dichotomic search over pSum (the empties among positions [0, j],
// evaluated from the flag bits: blocks.glsl). Four positions per fragment; each output is the
// in-block offset j (8 bits for blocks up to 256 elements, else 16). Texels wholly past the
// block's kept count are not written: concatenation never reads them.
uniform uint count;     // padded stream length, a multiple of the block
uniform uint log2w;     // output layout, four positions per texel
uniform uint improved;  // 1: Fig. 5 (conditional loop, tightened bounds); 0: fixed-length loop
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

void main() {
  uint first = fragIndex(log2w) << 2u;
  if (first >= count) discard;
  loadBlock(first & ~(kBlock - 1u));
  uint i0 = first - gBase;
  if (i0 >= gTotal) discard;
  uvec4 r = uvec4(0u);
  for (uint k = 0u; k < 4u; ++k)
    if (i0 + k < gTotal) r[k] = search(i0 + k);
  result = r;
}
