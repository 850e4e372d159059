// Every reduction variant, one line each, registered for one (T, Op) instantiation. Included only
// by the instantiate_*.cu files, so the kernels compile once per value type.
#pragma once

#include "primitives/reduction/cub_reducers.cuh"
#include "primitives/reduction/mergepath.cuh"
#include "primitives/reduction/paper_kernels.cuh"

namespace srt::reduction::detail {

template <typename T, typename Op, typename R>
void addVariant(Registry<T, Op>& reg, Info info) {
  reg.add(info, [info] { return std::unique_ptr<Reducer<T, Op>>(new R(info)); });
}

template <typename T, typename Op>
void registerAll(Registry<T, Op>& r) {
  using A = PaperAlg;
  constexpr Layout kNone = Layout::None, kOwn = Layout::Owners, kOff = Layout::Offsets;
  // Unsegmented (paper §III).
  addVariant<T, Op, PaperReducer<T, Op, false, A::Tb2>>(
      r, {"tb2", false, kNone, false, "tree, D = 2B = 512, padded shared memory (Alg. 1)"});
  addVariant<T, Op, PaperReducer<T, Op, false, A::Tb4Warp>>(
      r, {"tb4-warp", false, kNone, false, "intra-warp trees, D = 4B = 1024 (Alg. 2)"});
  addVariant<T, Op, PaperReducer<T, Op, false, A::Matrix>>(
      r, {"matrix", false, kNone, false, "rows of a 32x32 matrix, then a warp tree (Alg. 3)"});
  addVariant<T, Op, PaperReducer<T, Op, false, A::Matrix, 32, true>>(
      r, {"persistent-matrix", false, kNone, false, "matrix, grid = SMs x resident blocks"});
  addVariant<T, Op, PaperReducer<T, Op, false, A::Matrix, 32, true, true>>(
      r, {"diffwarps", false, kNone, false, "persistent matrix, 1 consumer + 8 producer warps"});
  addVariant<T, Op, CubReducer<T, Op, false>>(
      r, {"cub", false, kNone, true, "cub::DeviceReduce::Reduce (baseline)"});
  // Segmented with an owner array (paper §IV).
  addVariant<T, Op, PaperReducer<T, Op, true, A::Tb2>>(
      r, {"tb2", true, kOwn, false, "Zhou et al.'s tree, D = 512, left-storing"});
  addVariant<T, Op, PaperReducer<T, Op, true, A::Tb4Warp>>(
      r, {"tb4-warp", true, kOwn, false, "intra-warp segmented trees, D = 1024"});
  addVariant<T, Op, PaperReducer<T, Op, true, A::Matrix>>(
      r, {"matrix", true, kOwn, false, "segmented 32x32 matrix rows, right-storing warp tree"});
  addVariant<T, Op, PaperReducer<T, Op, true, A::Matrix, 32, true>>(
      r, {"persistent-matrix", true, kOwn, false, "segmented matrix, persistent blocks"});
  addVariant<T, Op, PaperReducer<T, Op, true, A::Matrix, 32, true, true>>(
      r, {"diffwarps", true, kOwn, false, "segmented producer-consumer, 32x32 double buffer"});
  addVariant<T, Op, PaperReducer<T, Op, true, A::Matrix, 16, true, true>>(
      r, {"diffwarps16", true, kOwn, false, "segmented producer-consumer, 32x16 double buffer"});
  // Ours.
  addVariant<T, Op, MergePathReducer<T, Op>>(
      r, {"mergepath", true, kOff, false,
          "ours: merge-path balance of items and segment ends, one write per segment"});
  addVariant<T, Op, MergePathReducer<T, Op, true>>(
      r, {"mergepath-fused", true, kOff, false,
          "mergepath with its per-tile fix-up in one single-block launch (ablation)"});
  // Baselines.
  addVariant<T, Op, CubReducer<T, Op, true>>(
      r, {"cub-segmented", true, kOff, true, "cub::DeviceSegmentedReduce::Reduce (baseline)"});
  addVariant<T, Op, CubReduceByKeyReducer<T, Op>>(
      r, {"cub-reduce-by-key", true, kOwn, false,
          "cub::DeviceReduce::ReduceByKey on owners + scatter (baseline)"});
}

}  // namespace srt::reduction::detail

// Defines Registry<T, Op>::global() for one instantiation.
#define SRT_REDUCTION_INSTANTIATE(T, Op)       \
  template <>                                  \
  Registry<T, Op>& Registry<T, Op>::global() { \
    static Registry<T, Op>* registry = [] {    \
      auto* r = new Registry<T, Op>;           \
      detail::registerAll<T, Op>(*r);          \
      return r;                                \
    }();                                       \
    return *registry;                          \
  }
