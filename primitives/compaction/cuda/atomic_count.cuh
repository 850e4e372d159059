// The host side of the unordered one-kernel compactors (warp-aggregated, bm-hybrid): their
// warps reserve output slots with atomicAdd on numKept, so the count is zeroed first
// (stream-ordered) and the kernel is the whole compaction.
#pragma once

#include <memory>
#include <utility>

#include "primitives/compaction/cuda/field_set.cuh"

namespace srt::compaction::gpu {

// `launch(r, block)` launches the kernel for a non-empty Request with `block` threads a block.
template <typename Launch>
class AtomicCountCompactor final : public Compactor {
 public:
  AtomicCountCompactor(const char* name, int block, Launch launch)
      : name_(name), block_(block), launch_(std::move(launch)) {}
  void compact(const Request& r) override {
    requireCuda(r, name_);
    writeZeroCount(r);  // the counter the warps add to
    if (r.count == 0) return;
    launch_(r, block_);
    SRT_CUDA_CHECK_LAUNCH();
  }

 private:
  const char* name_;
  int block_;
  Launch launch_;
};

template <typename Launch>
std::unique_ptr<Compactor> makeAtomicCount(const char* name, int block, Launch launch) {
  return std::make_unique<AtomicCountCompactor<Launch>>(name, block, std::move(launch));
}

}  // namespace srt::compaction::gpu
