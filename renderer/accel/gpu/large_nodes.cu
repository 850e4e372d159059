// Setup and the large-node stage of the GPU kd-tree build (Zhou et al. 2008, section 4.2): one
// thread per triangle, reference or child; the builder runs them level by level between the
// segmented reductions (node bounds, bin counts: binned_sah.cu) and the two compactions (child
// lists, large children).
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

__global__ void unpackLevelKernel(const Ref* ref, uint32_t count, Bounds3f* box, uint32_t* owner,
                                  const LevelNode* nodes, uint32_t numNodes, uint32_t* offsets) {
  const uint32_t i = globalIndex();
  if (i < count) stepUnpack(i, ref, box, owner);
  if (i <= numNodes) stepLevelOffset(i, nodes, numNodes, count, offsets);
}

__global__ void rootTerminalRefsKernel(const Ref* ref, uint32_t count, uint32_t* termTri,
                                       Bounds3f* termBox) {
  const uint32_t i = globalIndex();
  if (i < count) stepRootTerminalRef(i, ref, termTri, termBox);
}

template <bool StreamingClip>
__global__ void routeReferencesKernel(TriangleMeshView mesh, const BuildCounters* counters,
                                      const Ref* cur, uint32_t count, const LargeNode* level,
                                      uint32_t numNodes, Ref* d, uint8_t* dKeep) {
  const uint32_t i = globalIndex();
  if (i < count)
    stepRouteReference<StreamingClip>(i, mesh, clipEpsilon(counters->rawBounds), cur, count, level,
                                      numNodes, d, dKeep);
}

__global__ void childStartsKernel(const Ref* ref, const uint32_t* numRefs, uint32_t maxRefs,
                                  uint32_t numChildren, uint32_t* start) {
  const uint32_t i = globalIndex();
  const uint32_t n = *numRefs;
  assert(n <= maxRefs);
  if (i <= n) stepChildStarts(i, ref, n, numChildren, start);
}

__global__ void classifyChildrenKernel(const LargeNode* level, uint32_t numNodes,
                                       const uint32_t* start, uint32_t threshold, int maxDepth,
                                       ChildInfo* info, ChildScan* scanIn) {
  const uint32_t c = globalIndex();
  if (c < 2 * numNodes)
    stepClassifyChild(c, level, numNodes, start, threshold, maxDepth, info, scanIn);
}

struct ChildScanSum {
  __device__ ChildScan operator()(const ChildScan& a, const ChildScan& b) const { return a + b; }
};

__global__ void assignChildrenKernel(LargeNode* level, uint32_t numNodes, const ChildInfo* info,
                                     const ChildScan* inclusive, uint32_t nextBase,
                                     uint32_t termBase, uint32_t termRefBase, LevelNode* next,
                                     Terminal* terms, uint32_t* handle, BuildCounters* counters) {
  const uint32_t c = globalIndex();
  if (c < 2 * numNodes)
    stepAssignChild(c, level, numNodes, info, inclusive, nextBase, termBase, termRefBase, next,
                    terms, handle);
  if (c == 2 * numNodes - 1) {  // the scan's totals, for the host's round trip
    const ChildScan last = inclusive[c];
    counters->nextLarge = last.large;
    counters->newTerms = last.terms;
    counters->newTermRefs = last.termRefs;
    counters->nextChunks = last.chunks;
  }
}

__global__ void routeToChildrenKernel(Ref* ref, const uint32_t* numRefs, uint32_t maxRefs,
                                      const uint32_t* start, const uint32_t* handle,
                                      uint32_t nextBase, const Terminal* terms, uint32_t* termTri,
                                      Bounds3f* termBox, uint8_t* keep) {
  const uint32_t i = globalIndex();
  if (i < maxRefs)
    stepRouteToChild(i, *numRefs, ref, start, handle, nextBase, terms, termTri, termBox, keep);
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

void launchUnpackLevel(const Ref* ref, uint32_t count, Bounds3f* box, uint32_t* owner,
                       const LevelNode* nodes, uint32_t numNodes, uint32_t* offsets,
                       cudaStream_t stream) {
  const uint64_t threads = std::max<uint64_t>(count, uint64_t(numNodes) + 1);
  unpackLevelKernel<<<blocks(threads), kBlock, 0, stream>>>(ref, count, box, owner, nodes, numNodes,
                                                            offsets);
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

void launchRouteReferences(const TriangleMeshView& mesh, const BuildCounters* counters,
                           const Ref* cur, uint32_t count, const LargeNode* level,
                           uint32_t numNodes, bool streamingClip, Ref* d, uint8_t* dKeep,
                           cudaStream_t stream) {
  if (count == 0) return;
  auto* kernel = streamingClip ? routeReferencesKernel<true> : routeReferencesKernel<false>;
  kernel<<<blocks(count), kBlock, 0, stream>>>(mesh, counters, cur, count, level, numNodes, d,
                                               dKeep);
  SRT_CUDA_CHECK_LAUNCH();
}

void launchChildStarts(const Ref* ref, const uint32_t* numRefs, uint32_t maxRefs,
                       uint32_t numChildren, uint32_t* start, cudaStream_t stream) {
  childStartsKernel<<<blocks(uint64_t(maxRefs) + 1), kBlock, 0, stream>>>(ref, numRefs, maxRefs,
                                                                          numChildren, start);
  SRT_CUDA_CHECK_LAUNCH();
}

void launchClassifyChildren(const LargeNode* level, uint32_t numNodes, const uint32_t* start,
                            uint32_t threshold, int maxDepth, ChildInfo* info, ChildScan* scanIn,
                            cudaStream_t stream) {
  if (numNodes == 0) return;
  classifyChildrenKernel<<<blocks(2ull * numNodes), kBlock, 0, stream>>>(
      level, numNodes, start, threshold, maxDepth, info, scanIn);
  SRT_CUDA_CHECK_LAUNCH();
}

void scanChildren(const ChildScan* in, ChildScan* out, uint32_t n, void** temp, size_t* tempBytes,
                  cudaStream_t stream) {
  if (n == 0) return;
  size_t bytes = 0;
  SRT_CUDA_CHECK(
      cub::DeviceScan::InclusiveScan(nullptr, bytes, in, out, ChildScanSum(), int(n), stream));
  if (bytes > *tempBytes)
    throw std::logic_error("kd-tree build: scan scratch not reserved (" + std::to_string(bytes) +
                           " bytes needed)");
  SRT_CUDA_CHECK(
      cub::DeviceScan::InclusiveScan(*temp, bytes, in, out, ChildScanSum(), int(n), stream));
}

size_t scanChildrenTempBytes(uint32_t n) {
  size_t bytes = 0;
  SRT_CUDA_CHECK(cub::DeviceScan::InclusiveScan(nullptr, bytes, static_cast<ChildScan*>(nullptr),
                                                static_cast<ChildScan*>(nullptr), ChildScanSum(),
                                                int(n)));
  return bytes;
}

void launchAssignChildren(LargeNode* level, uint32_t numNodes, const ChildInfo* info,
                          const ChildScan* inclusive, uint32_t nextBase, uint32_t termBase,
                          uint32_t termRefBase, LevelNode* next, Terminal* terms, uint32_t* handle,
                          BuildCounters* counters, cudaStream_t stream) {
  if (numNodes == 0) return;
  assignChildrenKernel<<<blocks(2ull * numNodes), kBlock, 0, stream>>>(
      level, numNodes, info, inclusive, nextBase, termBase, termRefBase, next, terms, handle,
      counters);
  SRT_CUDA_CHECK_LAUNCH();
}

void launchRouteToChildren(Ref* ref, const uint32_t* numRefs, uint32_t maxRefs,
                           const uint32_t* start, const uint32_t* handle, uint32_t nextBase,
                           const Terminal* terms, uint32_t* termTri, Bounds3f* termBox,
                           uint8_t* keep, cudaStream_t stream) {
  if (maxRefs == 0) return;
  routeToChildrenKernel<<<blocks(maxRefs), kBlock, 0, stream>>>(
      ref, numRefs, maxRefs, start, handle, nextBase, terms, termTri, termBox, keep);
  SRT_CUDA_CHECK_LAUNCH();
}

}  // namespace srt::kdgpu
