// Keep flags (one byte each) to bits, 128 to a texel: each fragment reads the 128 bytes of its
// group as eight 16-byte texels of the keep buffer and writes 16 bytes. Elements past `count`
// are not kept.
uniform usamplerBuffer keepWords;  // RGBA32UI view of the keep bytes
uniform uint count;
uniform uint log2w;  // bits layout
layout(location = 0) out uvec4 result;

// Four keep bytes to four bits: a nonzero byte sets its lowest bit, then one multiply gathers
// bits 0, 8, 16 and 24 into bits 24..27.
uint packWord(uint x) {
  x |= x >> 4u;
  x |= x >> 2u;
  x |= x >> 1u;
  return ((x & 0x01010101u) * 0x01020408u) >> 24u;
}

void main() {
  uint g = fragIndex(log2w);
  uint base = g << 7u;
  if (base >= count) {
    result = uvec4(0u);
    return;
  }
  // All eight fetches first, so they are in flight together; past the buffer's end they read
  // undefined values, which the count masks away.
  uvec4 b[8];
  for (uint k = 0u; k < 8u; ++k) b[k] = texelFetch(keepWords, int((g << 3u) + k));
  uvec4 r = uvec4(0u);
  for (uint k = 0u; k < 8u; ++k) {
    uint bits16 = packWord(b[k].x) | (packWord(b[k].y) << 4u) | (packWord(b[k].z) << 8u) |
                  (packWord(b[k].w) << 12u);
    r[k >> 1u] |= bits16 << ((k & 1u) << 4u);
  }
  uint valid = min(count - base, 128u);
  if (valid < 128u) {
    ivec4 n = clamp(ivec4(int(valid)) - ivec4(0, 32, 64, 96), 0, 32);
    r = uvec4(bitfieldExtract(r.x, 0, n.x), bitfieldExtract(r.y, 0, n.y),
              bitfieldExtract(r.z, 0, n.z), bitfieldExtract(r.w, 0, n.w));
  }
  result = r;
}
