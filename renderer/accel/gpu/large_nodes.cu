// Setup and the large-node stage of the GPU kd-tree build (Zhou et al. 2008, section 4.2): one
// thread per triangle, reference or child; the builder runs them level by level between the
// segmented reductions (node bounds, bin counts: binned_sah.cu) and the compaction of the child
// lists.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/tabulate_output_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cassert>
#include <stdexcept>
#include <string>

#include "primitives/common/cuda_check.h"
#include "renderer/accel/gpu/device_steps.h"

namespace srt::kdgpu {
namespace {

constexpr uint32_t kBlock = 256;
inline uint32_t blocks(uint64_t n) {
  return uint32_t((n + kBlock - 1) / kBlock);
}
__device__ inline uint32_t globalIndex() {
  return blockIdx.x * blockDim.x + threadIdx.x;
}

__global__ void triangleBoxesKernel(TriangleMeshView mesh, Ref* ref, uint8_t* keep) {
  const uint32_t i = globalIndex();
  if (i < mesh.triangleCount) stepTriangleBox(i, mesh, ref, keep);
}

__global__ void widenBoxesKernel(const BuildCounters* counters, Ref* ref, uint32_t count) {
  const uint32_t i = globalIndex();
  if (i < count) stepWidenBox(i, clipEpsilon(counters->rawBounds), ref);
}

__global__ void unpackKernel(const Ref* ref, uint32_t count, Bounds3f* box, uint32_t* owner) {
  const uint32_t i = globalIndex();
  if (i < count) stepUnpack(i, ref, box, owner);
}

// The level's boxes and owners, its segment offsets, and the padding up to its caps: empty boxes
// in the padding segment (caps.nodes - 1), which the box reduction unites to nothing. Also the
// level's sums set to their identity (node bounds, bin counts, the route's child counts), which
// spares each reduction a fill launch.
__global__ void unpackLevelKernel(LevelArgs a, const Ref* ref, Bounds3f* box, uint32_t* owner,
                                  const LevelNode* nodes, uint32_t* offsets, LevelSums sums) {
  const LevelCounts c = levelCounts(a);
  const uint32_t i = globalIndex(), stride = gridDim.x * blockDim.x;
  for (uint32_t s = i; s < a.caps.nodes; s += stride) sums.tight[s] = emptyBounds();
  for (size_t s = i; s < size_t(kBinCounters) * a.caps.nodes; s += stride) sums.binCounts[s] = 0;
  for (uint32_t s = i; s < 2 * a.caps.nodes; s += stride) sums.childRefs[s] = 0;
  if (i < c.refs) {
    stepUnpack(i, ref, box, owner);
  } else if (i < a.caps.refs) {
    box[i] = emptyBounds();
    owner[i] = a.caps.nodes - 1;
  }
  if (i <= c.nodes)
    stepLevelOffset(i, nodes, c.nodes, c.refs, offsets);
  else if (i <= a.caps.nodes)
    offsets[i] = i < a.caps.nodes ? c.refs : a.caps.refs;
}

__global__ void rootTerminalRefsKernel(const Ref* ref, uint32_t count, uint32_t* termTri,
                                       Bounds3f* termBox) {
  const uint32_t i = globalIndex();
  if (i < count) stepRootTerminalRef(i, ref, termTri, termBox);
}

// The warp's routed references added to their children's counts: a level's references are
// sorted by owner, so the lanes of an owner are few runs and one atomic a run and side adds
// them (integer sums: the counts do not depend on the order).
__device__ void addChildRefs(bool routed, uint32_t owner, RouteSides sides, uint32_t numNodes,
                             uint32_t* childRefs) {
  const uint32_t lanes = __ballot_sync(~0u, routed);
  const uint32_t below = __ballot_sync(~0u, routed && sides.below);
  const uint32_t above = __ballot_sync(~0u, routed && sides.above);
  if (!routed) return;
  const uint32_t peers = __match_any_sync(lanes, owner);
  if ((threadIdx.x & 31) != uint32_t(__ffs(peers) - 1)) return;
  if (below & peers) atomicAdd(&childRefs[owner], uint32_t(__popc(below & peers)));
  if (above & peers) atomicAdd(&childRefs[owner + numNodes], uint32_t(__popc(above & peers)));
}

// Beyond the level's references the doubled stream's keep flags are cleared up to 2 caps.refs
// (the compaction's count): [2 refs, refs + caps.refs) and [refs + caps.refs, 2 caps.refs).
template <bool StreamingClip>
__global__ void routeReferencesKernel(LevelArgs a, TriangleMeshView mesh,
                                      const BuildCounters* counters, const Ref* cur,
                                      const LargeNode* large, Ref* d, uint8_t* dKeep,
                                      uint32_t* childRefs, bool sharedClip) {
  extern __shared__ float clipBuffers[];  // kClipLaneFloats a thread, when sharedClip
  const LevelCounts c = levelCounts(a);
  const uint32_t i = globalIndex();
  RouteSides sides{false, false};
  if (i < c.refs) {
    sides = stepRouteReference<StreamingClip>(
        i, mesh, clipEpsilon(counters->rawBounds), cur, c.refs, large + c.base, c.nodes, d, dKeep,
        sharedClip ? clipBuffers + threadIdx.x * kClipLaneFloats : nullptr);
  } else if (i < a.caps.refs) {
    dKeep[c.refs + i] = 0;
    dKeep[a.caps.refs + i] = 0;
  }
  addChildRefs(i < c.refs, i < c.refs ? cur[i].owner : 0u, sides, c.nodes, childRefs);
}

// The classification of child k as the child scan's input (zero past the level's children,
// which the scan runs over 2 caps.nodes of). The depth limit drops to 0 once the level holds
// more than kMaxReferenceGrowth references per triangle.
struct ChildClassifier {
  LevelArgs a;
  const BuildCounters* counters;
  const LargeNode* large;
  const uint32_t* childRefs;
  uint32_t threshold;
  int maxDepth;

  __device__ ChildInfo info(uint32_t k, const LevelCounts& c) const {
    const int depthLimit = c.refs > kMaxReferenceGrowth * counters->numValid ? 0 : maxDepth;
    return classifyChild(k, large + c.base, c.nodes, childRefs, threshold, depthLimit);
  }
  __device__ ChildScan operator()(uint32_t k) const {
    const LevelCounts c = levelCounts(a);
    return k < 2 * c.nodes ? childScanEntry(info(k, c)) : ChildScan{0u, 0u, 0u, 0u, 0u, 0u};
  }
};

// The scan's output: child k with its inclusive sum becomes a node of the next level or a
// terminal; the last child also writes the next level's counts from the totals.
struct ChildAssigner {
  ChildClassifier classify;
  LargeNode* large;
  LevelNode* next;
  Terminal* terms;
  uint32_t* handle;
  uint32_t* start;

  __device__ void operator()(ptrdiff_t index, const ChildScan& s) const {
    const LevelArgs& a = classify.a;
    const LevelCounts c = levelCounts(a);
    const uint32_t k = uint32_t(index), children = 2 * c.nodes, nextBase = c.base + c.nodes;
    if (k < children)
      stepAssignChild(k, large + c.base, c.nodes, classify.info(k, c), s, nextBase, c.termBase,
                      c.termRefBase, next, terms, handle, start);
    if (k == (children ? children - 1 : 0))
      *a.next = {s.large,  s.largeRefs,          s.chunks,
                 nextBase, c.termBase + s.terms, c.termRefBase + s.termRefs};
  }
};

struct ChildScanSum {
  __device__ ChildScan operator()(const ChildScan& a, const ChildScan& b) const { return a + b; }
};

using ChildScanInput =
    thrust::transform_iterator<ChildClassifier, thrust::counting_iterator<uint32_t>, ChildScan>;
using ChildScanOutput = thrust::tabulate_output_iterator<ChildAssigner>;

// The scan of 2 caps.nodes children: classification in, assignment out (no arrays between).
size_t childScan(void* temp, size_t bytes, const ChildClassifier& classify,
                 const ChildAssigner& assign, uint32_t n, cudaStream_t stream) {
  const ChildScanInput in(thrust::counting_iterator<uint32_t>(0), classify);
  const ChildScanOutput out(assign);
  SRT_CUDA_CHECK(
      cub::DeviceScan::InclusiveScan(temp, bytes, in, out, ChildScanSum(), int(n), stream));
  return bytes;
}

__global__ void routeToChildrenKernel(LevelArgs a, const Ref* ref, const uint32_t* numRefs,
                                      const uint32_t* start, const uint32_t* handle,
                                      const Terminal* terms, const LevelNode* next,
                                      uint32_t* termTri, Bounds3f* termBox, Ref* nextRef) {
  const LevelCounts c = levelCounts(a);
  const uint32_t i = globalIndex();
  if (i < 2 * a.caps.refs)
    stepRouteToChild(i, *numRefs, ref, start, handle, c.base + c.nodes, terms, next, termTri,
                     termBox, nextRef);
}

__global__ void rootTerminalKernel(const Bounds3f* tight, uint32_t count, Terminal* terms) {
  terms[0] = {tight[0], 0u, 0u, count};
}

}  // namespace

void launchTriangleBoxes(const TriangleMeshView& mesh, Ref* ref, uint8_t* keep,
                         cudaStream_t stream) {
  if (mesh.triangleCount == 0) return;
  triangleBoxesKernel<<<blocks(mesh.triangleCount), kBlock, 0, stream>>>(mesh, ref, keep);
  SRT_CUDA_CHECK_LAUNCH();
}

void launchWidenBoxes(const BuildCounters* counters, Ref* ref, uint32_t count,
                      cudaStream_t stream) {
  if (count == 0) return;
  widenBoxesKernel<<<blocks(count), kBlock, 0, stream>>>(counters, ref, count);
  SRT_CUDA_CHECK_LAUNCH();
}

void launchUnpack(const Ref* ref, uint32_t count, Bounds3f* box, uint32_t* owner,
                  cudaStream_t stream) {
  if (count == 0) return;
  unpackKernel<<<blocks(count), kBlock, 0, stream>>>(ref, count, box, owner);
  SRT_CUDA_CHECK_LAUNCH();
}

void launchUnpackLevel(const LevelArgs& a, const Ref* ref, Bounds3f* box, uint32_t* owner,
                       const LevelNode* nodes, uint32_t* offsets, const LevelSums& sums,
                       cudaStream_t stream) {
  const uint64_t threads = std::max<uint64_t>(a.caps.refs, uint64_t(a.caps.nodes) + 1);
  unpackLevelKernel<<<blocks(threads), kBlock, 0, stream>>>(a, ref, box, owner, nodes, offsets,
                                                            sums);
  SRT_CUDA_CHECK_LAUNCH();
}

void launchRootTerminal(const Bounds3f* tight, const Ref* ref, uint32_t count, Terminal* terms,
                        uint32_t* termTri, Bounds3f* termBox, cudaStream_t stream) {
  rootTerminalKernel<<<1, 1, 0, stream>>>(tight, count, terms);
  SRT_CUDA_CHECK_LAUNCH();
  if (count == 0) return;
  rootTerminalRefsKernel<<<blocks(count), kBlock, 0, stream>>>(ref, count, termTri, termBox);
  SRT_CUDA_CHECK_LAUNCH();
}

void launchRouteReferences(const LevelArgs& a, const TriangleMeshView& mesh,
                           const BuildCounters* counters, const Ref* cur, const LargeNode* large,
                           bool streamingClip, bool sharedClip, Ref* d, uint8_t* dKeep,
                           uint32_t* childRefs, cudaStream_t stream) {
  if (a.caps.refs == 0) return;
  auto* kernel = streamingClip ? routeReferencesKernel<true> : routeReferencesKernel<false>;
  // The shared clip's blocks are smaller: 128 threads' polygons take 28 KB.
  const uint32_t block = sharedClip ? 128 : kBlock;
  const size_t clipBytes = sharedClip ? clipBufferBytes(block) : 0;
  kernel<<<uint32_t((a.caps.refs + block - 1) / block), block, clipBytes, stream>>>(
      a, mesh, counters, cur, large, d, dKeep, childRefs, sharedClip);
  SRT_CUDA_CHECK_LAUNCH();
}

void classifyAndAssignChildren(const LevelArgs& a, const BuildCounters* counters, LargeNode* large,
                               const uint32_t* childRefs, uint32_t threshold, int maxDepth,
                               LevelNode* next, Terminal* terms, uint32_t* handle, uint32_t* start,
                               void* temp, size_t tempBytes, cudaStream_t stream) {
  const uint32_t n = 2 * a.caps.nodes;
  const ChildClassifier classify{a, counters, large, childRefs, threshold, maxDepth};
  const ChildAssigner assign{classify, large, next, terms, handle, start};
  const size_t bytes = childScan(nullptr, 0, classify, assign, n, stream);
  if (bytes > tempBytes)
    throw std::logic_error("kd-tree build: scan scratch not reserved (" + std::to_string(bytes) +
                           " bytes needed)");
  childScan(temp, bytes, classify, assign, n, stream);
}

size_t childScanTempBytes(uint32_t children) {
  return childScan(nullptr, 0, ChildClassifier{}, ChildAssigner{}, children, nullptr);
}

void launchRouteToChildren(const LevelArgs& a, const Ref* ref, const uint32_t* numRefs,
                           const uint32_t* start, const uint32_t* handle, const Terminal* terms,
                           const LevelNode* next, uint32_t* termTri, Bounds3f* termBox,
                           Ref* nextRef, cudaStream_t stream) {
  if (a.caps.refs == 0) return;
  routeToChildrenKernel<<<blocks(2ull * a.caps.refs), kBlock, 0, stream>>>(
      a, ref, numRefs, start, handle, terms, next, termTri, termBox, nextRef);
  SRT_CUDA_CHECK_LAUNCH();
}

}  // namespace srt::kdgpu
