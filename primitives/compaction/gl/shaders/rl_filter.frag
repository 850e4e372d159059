// RLZ: keep each run length only where its run starts (block start, or a kept element on the
// left), so that the scan of the result sums every run once.
uniform usampler2D runs;
uniform uint log2w;
uniform uint blockLog2;
layout(location = 0) out uint result;

void main() {
  uint i = fragIndex(log2w);
  bool start = (i & ((1u << blockLog2) - 1u)) == 0u || loadU(runs, log2w, i - 1u) == 0u;
  result = start ? loadU(runs, log2w, i) : 0u;
}
