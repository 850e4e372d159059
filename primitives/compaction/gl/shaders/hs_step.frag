// One step of Hillis and Steele's scan inside segments of 2^k elements (the blocks; the whole
// stream for Horn): inclusive sums double their reach each pass.
uniform usampler2D values;
uniform uint log2w;
uniform uint offset;
uniform uint segMask;  // segment size - 1
layout(location = 0) out uint result;

void main() {
  uint i = fragIndex(log2w);
  uint v = loadU(values, log2w, i);
  if ((i & segMask) >= offset) v += loadU(values, log2w, i - offset);
  result = v;
}
