// What a scan, a reduction or a run-length pass reads on its first level, chosen by SRC_KIND, so
// that level is computed where it is read instead of in a pass of its own: a texture (any
// integer format, element i at i * stride + offset, optionally as `complement - value` or kept
// only at run starts), the empty flags of the keep bytes (Horn), the empty flags of the bits
// (RLZ), the kept count of each 128-element group or of each block (popcounts). Past srcCount
// every source reads 0.
#ifdef SRC_KIND
#define SRC_TEXTURE 1
#define SRC_EMPTY_BYTES 2
#define SRC_EMPTY_BITS 3
#define SRC_GROUP_KEPT 4
#define SRC_BLOCK_KEPT 5
uniform uint srcCount;
#if SRC_KIND == SRC_TEXTURE
uniform usampler2D srcTex;
uniform uint srcLog2w, srcStride, srcOffset;
uniform uint srcComplement;  // 0: the value itself
uniform uint srcRunMask;     // RLZ: nonzero (block size - 1) keeps a run length only at its start
uint srcValue(uint i) {
  if (i >= srcCount) return 0u;
  uint p = i * srcStride + srcOffset;
  if (srcRunMask != 0u && (p & srcRunMask) != 0u && loadU(srcTex, srcLog2w, p - 1u) != 0u) return 0u;
  uint v = loadU(srcTex, srcLog2w, p);
  return srcComplement != 0u ? srcComplement - v : v;
}
#elif SRC_KIND == SRC_EMPTY_BYTES
uniform usamplerBuffer keepBytes;  // R8UI view of the keep flags
uniform uint keepCount;
uint srcValue(uint i) {
  if (i >= srcCount) return 0u;
  return (i < keepCount && texelFetch(keepBytes, int(i)).r != 0u) ? 0u : 1u;
}
#elif SRC_KIND == SRC_EMPTY_BITS
uint srcValue(uint i) { return i >= srcCount ? 0u : 1u - bitAt(loadGroup(i >> 7u), i & 127u); }
#elif SRC_KIND == SRC_GROUP_KEPT
uint srcValue(uint i) { return i >= srcCount ? 0u : popBefore(loadGroup(i), 128u); }
#elif SRC_KIND == SRC_BLOCK_KEPT
uniform uint srcBlockLog2;  // at most 7: a block lies within one group
uint srcValue(uint i) {
  if (i >= srcCount) return 0u;
  uint p = i << srcBlockLog2;
  uvec4 v = loadGroup(p >> 7u);
  return popBefore(v, (p & 127u) + (1u << srcBlockLog2)) - popBefore(v, p & 127u);
}
#endif
#endif
