// Moves one field after the indices of the survivors are known: output texel t holds words
// 4t..4t+3 of the compacted field, word w being word w % W of survivor w / W (W words per
// element), so any multiple of 4 bytes moves, sixteen bytes per fragment. The field is read
// through a buffer texture of FIELD_UNIT words per texel; indices from a texture (one or four
// to a texel), or from a buffer (SRT_INDEX_BUFFER: transform feedback's output).
#ifdef SRT_INDEX_BUFFER
uniform usamplerBuffer indexBuffer;
uint indexOf(uint e) { return texelFetch(indexBuffer, int(e)).r; }
#else
uniform usampler2D indices;  // one per texel, or four (SRT_INDEX_QUAD)
uniform uint indexLog2w;
#ifdef SRT_INDEX_QUAD
uint indexOf(uint e) { return loadQuarter(indices, indexLog2w, e); }
#else
uint indexOf(uint e) { return loadU(indices, indexLog2w, e); }
#endif
#endif
uniform usamplerBuffer field;
uniform uint wordsPerElement;
uniform uint totalWords;
uniform uint log2w;
layout(location = 0) out uvec4 result;

uint fieldWord(uint w) { return texelFetch(field, int(w / uint(FIELD_UNIT)))[w % uint(FIELD_UNIT)]; }

void main() {
  uint first = fragIndex(log2w) << 2u;
  uint e = first / wordsPerElement;
#if FIELD_UNIT == 4
  // Sixteen-byte multiples: the texel is one texel of one source element.
  result = texelFetch(field, int((indexOf(e) * wordsPerElement + (first - e * wordsPerElement)) >> 2u));
#else
  uvec4 r = uvec4(0u);
  for (uint k = 0u; k < 4u; ++k) {
    uint w = first + k;
    if (w >= totalWords) break;
    uint el = w / wordsPerElement;
    r[k] = fieldWord(indexOf(el) * wordsPerElement + (w - el * wordsPerElement));
  }
  result = r;
#endif
}
