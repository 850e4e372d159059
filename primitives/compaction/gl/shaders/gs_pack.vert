// Geometry-shader packing (Roger 2007's baseline): every element is a vertex (no attributes,
// gl_VertexID is its index); the geometry shader emits the kept ones into transform feedback.
uniform usamplerBuffer keepBytes;  // R8UI view of the keep flags
flat out uint vKeep;
flat out uint vIndex;

void main() {
  vIndex = uint(gl_VertexID);
  vKeep = texelFetch(keepBytes, gl_VertexID).r;
}
