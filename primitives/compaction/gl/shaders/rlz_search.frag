// RLZ search (Moreira 2010, Alg. 1) over prlSum, the inclusive per-block scan of the run lengths
// of empties kept at run starts: position i receives element i + d with d = prlSum[i + d], found
// by the forward iteration of the paper. Four positions per fragment; outputs are in-block
// offsets (8 bits for blocks up to 256 elements, else 16).
uniform usampler2D prlSum;
uniform uint prlLog2w;
uniform uint count;  // padded stream length, a multiple of the block
uniform uint log2w;  // output layout, four positions per texel
layout(location = 0) out uvec4 result;

uint base;
uint p(uint j) { return loadU(prlSum, prlLog2w, base + j); }

void main() {
  uint first = fragIndex(log2w) << 2u;
  if (first >= count) discard;
  base = first & ~(kBlock - 1u);
  uint kept = kBlock - p(kBlock - 1u);
  uint i0 = first - base;
  if (i0 >= kept) discard;
  uvec4 r = uvec4(0u);
  for (uint k = 0u; k < 4u; ++k) {
    uint i = i0 + k;
    if (i >= kept) break;
    uint curr = p(i);
    uint next = p(i + curr);
    while (curr != next) {
      curr = p(i + next);
      next = p(i + curr);
    }
    r[k] = i + curr;
  }
  result = r;
}
