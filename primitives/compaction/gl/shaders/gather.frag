// Moves one field: output texel k belongs to element k / tpe of the compacted stream, which
// gathers texel k % tpe of its source element. FIELD_T is uint, uvec2 or uvec4 (the field's
// texel format), so any multiple of 4 bytes moves.
uniform usampler2D indices;
uniform uint indexLog2w;
uniform usampler2D field;
uniform uint fieldLog2w;
uniform uint tpe;  // texels per element
uniform uint log2w;
layout(location = 0) out FIELD_T result;

void main() {
  uint k = fragIndex(log2w);
  uint e = k / tpe;
  uint src = loadU(indices, indexLog2w, e);
  result = FIELD_T(texelFetch(field, texelOf(src * tpe + (k - e * tpe), fieldLog2w), 0));
}
