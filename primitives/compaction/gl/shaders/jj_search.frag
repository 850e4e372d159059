// Jumping Jack inside blocks (Moreira et al. 2009; not order-preserving). A block keeping v
// elements leaves its kept elements below v in place; the r-th hole below v takes the r-th kept
// element counted from the block's end, found by jumping over pSum (from the flag bits): kept
// element q has q + (empties after q) = s - 1 - r, and every probe q' >= q overshoots by at least
// that sum's excess. Four positions per fragment, outputs are in-block offsets (as search.frag).
uniform uint count;  // padded stream length, a multiple of the block
uniform uint log2w;  // output layout, four positions per texel
layout(location = 0) out uvec4 result;

uint jump(uint i) {
  if (isKept(i)) return i;
  uint empties = kBlock - gTotal;
  uint target = kBlock - pSum(i);  // s - 1 - (rank of this hole)
  uint q = target;
  for (;;) {
    uint g = q + empties - pSum(q);
    if (g == target && isKept(q)) return q;
    q -= max(1u, g - target);
  }
}

void main() {
  uint first = fragIndex(log2w) << 2u;
  if (first >= count) discard;
  loadBlock(first & ~(kBlock - 1u));
  uint i0 = first - gBase;
  if (i0 >= gTotal) discard;
  uvec4 r = uvec4(0u);
  for (uint k = 0u; k < 4u; ++k)
    if (i0 + k < gTotal) r[k] = jump(i0 + k);
  result = r;
}
