// Factories of the CUDA compaction family; registered by name in register_cuda.cpp.
#pragma once

#include <memory>

#include "primitives/compaction/compaction.h"

namespace srt::compaction {

std::unique_ptr<Compactor> makeCubCompactor();

}  // namespace srt::compaction
