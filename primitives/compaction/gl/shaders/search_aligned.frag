// Roger 2007, III-B, with the in-block offsets laid out for the concatenation (offsets=aligned or
// wide; blocks of up to 128, one group of flag bits). Block b's survivors start at output element
// S, so its rank r lands in output texel (S + r) >> 2, component (S + r) & 3. The search writes
// rank r at slot position (r + a) mod s, a = S & 3: output texel j of the block (counted from the
// texel holding S) then finds its four offsets in slot j mod s/4, in place, with one fetch (the
// ranks that wrap past s are the head the block ORs into the texel it shares). So the scan of
// block counts runs first. A fragment writes 4 positions (RGBA8UI) or, with SRT_WIDE, 16
// (RGBA32UI, four bytes a component). The first valid rank is found by a fixed-length search over
// the word prefixes (compares), then inside the word; the rest are the next kept bits
// (SRT_PLAIN_SELECT: every rank searched).
uniform uint count;  // padded stream length, a multiple of the block
uniform uint log2w;  // output layout
uniform usampler2D blockScan;  // inclusive scan of the kept counts per block
uniform uint blockLog2w;
layout(location = 0) out uvec4 result;

#ifdef SRT_WIDE
const uint kPositions = 16u;
#else
const uint kPositions = 4u;
#endif

uint wordOf(uvec4 v, uint w) { return w < 2u ? (w == 0u ? v.x : v.y) : (w == 2u ? v.z : v.w); }

// Position (0..31) of the r-th set bit of x: halves, bytes, nibbles, pairs, bits.
uint selectInWord(uint x, uint r) {
  uint pos = 0u;
  for (uint w = 16u; w > 0u; w >>= 1u) {
    uint c = uint(bitCount(x & ((1u << w) - 1u)));
    if (r >= c) {
      r -= c;
      pos += w;
      x >>= w;
    }
  }
  return pos;
}

// The group position of the block's rank r. Leaves its word in sWord and that word's bits after
// it in sRest, where nextKept() goes on.
uint sWord, sRest;
uint selectRank(uint r) {
  uint R = gBefore + r;
  sWord = uint(R >= gPrefix.y) + uint(R >= gPrefix.z) + uint(R >= gPrefix.w);
  uint x = wordOf(gBits, sWord);
  uint p = selectInWord(x, R - wordOf(gPrefix, sWord));
  sRest = x & ((~0u << p) << 1u);
  return (sWord << 5u) + p;
}

// The group position of the next kept bit (there is one): the lowest of sRest, or of a later
// word. findMSB of the isolated bit: one instruction where findLSB takes two on NVIDIA.
uint nextKept() {
  while (sRest == 0u && sWord < 3u) sRest = wordOf(gBits, ++sWord);
  uint low = sRest & (0u - sRest);
  sRest ^= low;
  return (sWord << 5u) + uint(findMSB(low));
}

void main() {
  uint first = fragIndex(log2w) * kPositions;
  if (first >= count) discard;
  uint base = first & ~(kBlock - 1u);
  loadBlock(base);
  uint b = base >> BLOCK_LOG2;
  uint a = b == 0u ? 0u : loadU(blockScan, blockLog2w, b - 1u) & 3u;
  uint slot = first - base;
  uint r0 = (slot + kBlock - a) & (kBlock - 1u);  // the rank of the texel's first position
  // Slot 0 holds rank 0 (at position a); other slots hold ranks r0.. only.
  if ((slot == 0u ? 0u : r0) >= gTotal) discard;
  uvec4 r = uvec4(0u);
  uint pos = 0u;
  for (uint k = 0u; k < kPositions; ++k) {
    uint rank = (r0 + k) & (kBlock - 1u);
    uint v = 0u;
    if (rank < gTotal) {
#ifdef SRT_PLAIN_SELECT
      pos = selectRank(rank);
#else
      // A run of ranks starts at the texel's first position and again at rank 0 (the wrap).
      pos = k == 0u || rank == 0u ? selectRank(rank) : nextKept();
#endif
      v = pos - gQ0;
    }
#ifdef SRT_WIDE
    r[k >> 2u] |= v << ((k & 3u) << 3u);
#else
    r[k] = v;
#endif
  }
  result = r;
}
