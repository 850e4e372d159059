// Wraps each block's segment at the row end (Roger 2007, Fig. 7): one line when it fits on its
// row, two when it crosses (the block size never exceeds the width, so never more).
layout(lines) in;
layout(line_strip, max_vertices = 4) out;
flat in uint vStart[];
flat in uint vLength[];
flat in uint vSource[];
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
void emitLine(uint x0, uint x1, uint row, uint start, uint source) {
  dStart = start; dLength = x1 - x0; dSource = source;
  gl_Position = toClip(float(x0) + 0.25, row);
  EmitVertex();
  dStart = start; dLength = x1 - x0; dSource = source;
  gl_Position = toClip(float(x1) + 0.25, row);
  EmitVertex();
  EndPrimitive();
}

void main() {
  uint kept = vLength[0];
  if (kept == 0u) return;
  uint w = 1u << log2w;
  uint start = vStart[0];
  uint row = start >> log2w;
  uint x0 = start & (w - 1u);
  uint first = min(kept, w - x0);
  emitLine(x0, x0 + first, row, start, vSource[0]);
  if (first < kept) emitLine(0u, kept - first, row + 1u, start + first, vSource[0] + first);
}
