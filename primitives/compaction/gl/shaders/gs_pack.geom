// Emits a kept element: its fields (the paper's baseline packs the elements themselves), or its
// index when the fields are moved by gather passes afterwards. Transform feedback writes
// primitives in input order, so the packing is ordered.
layout(points) in;
layout(points, max_vertices = 1) out;
flat in uint vKeep[];
flat in uint vIndex[];

void main() {
  if (vKeep[0] == 0u) return;
  emitSource(vIndex[0]);
  EmitVertex();
  EndPrimitive();
}
