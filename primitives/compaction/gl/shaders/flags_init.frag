// Keep flags (one byte each) to the 0/1 stream an algorithm scans: empty flags (1 = discarded)
// for the prefix-sum algorithms, valid flags (1 = kept) for the binary tree. Padding past `count`
// up to the block multiple is empty.
uniform usampler2D keep;
uniform uint keepLog2w;
uniform uint count;
uniform uint countValid;  // 1: output valid flags, 0: empty flags
uniform uint outLog2w;
layout(location = 0) out uint result;

void main() {
  uint i = fragIndex(outLog2w);
  uint valid = (i < count && loadU(keep, keepLog2w, i) != 0u) ? 1u : 0u;
  result = countValid != 0u ? valid : 1u - valid;
}
