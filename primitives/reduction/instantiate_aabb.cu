// Registry instance for (Aabb, AabbUnion): per-node bounds for the kd-tree build.
#include "primitives/reduction/register.cuh"

namespace srt::reduction {

SRT_REDUCTION_INSTANTIATE(Aabb, AabbUnion)

}  // namespace srt::reduction
