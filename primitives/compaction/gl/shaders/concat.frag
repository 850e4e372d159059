// Each fragment of a block's line copies one element of the block's reduced prefix: it reads the
// in-block offset the search left there and writes that element's fields (or its index).
uniform usampler2D local;  // in-block offsets, four to a texel
uniform uint localLog2w;
uniform uint blockLog2;
uniform uint log2w;  // output layout
flat in uint dStart;
flat in uint dLength;
flat in uint dSource;

void main() {
  uint o = fragIndex(log2w);
  if (o < dStart || o - dStart >= dLength) discard;  // guards the rasterisation rule
  uint p = dSource + (o - dStart);
  emitSource(((p >> blockLog2) << blockLog2) + loadQuarter(local, localLog2w, p));
}
