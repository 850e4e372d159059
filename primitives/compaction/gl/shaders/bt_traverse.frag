// Binary tree traversal inside blocks (Moreira 2010, Alg. 5): level d of the tree holds the
// kept elements under each node of 2^d leaves. Levels 0..7 are the flag bits themselves (a node
// count is a popcount of its group's bits, and the descent through them is selectInGroup);
// levels 8..BLOCK_LOG2 are textures (tree levels of group counts). Position i of a block walks
// from the block's root to the leaf holding its i-th kept element, keeping [minR, ...) of the
// subtree. Four positions per fragment; outputs are
// in-block offsets (8 bits for blocks up to 256 elements, else 16).
uniform usampler2D levels[4];  // levels 8..11 (index d - 8)
uniform uint levelLog2w[4];
uniform uint count;  // padded stream length, a multiple of the block
uniform uint log2w;  // output layout, four positions per texel
layout(location = 0) out uvec4 result;

#if BLOCK_LOG2 > 7
// From the block's root down the texture levels to a group (level 7), then through its bits.
uint traverse(uint b, uint i) {
  uint minR = 0u, node = b;
  for (int d = BLOCK_LOG2 - 1; d >= 7; --d) {
    uint left = node * 2u;
    uint leftKept = d >= 8 ? loadU(levels[max(d - 8, 0)], levelLog2w[max(d - 8, 0)], left)
                           : popBefore(loadGroup(left), 128u);  // level 7: a group's popcount
    node = left;
    if (i >= minR + leftKept) {
      minR += leftKept;
      node = left + 1u;
    }
  }
  return (node << 7u) + selectInGroup(loadGroup(node), i - minR) - (b << BLOCK_LOG2);
}
#endif

void main() {
  uint first = fragIndex(log2w) << 2u;
  if (first >= count) discard;
  uint b = first >> BLOCK_LOG2;
  uint i0 = first & (kBlock - 1u);
#if BLOCK_LOG2 > 7
  uint kept = loadU(levels[BLOCK_LOG2 - 8], levelLog2w[BLOCK_LOG2 - 8], b);
#else
  // The block is a subtree of its group: the tree's root is the popcount of the block's bits,
  // and its i-th kept element is the group's (kept before the block + i)-th.
  uint q0 = (b << BLOCK_LOG2) & 127u;
  uvec4 v = loadGroup(b >> (7 - BLOCK_LOG2));
  uint before = popBefore(v, q0);
  uint kept = popBefore(v, q0 + kBlock) - before;
#endif
  if (i0 >= kept) discard;
  uvec4 r = uvec4(0u);
  for (uint k = 0u; k < 4u; ++k) {
    if (i0 + k >= kept) break;
#if BLOCK_LOG2 > 7
    r[k] = traverse(b, i0 + k);
#else
    r[k] = selectInGroup(v, before + i0 + k) - q0;
#endif
  }
  result = r;
}
