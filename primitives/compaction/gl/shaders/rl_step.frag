// RLZ run lengths by recursive doubling (Moreira 2010, Alg. 2): a position whose run already
// spans `offset` elements extends it by the run found `offset` further right, within the block.
// The first step reads the empty flags from the bits (SRC_EMPTY_BITS), the others the last step.
uniform uint log2w;
uniform uint offset;
layout(location = 0) out uint result;

void main() {
  uint i = fragIndex(log2w);
  uint v = srcValue(i);
  if (v == offset && (i & (kBlock - 1u)) + offset < kBlock) v += srcValue(i + offset);
  result = v;
}
