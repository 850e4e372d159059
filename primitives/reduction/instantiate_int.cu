// Registry instance for (int, Sum<int>). One file per value type keeps each compile short.
#include "primitives/reduction/register.cuh"

namespace srt::reduction {

SRT_REDUCTION_INSTANTIATE(int, Sum<int>)

}  // namespace srt::reduction
