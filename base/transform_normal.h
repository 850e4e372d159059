// Normals under a transform: by its inverse transpose. Transform::normal inverts on every call;
// code that transforms many normals inverts once and calls normalByInverse.
#pragma once

#include "base/math.h"

namespace srt {

// The normal `n` transformed by the inverse transpose, given `inverse` (the transform's inverse).
Vec3f normalByInverse(const Transform& inverse, Vec3f n);

}  // namespace srt
