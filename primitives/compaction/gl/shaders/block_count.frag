// Kept elements per block: from the last entry of the per-block scan of empties (s - pSum), or
// read directly from a level holding one count per block (binary tree root). Padding blocks
// count 0.
uniform usampler2D source;
uniform uint sourceLog2w;
uniform uint blockLog2;
uniform uint numBlocks;
uniform uint fromEmpties;
uniform uint log2w;
layout(location = 0) out uint result;

void main() {
  uint b = fragIndex(log2w);
  uint s = 1u << blockLog2;
  if (b >= numBlocks) result = 0u;
  else if (fromEmpties != 0u) result = s - loadU(source, sourceLog2w, b * s + s - 1u);
  else result = loadU(source, sourceLog2w, b);
}
