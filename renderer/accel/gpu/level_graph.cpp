#include "renderer/accel/gpu/level_graph.h"

#include <algorithm>
#include <exception>
#include <utility>

#include "primitives/common/cuda_check.h"
#include "renderer/accel/gpu/device_steps.h"

namespace srt::kdgpu {

OwnedStream OwnedStream::nonBlocking() {
  OwnedStream s;
  SRT_CUDA_CHECK(cudaStreamCreateWithFlags(&s.stream_, cudaStreamNonBlocking));
  return s;
}
OwnedStream::~OwnedStream() {
  if (stream_) cudaStreamDestroy(stream_);  // errors ignored: destructors never throw
}
OwnedStream::OwnedStream(OwnedStream&& o) noexcept : stream_(std::exchange(o.stream_, nullptr)) {}
OwnedStream& OwnedStream::operator=(OwnedStream&& o) noexcept {
  std::swap(stream_, o.stream_);
  return *this;
}

std::vector<uintptr_t> levelGraphKey(const BuildArrays& a, const TriangleMeshView& mesh,
                                     uint32_t validTriangles, const void* counters,
                                     const void* state, const std::vector<LevelCaps>& caps) {
  std::vector<uintptr_t> k{uintptr_t(mesh.positions), uintptr_t(mesh.indices),
                           mesh.triangleCount,        validTriangles,
                           uintptr_t(counters),       uintptr_t(state)};
  const auto add = [&k](const auto&... arrays) { (k.push_back(uintptr_t(arrays.data())), ...); };
  add(a.levelIn, a.levelNext, a.large, a.curRef, a.curBox, a.curOwner, a.offsets, a.tight,
      a.partial, a.binOwner, a.binOffsets, a.binCounts, a.dRef, a.cRef);
  add(a.dKeep, a.childRefs, a.childStart, a.handle, a.scanTemp, a.terms, a.termTri, a.termBox);
  for (const LevelCaps& c : caps)
    k.insert(k.end(), {c.nodes, c.refs, c.chunks, c.large, c.terms, c.termRefs});
  return k;
}

void reserveLevel(BuildArrays& a, const LevelCaps& caps, const LevelKeep& keep,
                  cudaStream_t stream) {
  const size_t C = 2ull * caps.nodes, D = 2ull * caps.refs, K = kBinCounters;
  // Both level arrays get the same capacity, so which one is "next" (they swap every level)
  // never decides whether a rebuild allocates.
  a.levelIn.reserve(C, stream, keep.nodes);
  a.levelNext.reserve(C, stream);
  a.large.reserve(std::max<size_t>(caps.large, 1), stream, keep.large);
  a.curRef.reserve(D, stream, keep.refs);
  a.curBox.reserve(caps.refs, stream);
  a.curOwner.reserve(caps.refs, stream);
  a.offsets.reserve(caps.nodes + 1, stream);
  a.tight.reserve(caps.nodes, stream);
  a.partial.reserve(K * caps.chunks, stream);
  a.binOwner.reserve(K * caps.chunks, stream);
  a.binOffsets.reserve(K * caps.nodes + 1, stream);
  a.binCounts.reserve(K * caps.nodes, stream);
  for (auto* refs : {&a.dRef, &a.cRef}) refs->reserve(D, stream);
  a.dKeep.reserve(D, stream);
  a.childRefs.reserve(C, stream);
  a.childStart.reserve(C, stream);
  a.handle.reserve(C, stream);
  a.scanTemp.reserve(childScanTempBytes(uint32_t(C)), stream);
  a.terms.reserve(std::max<size_t>(caps.terms, 1), stream, keep.terms);
  a.termTri.reserve(caps.termRefs, stream, keep.termRefs);
  a.termBox.reserve(caps.termRefs, stream, keep.termRefs);
}

size_t levelBytes(const LevelCaps& caps) {
  const size_t C = 2ull * caps.nodes, D = 2ull * caps.refs, K = kBinCounters;
  return 2 * C * sizeof(LevelNode) + size_t(caps.large) * sizeof(LargeNode) + 3 * D * sizeof(Ref) +
         D + size_t(caps.refs) * (sizeof(Bounds3f) + 4) +
         size_t(caps.nodes) * (sizeof(Bounds3f) + 12 + 8 * K) + 8 * K * size_t(caps.chunks) +
         3 * C * 4 + size_t(caps.terms) * sizeof(Terminal) +
         size_t(caps.termRefs) * (sizeof(Bounds3f) + 4);
}

bool captureLevelGraph(LevelGraph& graph, std::vector<uintptr_t> key, cudaStream_t captureStream,
                       const std::function<void()>& body) {
  graph.reset();
  // Thread-local mode: an allocation or a synchronisation in the body fails the capture instead
  // of slipping into the graph.
  if (cudaStreamBeginCapture(captureStream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
    cudaGetLastError();
    graph.unsupported = true;
    return false;
  }
  bool ok = true;
  try {
    body();
  } catch (const std::exception&) {
    ok = false;
  }
  cudaGraph_t g = nullptr;
  ok = cudaStreamEndCapture(captureStream, &g) == cudaSuccess && g && ok;
  cudaGraphExec_t exec = nullptr;
  ok = ok && cudaGraphInstantiate(&exec, g, 0) == cudaSuccess;
  if (g) cudaGraphDestroy(g);
  cudaGetLastError();  // a failed capture's error is not the next check's
  if (!ok) {
    graph.unsupported = true;
    return false;
  }
  graph.exec = exec;
  graph.key = std::move(key);
  graph.pending.clear();
  return true;
}

void launchLevelGraph(const LevelGraph& graph, cudaStream_t stream) {
  SRT_CUDA_CHECK(cudaGraphLaunch(graph.exec, stream));
}

}  // namespace srt::kdgpu
