// RLZ run lengths by recursive doubling (Moreira 2010, Alg. 2): a position whose run already
// spans `offset` elements extends it by the run found `offset` further right, within the block.
uniform usampler2D runs;
uniform uint log2w;
uniform uint offset;
uniform uint blockLog2;
layout(location = 0) out uint result;

void main() {
  uint i = fragIndex(log2w);
  uint s = 1u << blockLog2;
  uint v = loadU(runs, log2w, i);
  if (v == offset && (i & (s - 1u)) + offset < s) v += loadU(runs, log2w, i + offset);
  result = v;
}
