// The GPU kd-tree build's one meeting point with the segmented reductions' own box type: the
// build keeps base/math.h Bounds3f everywhere, the reduction primitives (which may not include
// base/) reduce srt::reduction::Aabb, a type of the same layout. BoxReducer passes the build's
// arrays through unchanged; segmented_boxes.cpp checks that the layouts match.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/math.h"
#include "primitives/reduction/reduction.h"

namespace srt {

// The segmented reductions GpuKdBuildOptions::segreduce may name (registered for boxes and for
// ints: node bounds and bin counts), with their registry descriptions, in registry order.
std::vector<reduction::Info> gpuKdSegmentedReductions();
std::vector<std::string> gpuKdSegmentedReductionNames();
// Throws std::invalid_argument "WHAT: unknown segmented reduction 'NAME' (registered: ...)".
void checkGpuKdSegreduce(const std::string& name, const std::string& what);

namespace kdgpu {

// The selected segmented union of boxes over device arrays of Bounds3f.
class BoxReducer {
 public:
  explicit BoxReducer(const std::string& name);  // throws std::invalid_argument when unknown
  ~BoxReducer();
  reduction::Layout layout() const { return layout_; }
  // The reduction's scratch for inputs up to these sizes (Reducer::reserve).
  void reserve(uint32_t maxCount, uint32_t maxSegments);
  // out[s] = union of in[] over segment s of `segments`, by owners or offsets (the one layout()
  // names; the other may be null). Asynchronous on `stream`. outHoldsIdentity: out[] is already
  // empty boxes (Request::outHoldsIdentity).
  void reduce(const Bounds3f* in, uint32_t count, Bounds3f* out, uint32_t segments,
              const uint32_t* owners, const uint32_t* offsets, cudaStream_t stream,
              bool outHoldsIdentity = false);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  reduction::Layout layout_;
};

}  // namespace kdgpu
}  // namespace srt
