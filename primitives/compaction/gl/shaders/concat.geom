// Wraps each block's segment at the row end (Roger 2007, Fig. 7): one line when it fits on its
// row, two when it crosses (the block never spans more texels than a row holds, so never more).
layout(lines) in;
layout(line_strip, max_vertices = 4) out;
flat in uint vStart[];
flat in uint vLength[];
flat in uint vSource[];
flat in uint vFirst[];
flat in uint vTexels[];
uniform uint log2w;
uniform uint rows;
flat out uint dStart;
flat out uint dLength;
flat out uint dSource;

vec4 toClip(float x, uint row) {
  return vec4(2.0 * x / float(1u << log2w) - 1.0, 2.0 * (float(row) + 0.5) / float(rows) - 1.0,
              0.0, 1.0);
}

// Covers texels [x0, x1) of a row; endpoints a quarter texel in (see concat.vert).
void emitLine(uint x0, uint x1, uint row) {
  for (int e = 0; e < 2; ++e) {
    dStart = vStart[0];
    dLength = vLength[0];
    dSource = vSource[0];
    gl_Position = toClip(float(e == 0 ? x0 : x1) + 0.25, row);
    EmitVertex();
  }
  EndPrimitive();
}

void main() {
  uint texels = vTexels[0];
  if (texels == 0u) return;
  uint w = 1u << log2w;
  uint row = vFirst[0] >> log2w;
  uint x0 = vFirst[0] & (w - 1u);
  uint first = min(texels, w - x0);
  emitLine(x0, x0 + first, row);
  if (first < texels) emitLine(0u, texels - first, row + 1u);
}
