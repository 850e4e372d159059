// RLZ search (Moreira 2010, Alg. 1) over prlSum, the inclusive per-block scan of the run lengths
// kept at run starts: position i receives element i + d with d = prlSum[i + d], found by the
// forward iteration of the paper.
uniform usampler2D prlSum;
uniform uint log2w;
uniform uint blockLog2;
uniform uint count;  // padded stream length: fragments past it write kInvalid
layout(location = 0) out uint result;

uint p(uint base, uint j) { return loadU(prlSum, log2w, base + j); }

void main() {
  uint o = fragIndex(log2w);
  uint s = 1u << blockLog2;
  if (o >= count) {
    result = kInvalid;
    return;
  }
  uint base = o & ~(s - 1u);
  uint i = o - base;
  if (i + p(base, s - 1u) > s - 1u) {
    result = kInvalid;
    return;
  }
  uint curr = p(base, i);
  uint next = p(base, i + curr);
  while (curr != next) {
    curr = p(base, i + next);
    next = p(base, i + curr);
  }
  result = o + curr;
}
