// RLZ run lengths by balanced tree, down-sweep (Moreira 2010, Alg. 4): after[i] is the run of
// empties that starts right after node i's leaves; a left child sees its sibling's run, extended
// by the parent's when the sibling is full. On the leaf level (`leaves`) the run starting at i
// itself is written: 1 + after[i] on an empty element, 0 on a kept one. Level d's up-sweep run
// lengths are the source (the empty flags from the bits on the leaf level).
uniform usampler2D parentAfter;  // level d+1
uniform uint parentLog2w;
uniform uint log2w;
uniform uint fullRun;  // 2^d: a full node at level d
uniform uint leaves;
uniform uint root;     // level d+1 is a block root: nothing follows the block
layout(location = 0) out uint result;

void main() {
  uint i = fragIndex(log2w);
  uint up = root != 0u ? 0u : loadU(parentAfter, parentLog2w, i >> 1u);
  uint after = up;
  if ((i & 1u) == 0u) {
    uint sibling = srcValue(i + 1u);
    after = sibling == fullRun ? sibling + up : sibling;
  }
  result = leaves != 0u ? (srcValue(i) != 0u ? 1u + after : 0u) : after;
}
