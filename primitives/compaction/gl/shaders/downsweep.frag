// Blelloch/Sengupta down-sweep, one level: the exclusive sum of node i is its parent's, plus its
// left sibling's total when i is a right child. The parent level may hold inclusive sums (the top
// of the hybrid scan, scanned by Hillis-Steele): its own total is then subtracted. The last level
// can write inclusive sums directly. Level d's totals are the source.
uniform usampler2D parent;        // scan of level d+1
uniform usampler2D parentTotals;  // level d+1 node totals (for an inclusive parent)
uniform uint parentLog2w;
uniform uint parentInclusive;
uniform uint log2w;
uniform uint outInclusive;
layout(location = 0) out uint result;

void main() {
  uint i = fragIndex(log2w);
  uint p = i >> 1u;
  uint e = loadU(parent, parentLog2w, p);
  if (parentInclusive != 0u) e -= loadU(parentTotals, parentLog2w, p);
  if ((i & 1u) != 0u) e += srcValue(i - 1u);
  if (outInclusive != 0u) e += srcValue(i);
  result = e;
}
