// Emits the index of a kept element; transform feedback writes primitives in input order, so
// the packing is ordered.
layout(points) in;
layout(points, max_vertices = 1) out;
flat in uint vKeep[];
flat in uint vIndex[];
flat out uint srcIndex;

void main() {
  if (vKeep[0] == 0u) return;
  srcIndex = vIndex[0];
  EmitVertex();
  EndPrimitive();
}
