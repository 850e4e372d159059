// Factories of the CUDA compaction family; registered by name in register_cuda.cpp. Each reads
// its options (after ':' in the name) from the OptionReader.
#pragma once

#include <memory>

#include "primitives/compaction/compaction.h"

namespace srt::compaction {

std::unique_ptr<Compactor> makeCubCompactor();
std::unique_ptr<Compactor> makeWarpAggregated(OptionReader& o);  // block=256
std::unique_ptr<Compactor> makeBmMultilevel(OptionReader& o);    // block=128
std::unique_ptr<Compactor> makeBmHybrid(OptionReader& o);        // block=128
std::unique_ptr<Compactor> makeRogerBlock(OptionReader& o);
std::unique_ptr<Compactor> makeLookback(OptionReader& o);    // items=16 or 8, preload=1 or 0
std::unique_ptr<Compactor> makeTileAtomic(OptionReader& o);  // items=16 or 8, preload=1 or 0

}  // namespace srt::compaction
