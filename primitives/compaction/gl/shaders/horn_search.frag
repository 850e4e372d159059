// Horn 2005: position o of the output receives the o-th kept element of the whole stream, found
// by a binary search with a loop of fixed length over pSum, the inclusive scan of the empty
// flags: the first j whose count of kept elements in [0, j], j + 1 - pSum[j], reaches o + 1. The
// search writes the element's fields (or its index) itself: no separate gather pass.
uniform usampler2D pSumTex;
uniform uint pSumLog2w;
uniform uint count;    // stream length
uniform uint steps;    // log2 of the stream length rounded up to a power of two, plus 1
uniform uint log2w;    // output layout

uint ps(uint j) { return loadU(pSumTex, pSumLog2w, j); }

void main() {
  uint o = fragIndex(log2w);
  uint empties = ps(count - 1u);
  if (o >= count - empties) discard;
  uint lo = o, hi = o + empties;
  for (uint step = 0u; step < steps; ++step) {
    uint mid = (lo + hi) >> 1u;
    if (mid + 1u - ps(mid) >= o + 1u) hi = mid;
    else lo = min(mid + 1u, hi);
  }
  emitSource(lo);
}
