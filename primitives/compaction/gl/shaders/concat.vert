// Roger 2007, III-C: one line per block. Vertex 2b+e is end e of block b's segment: it covers
// output elements [start, start + kept) with start the exclusive scan of the kept counts. The
// geometry shader wraps segments at row ends (or, with SRT_DRAW_TWICE, every segment is drawn
// twice, `piece` 0 the part on its first row and 1 the rest on the next row).
uniform usampler2D blockScan;  // inclusive scan of the kept counts
uniform uint blockLog2w;
uniform uint blockLog2;
uniform uint log2w;  // output layout
uniform uint rows;   // output rows (the viewport height)
flat out uint vStart;
flat out uint vLength;
flat out uint vSource;

#ifdef SRT_DRAW_TWICE
uniform uint piece;
flat out uint dStart;
flat out uint dLength;
flat out uint dSource;

vec4 toClip(float x, uint row) {
  return vec4(2.0 * x / float(1u << log2w) - 1.0, 2.0 * (float(row) + 0.5) / float(rows) - 1.0,
              0.0, 1.0);
}
#endif

void main() {
  uint b = uint(gl_VertexID) >> 1u;
  uint end = loadU(blockScan, blockLog2w, b);
  vStart = b == 0u ? 0u : loadU(blockScan, blockLog2w, b - 1u);
  uint kept = end - vStart;
  vLength = kept;
  vSource = b << blockLog2;
#ifdef SRT_DRAW_TWICE
  uint w = 1u << log2w;
  uint row = vStart >> log2w;
  uint x0 = vStart & (w - 1u);
  uint first = min(kept, w - x0);
  uint endIndex = uint(gl_VertexID) & 1u;
  // Endpoints a quarter texel inside the first and past the last texel: the diamond-exit rule
  // then covers exactly [x0, x1) with no endpoint on a diamond's corner.
  if (piece == 0u && first > 0u) {
    gl_Position = toClip(float(endIndex != 0u ? x0 + first : x0) + 0.25, row);
    dStart = vStart; dLength = first; dSource = vSource;
  } else if (piece == 1u && first < kept) {
    gl_Position = toClip(float(endIndex != 0u ? kept - first : 0u) + 0.25, row + 1u);
    dStart = vStart + first; dLength = kept - first; dSource = vSource + first;
  } else {
    gl_Position = vec4(-2.0, -2.0, 0.0, 1.0);  // nothing to draw: a point outside the viewport
    dStart = 0u; dLength = 0u; dSource = 0u;
  }
#endif
}
