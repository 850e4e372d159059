// Roger 2007, III-C: one line per block. Vertex 2b+e is end e of block b's segment: it covers
// output elements [start, start + kept) with start the exclusive scan of the kept counts. The
// geometry shader wraps segments at row ends (or, with SRT_DRAW_TWICE, every segment is drawn
// twice, `piece` 0 the part on its first row and 1 the rest on the next row; with
// SRT_VERTEX_LINES, one draw of four vertices a block: vertices 4b, 4b+1 the part on the first
// row, 4b+2, 4b+3 the rest, a line off the viewport when there is none).
// With SRT_QUAD the output holds four elements to a 16-byte texel, and a block's line covers the
// texels whose first element is its own (it writes zeros for the elements of the blocks after
// it); with SRT_HEADS vertex b is instead a point on the texel where block b starts, when that
// is inside a texel, drawn after the lines with the logic op OR.
uniform usampler2D blockScan;  // inclusive scan of the kept counts
uniform uint blockLog2w;
uniform uint blockLog2;
uniform uint log2w;  // output layout (texels)
uniform uint rows;   // output rows (the viewport height)
flat out uint vStart;   // the block's first output element
flat out uint vLength;  // its kept elements
flat out uint vSource;  // its first input element
flat out uint vFirst;   // the first output texel the line covers
flat out uint vTexels;  // how many

#if defined(SRT_DRAW_TWICE) || defined(SRT_VERTEX_LINES) || defined(SRT_HEADS) || \
    defined(SRT_DIAG_RECTS)
uniform uint piece;
flat out uint dStart;
flat out uint dLength;
flat out uint dSource;
#ifdef SRT_TWO_ROWS
flat out uint dFirst;   // the texels the block's line writes: [dFirst, dFirst + dTexels)
flat out uint dTexels;
#endif

vec4 toClip(float x, uint row) {
  return vec4(2.0 * x / float(1u << log2w) - 1.0, 2.0 * (float(row) + 0.5) / float(rows) - 1.0,
              0.0, 1.0);
}

// End e of the piece over texels [x0, x1) of `row`. SRT_TWO_ROWS (layout=bands, drawn with a
// line width of 2): texel t of a band of two rows at column t / 2, row t mod 2, so the piece is
// a line two pixels high over columns [x0 / 2, (x1 + 1) / 2), centred between the band's rows
// (the fragments of texels outside [x0, x1) in its end columns discard).
vec4 endpoint(uint e, uint x0, uint x1, uint row) {
#ifdef SRT_TWO_ROWS
  float x = float(e != 0u ? (x1 + 1u) >> 1u : x0 >> 1u) + 0.25;
  return vec4(2.0 * x / float(1u << log2w) - 1.0, 2.0 * float(2u * row + 1u) / float(rows) - 1.0,
              0.0, 1.0);
#else
  return toClip(float(e != 0u ? x1 : x0) + 0.25, row);
#endif
}
#endif

void main() {
#ifdef SRT_HEADS
  uint b = uint(gl_VertexID);
#elif defined(SRT_DIAG_RECTS)
  // The bench's diagnosis: each piece a rectangle one texel high, two triangles (six vertices).
  uint b = uint(gl_VertexID) / 12u;
  uint linePiece = (uint(gl_VertexID) / 6u) & 1u;
#elif defined(SRT_VERTEX_LINES)
  uint b = uint(gl_VertexID) >> 2u;
  uint linePiece = (uint(gl_VertexID) >> 1u) & 1u;
#else
  uint b = uint(gl_VertexID) >> 1u;
#endif
  uint end = loadU(blockScan, blockLog2w, b);
  vStart = b == 0u ? 0u : loadU(blockScan, blockLog2w, b - 1u);
  vLength = end - vStart;
  vSource = b << blockLog2;
#ifdef SRT_QUAD
  vFirst = (vStart + 3u) >> 2u;
  vTexels = ((end + 3u) >> 2u) - vFirst;
#else
  vFirst = vStart;
  vTexels = vLength;
#endif
#if defined(SRT_TWO_ROWS) && (defined(SRT_VERTEX_LINES) || defined(SRT_HEADS))
  dFirst = vFirst;
  dTexels = vTexels;
#endif
#ifdef SRT_HEADS
  dStart = vStart; dLength = vLength; dSource = vSource;
  uint t = vStart >> 2u;
#ifdef SRT_TWO_ROWS
  uint x = (t & ((2u << log2w) - 1u)) >> 1u, y = ((t >> (log2w + 1u)) << 1u) | (t & 1u);
#else
  uint x = t & ((1u << log2w) - 1u), y = t >> log2w;
#endif
  gl_Position = vLength > 0u && (vStart & 3u) != 0u ? toClip(float(x) + 0.5, y)
                                                    : vec4(-2.0, -2.0, 0.0, 1.0);
#elif defined(SRT_DIAG_RECTS)
  uint w = 1u << log2w;
  uint row = vFirst >> log2w;
  uint x0 = vFirst & (w - 1u);
  uint first = min(vTexels, w - x0);
  uint corner = uint(gl_VertexID) % 6u;
  bool right = corner == 1u || corner == 2u || corner == 4u;
  float up = corner == 2u || corner == 4u || corner == 5u ? 1.0 : 0.0;
  dStart = vStart; dLength = vLength; dSource = vSource;
  float x = -2.0, y = -2.0;  // nothing to draw: off the viewport
  if (linePiece == 0u && first > 0u) {
    x = float(right ? x0 + first : x0);
    y = float(row) + up;
  } else if (linePiece == 1u && first < vTexels) {
    x = float(right ? vTexels - first : 0u);
    y = float(row + 1u) + up;
  }
  gl_Position = x < 0.0 ? vec4(-2.0, -2.0, 0.0, 1.0)
                        : vec4(2.0 * x / float(w) - 1.0, 2.0 * y / float(rows) - 1.0, 0.0, 1.0);
#elif defined(SRT_DRAW_TWICE) || defined(SRT_VERTEX_LINES)
#ifdef SRT_DRAW_TWICE
  uint linePiece = piece;
#endif
#ifdef SRT_TWO_ROWS
  uint bandLog2 = log2w + 1u;
#else
  uint bandLog2 = log2w;
#endif
  uint w = 1u << bandLog2;
  uint row = vFirst >> bandLog2;
  uint x0 = vFirst & (w - 1u);
  uint first = min(vTexels, w - x0);
  uint endIndex = uint(gl_VertexID) & 1u;
  dStart = vStart; dLength = vLength; dSource = vSource;
  // Endpoints a quarter texel inside the first and past the last texel: the diamond-exit rule
  // then covers exactly [x0, x1) with no endpoint on a diamond's corner.
  if (linePiece == 0u && first > 0u) {
    gl_Position = endpoint(endIndex, x0, x0 + first, row);
  } else if (linePiece == 1u && first < vTexels) {
    gl_Position = endpoint(endIndex, 0u, vTexels - first, row + 1u);
  } else {
    gl_Position = vec4(-2.0, -2.0, 0.0, 1.0);  // nothing to draw: a point outside the viewport
  }
#endif
}
