// One level of a reduction tree: node i sums children 2i and 2i+1 (Blelloch's up-sweep,
// Sengupta's reduce, the binary tree's encoding). With `runs` set it is RLZ's up-sweep
// (Moreira 2010, Alg. 3): the right child is added only when the left child is a full run.
// The children are the source: the first level reads the flags or counts where they are.
uniform uint outLog2w;
uniform uint runs;     // 1: run-length up-sweep
uniform uint fullRun;  // a full left child holds this many (2^(level-1))
layout(location = 0) out uint result;

void main() {
  uint i = fragIndex(outLog2w);
  uint left = srcValue(2u * i);
  uint right = srcValue(2u * i + 1u);
  result = (runs == 0u || left == fullRun) ? left + right : left;
}
