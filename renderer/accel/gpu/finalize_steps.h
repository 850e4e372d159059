// One body per kernel thread of the GPU kd-tree build's finalize pass (finalize.cu; the host
// reference calls them in loops): subtree sizes bottom-up, offsets top-down, and each terminal's
// subtree copied from scratch into the depth-first KdNode arrays.
#pragma once

#include <cassert>

#include "renderer/accel/gpu/build_steps.h"

namespace srt::kdgpu {

// ---- Finalize

struct Sizes {
  const uint32_t *termNodes, *termRefs, *largeSize, *largePrims;
  SRT_CPU_GPU uint32_t nodes(uint32_t h) const {
    return h & kTerminalBit ? termNodes[h & ~kTerminalBit] : largeSize[h];
  }
  SRT_CPU_GPU uint32_t prims(uint32_t h) const {
    return h & kTerminalBit ? termRefs[h & ~kTerminalBit] : largePrims[h];
  }
};

struct Offsets {
  uint32_t *largeOffset, *largePrimOffset, *termOffset, *termPrimOffset;
  SRT_CPU_GPU void place(uint32_t h, uint32_t node, uint32_t prim) const {
    if (h & kTerminalBit) {
      termOffset[h & ~kTerminalBit] = node;
      termPrimOffset[h & ~kTerminalBit] = prim;
    } else {
      largeOffset[h] = node;
      largePrimOffset[h] = prim;
    }
  }
};

// Bottom-up, one large level at a time (its children are done).
SRT_CPU_GPU inline void stepSubtreeSize(uint32_t g, const LargeNode* large, const Sizes& sizes,
                                        uint32_t* largeSize, uint32_t* largePrims) {
  const LargeNode& n = large[g];
  largeSize[g] =
      largeOwnNodes(n) + sizes.nodes(n.child[0]) + (n.leaf ? 0 : sizes.nodes(n.child[1]));
  largePrims[g] = sizes.prims(n.child[0]) + (n.leaf ? 0 : sizes.prims(n.child[1]));
}

SRT_CPU_GPU inline void stepPlaceRoot(bool rootIsTerminal, const LargeNode* large,
                                      const Terminal* terms, const Sizes& sizes,
                                      const Offsets& offsets, BuildCounters* counters) {
  const uint32_t root = rootIsTerminal ? kTerminalBit : 0u;
  offsets.place(root, 0, 0);
  counters->totalNodes = sizes.nodes(root);
  counters->totalPrims = sizes.prims(root);
  counters->rootCell = rootIsTerminal ? terms[0].cell : large[0].cuts.cell;
}

// Top-down, one large level at a time (its own offsets are set).
SRT_CPU_GPU inline void stepPlaceLarge(uint32_t g, const LargeNode* large, const Sizes& sizes,
                                       const Offsets& offsets, KdNode* out) {
  const LargeNode& n = large[g];
  const uint32_t belowSize = sizes.nodes(n.child[0]);
  const uint32_t below =
      writeLargeNode(n, offsets.largeOffset[g], sizes.largeSize[g], belowSize, out);
  const uint32_t prim = offsets.largePrimOffset[g];
  offsets.place(n.child[0], below, prim);
  if (!n.leaf) offsets.place(n.child[1], below + belowSize, prim + sizes.prims(n.child[0]));
}

// Item k of terminal t: node k and reference k of its scratch, where they exist.
SRT_CPU_GPU inline void stepPlaceTerminalItem(uint32_t t, uint32_t k, const Terminal* terms,
                                              const Sizes& sizes, const uint32_t* termOffset,
                                              const uint32_t* termPrimOffset,
                                              const KdNode* scratchNodes,
                                              const uint32_t* scratchRefs, uint32_t scratchPerRef,
                                              KdNode* outNodes, uint32_t* outPrims) {
  const size_t base = size_t(scratchPerRef) * terms[t].refStart;
  const uint32_t handle = kTerminalBit | t;
  assert(sizes.nodes(handle) <= scratchPerRef * terms[t].refCount + 1);
  if (k < sizes.nodes(handle))
    outNodes[termOffset[t] + k] =
        relocate(scratchNodes[base + t + k], termOffset[t], termPrimOffset[t]);
  if (k < sizes.prims(handle)) outPrims[termPrimOffset[t] + k] = scratchRefs[base + k];
}

}  // namespace srt::kdgpu
