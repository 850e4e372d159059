// The CUDA compaction family: one line per variant, with the options it takes.
#include "primitives/compaction/cuda/cuda_compactors.h"

namespace srt::compaction {

void registerCudaCompactors(Registry& r) {
  const std::vector<MemorySpace> cuda{MemorySpace::Cuda};
  // Threads per block: whole warps, up to the device's limit.
  const auto block = [](int fallback) {
    return std::vector<OptionSpec>{intOption("block", fallback, 32, 1024, 32)};
  };
  // The tile kernels: flags per thread, and whether the flags are loaded before the scan.
  const std::vector<OptionSpec> tile{choiceOption("items", "16", {"8", "16"}),
                                     flagOption("preload", true)};
  r.add({"cub", Device::Cuda, true, true, cuda,
         "cub::DeviceSelect::Flagged per field (CCCL from the CUDA toolkit): the baseline"},
        [](OptionReader&) { return makeCubCompactor(); });
  r.add({"warp-aggregated", Device::Cuda, false, true, cuda,
         "one atomicAdd per warp (ballot, popc, shuffle); unordered"},
        makeWarpAggregated, block(256));
  r.add({"bm-multilevel", Device::Cuda, true, true, cuda,
         "Bakunas-Milanowski 2017 3.1: ballot masks per 32, counts per 1024, scan, scatter"},
        makeBmMultilevel, block(128));  // the paper's best block on both of its GPUs
  r.add({"bm-hybrid", Device::Cuda, false, true, cuda,
         "Bakunas-Milanowski 2017 3.2: one kernel, shuffle scan, one atomicAdd per 1024; "
         "unordered"},
        makeBmHybrid, block(128));
  r.add({"roger-block-cuda", Device::Cuda, true, true, cuda,
         "Roger 2007 in CUDA: shared-memory block reduction, scan of block counts, placement "
         "by dichotomic search"},
        makeRogerBlock);
  r.add({"lookback", Device::Cuda, true, true, cuda,
         "ours: one pass, decoupled look-back, flags first, survivors' payload only, 16-byte "
         "vectors"},
        makeLookback, tile);
  r.add({"tile-atomic", Device::Cuda, false, true, cuda,
         "ours: one pass, one atomicAdd per 4096-element tile, flags first, coalesced 16-byte "
         "copies; unordered"},
        makeTileAtomic, tile);
}

}  // namespace srt::compaction
