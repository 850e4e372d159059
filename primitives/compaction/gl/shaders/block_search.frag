// Gather search inside blocks of s = 2^blockLog2 elements (Roger 2007, III-B; Horn 2005 when the
// block is the whole stream). pSum is the inclusive per-block scan of the empty flags, so valid
// element j moves to j - pSum[j]. Position i of a block receives the j with j - pSum[j] = i, or
// kInvalid when the block keeps i elements or fewer. Output values are stream indices.
uniform usampler2D pSum;
uniform usampler2D empty;  // 1 = discarded (padding included)
uniform uint log2w;        // layout of pSum, empty and the output
uniform uint blockLog2;
uniform uint count;  // padded stream length: fragments past it write kInvalid
uniform uint improved;     // 1: Fig. 5 (conditional loop, tightened bounds); 0: fixed-length loop
layout(location = 0) out uint result;

uint ps(uint base, uint j) { return loadU(pSum, log2w, base + j); }

void main() {
  uint o = fragIndex(log2w);
  uint s = 1u << blockLog2;
  if (o >= count) {
    result = kInvalid;
    return;
  }
  uint base = o & ~(s - 1u);
  uint i = o - base;
  uint total = ps(base, s - 1u);
  if (i + total > s - 1u) {  // Fig. 5 line 3: no element lands at i
    result = kInvalid;
    return;
  }
  if (improved != 0u) {
    // Fig. 5: j - pSum[j] is contracting, so each probe also tightens the bounds by |found|.
    uint lo = i + ps(base, i);
    uint hi = i + total;
    uint j = (lo + hi) >> 1u;
    int found = int(j) - int(ps(base, j)) - int(i);
    while (found != 0 || loadU(empty, log2w, base + j) != 0u) {
      if (found < 0) lo = uint(int(j) - found);
      else hi = j - uint(max(1, found));
      j = (lo + hi) >> 1u;
      found = int(j) - int(ps(base, j)) - int(i);
    }
    result = base + j;
  } else {
    // Horn: a lower-bound binary search with a loop of fixed length log2(s) + 1 for the first j
    // whose count of kept elements in [0, j], j + 1 - pSum[j], reaches i + 1.
    uint lo = i, hi = i + total;
    for (uint step = 0u; step <= blockLog2; ++step) {
      uint mid = (lo + hi) >> 1u;
      if (mid + 1u - ps(base, mid) >= i + 1u) hi = mid;
      else lo = min(mid + 1u, hi);
    }
    result = base + lo;
  }
}
