// Binary tree traversal inside blocks (Moreira 2010, Alg. 5): level 0 holds the valid flags,
// level d the number of kept elements under each node. Position i of a block walks from the
// block's root to the leaf holding its i-th kept element, keeping [minR, ...) of the subtree.
#define MAX_LEVELS 12
uniform usampler2D levels[MAX_LEVELS];
uniform uint levelLog2w[MAX_LEVELS];
uniform uint log2w;  // output layout (that of level 0)
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
  uint i = o & (s - 1u);
  uint node = o >> blockLog2;
  uint top = blockLog2;
  if (i >= loadU(levels[top], levelLog2w[top], node)) {
    result = kInvalid;
    return;
  }
  uint minR = 0u;
  for (int d = int(top) - 1; d >= 0; --d) {
    uint left = node * 2u;
    uint leftKept = loadU(levels[d], levelLog2w[d], left);
    if (i < minR + leftKept) {
      node = left;
    } else {
      minR += leftKept;
      node = left + 1u;
    }
  }
  result = node;
}
