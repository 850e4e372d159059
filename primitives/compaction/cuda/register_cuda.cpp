// The CUDA compaction family: one line per variant.
#include "primitives/compaction/cuda/cuda_compactors.h"

namespace srt::compaction {

void registerCudaCompactors(Registry& r) {
  const std::vector<MemorySpace> cuda{MemorySpace::Cuda};
  r.add({"cub", Device::Cuda, true, true, cuda,
         "cub::DeviceSelect::Flagged per field (CCCL from the CUDA toolkit): the baseline"},
        [](OptionReader&) { return makeCubCompactor(); });
}

}  // namespace srt::compaction
