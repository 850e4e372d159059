// One step of Hillis and Steele's scan inside segments of 2^k elements (the blocks; the whole
// stream for Horn): inclusive sums double their reach each pass (radix 2), or multiply it by the
// radix, adding radix - 1 earlier elements. The first step reads the source (flags or counts where
// they are), so it is fused with the pass that would have produced them.
uniform uint log2w;
uniform uint offset;
uniform uint segMask;  // segment size - 1
uniform uint radix;
layout(location = 0) out uint result;

void main() {
  uint i = fragIndex(log2w);
  uint v = srcValue(i);
  for (uint t = 1u; t < radix; ++t) {
    uint d = t * offset;
    if ((i & segMask) < d) break;
    v += srcValue(i - d);
  }
  result = v;
}
