// One step of Hillis and Steele's scan inside segments of 2^k elements (the blocks; the whole
// stream for Horn): inclusive sums double their reach each pass. The first step reads the source
// (flags or counts where they are), so it is fused with the pass that would have produced them.
uniform uint log2w;
uniform uint offset;
uniform uint segMask;  // segment size - 1
layout(location = 0) out uint result;

void main() {
  uint i = fragIndex(log2w);
  uint v = srcValue(i);
  if ((i & segMask) >= offset) v += srcValue(i - offset);
  result = v;
}
