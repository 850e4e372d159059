// Each fragment of a block's line copies one element of the block's reduced prefix.
uniform usampler2D local;  // per-block search results (stream indices)
uniform uint localLog2w;
uniform uint log2w;        // output layout
flat in uint dStart;
flat in uint dLength;
flat in uint dSource;
layout(location = 0) out uint result;

void main() {
  uint o = fragIndex(log2w);
  if (o < dStart || o - dStart >= dLength) discard;  // guards the rasterisation rule
  result = loadU(local, localLog2w, dSource + (o - dStart));
}
