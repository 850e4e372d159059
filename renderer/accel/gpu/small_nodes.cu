// Small-node stage (Zhou et al. 2008, section 4.3): one warp per terminal builds its subtree with
// the exact SAH over all 6m candidate planes of each node (m <= 64 triangles), triangle sets as
// 64-bit masks in shared memory (buildSmallSubtree in small_node_build.h; the host reference runs
// the same code with one lane). With the array clipper: 64 registers and 5.8 KB of shared memory
// per one-warp block, 32 warps per SM; time goes to the per-node re-clipping, whose polygon
// arrays live in local memory (bench/accel/RESULTS.md). GpuKdBuildOptions picks the variant.
#include <algorithm>

#include "primitives/common/cuda_check.h"
#include "renderer/accel/gpu/device_steps.h"

namespace srt::kdgpu {
namespace {

// A warp as the builder's team: ballots for the masks, a butterfly for the arg-min. Host
// versions exist only so the template compiles for both sides; the kernel is the only caller.
struct WarpTeam {
  SRT_CPU_GPU uint32_t lane() const {
#if SRT_IS_GPU_CODE
    return threadIdx.x & 31u;
#else
    return 0;
#endif
  }
  SRT_CPU_GPU uint32_t size() const {
    return 32;
  }
  SRT_CPU_GPU bool leader() const {
    return lane() == 0;
  }
  SRT_CPU_GPU void sync() const {
#if SRT_IS_GPU_CODE
    __syncwarp();
#endif
  }
  template <typename Pred>
  SRT_CPU_GPU uint64_t mask64(uint32_t n, Pred pred) const {
#if SRT_IS_GPU_CODE
    const uint32_t l = lane();
    const uint32_t lo = __ballot_sync(~0u, l < n && pred(l));
    const uint32_t hi = __ballot_sync(~0u, l + 32 < n && pred(l + 32));
    return uint64_t(lo) | uint64_t(hi) << 32;
#else
    return 0;
#endif
  }
  // Lowest cost, then lowest index, so every lane (and the host reference) picks the same plane.
  SRT_CPU_GPU void argmin(float* cost, uint32_t* index) const {
#if SRT_IS_GPU_CODE
    for (int offset = 16; offset > 0; offset >>= 1) {
      const float c = __shfl_xor_sync(~0u, *cost, offset);
      const uint32_t i = __shfl_xor_sync(~0u, *index, offset);
      if (c < *cost || (c == *cost && i < *index)) *cost = c, *index = i;
    }
#endif
  }
};

// Resident warps per SM asked of the compiler: 32 (64 registers) for the array clipper, as
// measured; 20 (up to 96 registers) for the streaming clipper, whose stage state lives in
// registers and would spill at 64.
template <bool StreamingClip>
constexpr int kSmallMinBlocks = StreamingClip ? 20 : 32;

template <bool StreamingClip>
__global__ void __launch_bounds__(32, kSmallMinBlocks<StreamingClip>)
    smallNodesKernel(const Terminal* terms, const LevelCounts* totals, uint32_t capTerms,
                     uint32_t capTermRefs, uint32_t* overflow, const uint32_t* termTri,
                     const Bounds3f* termBox, int maxDepth, TriangleMeshView mesh,
                     const BuildCounters* counters, SahParams sah, bool reuseBoxes, bool clampBoxes,
                     bool sharedClip, uint32_t scratchPerRef, KdNode* scratchNodes,
                     uint32_t* scratchRefs, uint32_t* termNodes, uint32_t* termRefs) {
  // Raw storage: Bounds3f's initialisers would be a dynamic initialisation of shared memory.
  __shared__ alignas(SmallShared) unsigned char sharedStorage[sizeof(SmallShared)];
  SmallShared& shared = *reinterpret_cast<SmallShared*>(sharedStorage);
  extern __shared__ float clipBuffers[];  // kClipLaneFloats a lane, when sharedClip
  const uint32_t t = blockIdx.x;
  if (*overflow) return;
  if (totals->nodes > 0 || totals->termBase > capTerms || totals->termRefBase > capTermRefs) {
    // Large nodes left after the last replayed level, or more terminals than the scratch was
    // sized for: the host rebuilds with sync levels. Checked before the terminal count, which
    // may be 0 when large nodes are left.
    *overflow = 1;
    return;
  }
  if (t >= totals->termBase) return;
  const Terminal term = terms[t];
  const size_t base = size_t(scratchPerRef) * term.refStart;
  const SmallOutput out{scratchNodes + base + t, scratchPerRef * term.refCount + 1,
                        scratchRefs + base, scratchPerRef * term.refCount};
  WarpTeam team;
  buildSmallSubtree<StreamingClip>(
      team, shared, term, termTri + term.refStart, termBox + term.refStart, maxDepth, mesh,
      clipEpsilon(counters->rawBounds), sah, out, &termNodes[t], &termRefs[t], reuseBoxes,
      clampBoxes, sharedClip ? clipBuffers + team.lane() * kClipLaneFloats : nullptr);
}

}  // namespace

void launchSmallNodes(const Terminal* terms, const LevelCounts* totals, uint32_t capTerms,
                      uint32_t capTermRefs, uint32_t* overflow, const uint32_t* termTri,
                      const Bounds3f* termBox, int maxDepth, const TriangleMeshView& mesh,
                      const BuildCounters* counters, const SahParams& sah,
                      const SmallVariant& variant, KdNode* scratchNodes, uint32_t* scratchRefs,
                      uint32_t* termNodes, uint32_t* termRefs, cudaStream_t stream) {
  auto* kernel = variant.streamingClip ? smallNodesKernel<true> : smallNodesKernel<false>;
  // A preference the driver may round; -1 is cudaSharedmemCarveoutDefault. Set on every launch:
  // the attribute stays with the kernel, and builders in one process may differ.
  SRT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                      variant.carveout));
  const size_t clipBytes = variant.sharedClip ? clipBufferBytes(32) : 0;
  // One block at least: a replay planned for no terminal still checks for large nodes left.
  kernel<<<std::max(capTerms, 1u), 32, clipBytes, stream>>>(
      terms, totals, capTerms, capTermRefs, overflow, termTri, termBox, maxDepth, mesh, counters,
      sah, variant.reuseBoxes, variant.clampBoxes, variant.sharedClip, variant.scratchPerRef,
      scratchNodes, scratchRefs, termNodes, termRefs);
  SRT_CUDA_CHECK_LAUNCH();
}

}  // namespace srt::kdgpu
