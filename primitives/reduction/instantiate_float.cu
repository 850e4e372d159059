// Registry instance for (float, Sum<float>). One file per value type keeps each compile short.
#include "primitives/reduction/register.cuh"

namespace srt::reduction {

SRT_REDUCTION_INSTANTIATE(float, Sum<float>)

}  // namespace srt::reduction
