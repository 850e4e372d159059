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
uint gQ0, gBefore;  // the block's first bit in it, and the kept bits before that
#endif
uint gBase;   // the block's first element
uint gTotal;  // its kept elements

void loadBlock(uint base) {
  gBase = base;
#if BLOCK_LOG2 <= 7
  gBits = loadGroup(base >> 7u);
  gQ0 = base & 127u;
  gBefore = popBefore(gBits, gQ0);
  gTotal = popBefore(gBits, gQ0 + kBlock) - gBefore;
#else
  gTotal = loadU(groupScan, groupLog2w, ((base + kBlock) >> 7u) - 1u);
#endif
}

// Kept elements among block positions [0, j), j in [0, s].
uint keptBefore(uint j) {
#if BLOCK_LOG2 <= 7
  return popBefore(gBits, gQ0 + j) - gBefore;
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
#endif
