// Binary tree traversal inside blocks (Moreira 2010, Alg. 5): level d of the tree holds the
// kept elements under each node of 2^d leaves. Levels 0..7 are the flag bits themselves (a node
// count is a popcount of its group's bits); levels 8..BLOCK_LOG2 are textures (tree levels of
// group counts). Position i of a block walks from the block's root to the leaf holding its i-th
// kept element, keeping [minR, ...) of the subtree. Four positions per fragment; outputs are
// in-block offsets (8 bits for blocks up to 256 elements, else 16).
uniform usampler2D levels[4];  // levels 8..11 (index d - 8)
uniform uint levelLog2w[4];
uniform uint count;  // padded stream length, a multiple of the block
uniform uint log2w;  // output layout, four positions per texel
layout(location = 0) out uvec4 result;

uint rootKept(uint b) {
#if BLOCK_LOG2 > 7
  return loadU(levels[BLOCK_LOG2 - 8], levelLog2w[BLOCK_LOG2 - 8], b);
#else
  uint p = b << BLOCK_LOG2;
  uvec4 v = loadGroup(p >> 7u);
  return popBefore(v, (p & 127u) + kBlock) - popBefore(v, p & 127u);
#endif
}

uint traverse(uint b, uint i) {
  uint minR = 0u;
  // Down the texture levels to a group (level 7).
  uint node = b;
#if BLOCK_LOG2 > 7
  for (int d = BLOCK_LOG2 - 1; d >= 8; --d) {
    uint left = node * 2u;
    uint leftKept = loadU(levels[d - 8], levelLog2w[d - 8], left);
    if (i < minR + leftKept) {
      node = left;
    } else {
      minR += leftKept;
      node = left + 1u;
    }
  }
  uint leftKept = popBefore(loadGroup(node * 2u), 128u);  // level 7: a group's popcount
  node = node * 2u;
  if (i >= minR + leftKept) {
    minR += leftKept;
    node += 1u;
  }
  uint g = node, q = 0u;
  const int top = 7;
#else
  uint p = b << BLOCK_LOG2;
  uint g = p >> 7u, q = p & 127u;
  const int top = BLOCK_LOG2;
#endif
  // Down the levels inside the group: node [q, q + 2^d) of its bits.
  uvec4 v = loadGroup(g);
  for (int d = top - 1; d >= 0; --d) {
    uint leftKept = popBefore(v, q + (1u << d)) - popBefore(v, q);
    if (i >= minR + leftKept) {
      minR += leftKept;
      q += 1u << d;
    }
  }
  return ((g << 7u) + q) - (b << BLOCK_LOG2);
}

void main() {
  uint first = fragIndex(log2w) << 2u;
  if (first >= count) discard;
  uint b = first >> BLOCK_LOG2;
  uint kept = rootKept(b);
  uint i0 = first & (kBlock - 1u);
  if (i0 >= kept) discard;
  uvec4 r = uvec4(0u);
  for (uint k = 0u; k < 4u; ++k)
    if (i0 + k < kept) r[k] = traverse(b, i0 + k);
  result = r;
}
