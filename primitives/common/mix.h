// The xorshift-multiply finaliser that integer hashes and counter-based random numbers are built
// on (murmur3's fmix, SplitMix64's, Wellons's lowbias32): two rounds of x ^= x >> s; x *= m, then
// a last xorshift. A variant is its shifts and odd multipliers; each is a bijection of U.
#pragma once

#include "primitives/common/host_device.h"

namespace srt {

template <typename U, int S1, U M1, int S2, U M2, int S3>
SRT_CPU_GPU SRT_INLINE U xorShiftMultiply(U x) {
  x ^= x >> S1;
  x *= M1;
  x ^= x >> S2;
  x *= M2;
  x ^= x >> S3;
  return x;
}

}  // namespace srt
