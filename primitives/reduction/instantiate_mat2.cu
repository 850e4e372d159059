// Registry instance for (Mat2u, Mat2Product): the non-commutative operator the tests use.
#include "primitives/reduction/register.cuh"

namespace srt::reduction {

SRT_REDUCTION_INSTANTIATE(Mat2u, Mat2Product)

}  // namespace srt::reduction
