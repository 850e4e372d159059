// Jumping Jack inside blocks (Moreira et al. 2009; not order-preserving). A block keeping v
// elements leaves its kept elements below v in place; the r-th hole below v takes the r-th kept
// element counted from the block's end, found by jumping over pSum: kept element q has
// q + (empties after q) = s - 1 - r, and every probe q' >= q overshoots by at least that sum's excess.
uniform usampler2D pSum;   // inclusive per-block scan of the empty flags
uniform usampler2D empty;
uniform uint log2w;
uniform uint blockLog2;
uniform uint count;  // padded stream length: fragments past it write kInvalid
layout(location = 0) out uint result;

void main() {
  uint o = fragIndex(log2w);
  uint s = 1u << blockLog2;
  if (o >= count) {
    result = kInvalid;
    return;
  }
  uint base = o & ~(s - 1u);
  uint i = o - base;
  uint total = loadU(pSum, log2w, base + s - 1u);
  if (i + total > s - 1u) {
    result = kInvalid;
    return;
  }
  if (loadU(empty, log2w, o) == 0u) {
    result = o;
    return;
  }
  uint r = loadU(pSum, log2w, o) - 1u;  // rank of this hole
  uint target = s - 1u - r;
  uint q = target;
  for (;;) {
    uint g = q + total - loadU(pSum, log2w, base + q);
    if (g == target && loadU(empty, log2w, base + q) == 0u) break;
    q -= max(1u, g - target);
  }
  result = base + q;
}
