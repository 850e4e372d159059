// The CUDA compaction family: one line per variant.
#include "primitives/compaction/cuda/cuda_compactors.h"

namespace srt::compaction {

void registerCudaCompactors(Registry& r) {
  const std::vector<MemorySpace> cuda{MemorySpace::Cuda};
  r.add({"cub", Device::Cuda, true, true, cuda,
         "cub::DeviceSelect::Flagged per field (CCCL from the CUDA toolkit): the baseline"},
        [](OptionReader&) { return makeCubCompactor(); });
  r.add({"warp-aggregated", Device::Cuda, false, true, cuda,
         "one atomicAdd per warp (ballot, popc, shuffle); unordered [block=256]"},
        makeWarpAggregated);
  r.add({"bm-multilevel", Device::Cuda, true, true, cuda,
         "Bakunas-Milanowski 2017 3.1: ballot masks per 32, counts per 1024, scan, scatter "
         "[block=128]"},
        makeBmMultilevel);
  r.add({"bm-hybrid", Device::Cuda, false, true, cuda,
         "Bakunas-Milanowski 2017 3.2: one kernel, shuffle scan, one atomicAdd per 1024; "
         "unordered [block=128]"},
        makeBmHybrid);
  r.add({"roger-block-cuda", Device::Cuda, true, true, cuda,
         "Roger 2007 in CUDA: shared-memory block reduction, scan of block counts, placement "
         "by dichotomic search"},
        makeRogerBlock);
  r.add({"lookback", Device::Cuda, true, true, cuda,
         "ours: one pass, decoupled look-back, flags first, survivors' payload only, 16-byte "
         "vectors [items=16,preload=1]"},
        makeLookback);
  r.add({"tile-atomic", Device::Cuda, false, true, cuda,
         "ours: one pass, one atomicAdd per 4096-element tile, flags first, coalesced 16-byte "
         "copies; unordered [items=16,preload=1]"},
        makeTileAtomic);
}

}  // namespace srt::compaction
