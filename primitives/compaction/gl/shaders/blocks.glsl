// Inside a block of s = 2^BLOCK_LOG2 elements: kept counts from the flag bits. A block of at
// most 128 elements lies in one group, so its prefix sums are popcounts of one texel; a larger
// block adds the group-level scan (groupScan: inclusive, per block). A pass calls loadBlock(base)
// once, then keptBefore(j), pSum(j) and isKept(j) for positions j of that block.
#ifdef BLOCK_LOG2
const uint kBlock = 1u << BLOCK_LOG2;
#if BLOCK_LOG2 > 7
uniform usampler2D groupScan;
uniform uint groupLog2w;
#else
uvec4 gBits;        // the block's group
uvec4 gPrefix;      // kept bits before each of its words
uint gQ0, gBefore;  // the block's first bit in it, and the kept bits before that
// Kept bits among the group's first q (0..128), from the word prefixes.
uint groupBefore(uint q) {
  if (q >= 128u) return gPrefix.w + uint(bitCount(gBits.w));
  return gPrefix[q >> 5u] + uint(bitCount(gBits[q >> 5u] & ((1u << (q & 31u)) - 1u)));
}
#endif
uint gBase;   // the block's first element
uint gTotal;  // its kept elements

void loadBlock(uint base) {
  gBase = base;
#if BLOCK_LOG2 <= 7
  gBits = loadGroup(base >> 7u);
  ivec4 c = bitCount(gBits);
  gPrefix = uvec4(0u, uint(c.x), uint(c.x + c.y), uint(c.x + c.y + c.z));
  gQ0 = base & 127u;
  gBefore = groupBefore(gQ0);
  gTotal = groupBefore(gQ0 + kBlock) - gBefore;
#else
  gTotal = loadU(groupScan, groupLog2w, ((base + kBlock) >> 7u) - 1u);
#endif
}

// Kept elements among block positions [0, j), j in [0, s].
uint keptBefore(uint j) {
#if BLOCK_LOG2 <= 7
  return groupBefore(gQ0 + j) - gBefore;
#else
  if (j >= kBlock) return gTotal;
  uint p = gBase + j;
  uvec4 v = loadGroup(p >> 7u);
  return loadU(groupScan, groupLog2w, p >> 7u) - popBefore(v, 128u) + popBefore(v, p & 127u);
#endif
}

bool isKept(uint j) {
#if BLOCK_LOG2 <= 7
  return bitAt(gBits, gQ0 + j) != 0u;
#else
  uint p = gBase + j;
  return bitAt(loadGroup(p >> 7u), p & 127u) != 0u;
#endif
}

// Roger's pSum[j]: the empty elements among block positions [0, j].
uint pSum(uint j) { return j + 1u - keptBefore(j + 1u); }

// The block position of its i-th kept element (i below gTotal), by a dichotomic search of fixed
// length over the kept counts: across the block's groups on the group scan (log2(s / 128)
// probes), then through the group's bits (selectInGroup).
uint selectInBlock(uint i) {
#if BLOCK_LOG2 <= 7
  return selectInGroup(gBits, gBefore + i) - gQ0;
#else
  uint g0 = gBase >> 7u, lo = 0u, hi = (kBlock >> 7u) - 1u;
  for (int step = 0; step < BLOCK_LOG2 - 7; ++step) {
    uint mid = (lo + hi) >> 1u;
    if (loadU(groupScan, groupLog2w, g0 + mid) > i) hi = mid;
    else lo = mid + 1u;
  }
  uvec4 v = loadGroup(g0 + lo);
  uint before = loadU(groupScan, groupLog2w, g0 + lo) - uint(bitCount(v.x) + bitCount(v.y) +
                                                              bitCount(v.z) + bitCount(v.w));
  return (lo << 7u) + selectInGroup(v, i - before);
#endif
}
#endif
