// The GPU kd-tree build's large-node stage on the host (BuildScratch, build_run.h): the levels of
// Zhou et al.'s breadth-first build, run with one round trip a level (sync), replayed from the
// previous build's counts, or relaunched as a captured graph.
#include <stdexcept>
#include <utility>
#include <vector>

#include "primitives/common/cuda_check.h"
#include "renderer/accel/gpu/build_run.h"

namespace srt::kdgpu {

void BuildScratch::setLevel(uint32_t l, const LevelCounts& c) {
  hostState_[0].levels[l] = c;
  SRT_CUDA_CHECK(cudaMemcpyAsync(&state_->levels[l], &hostState_[0].levels[l], sizeof(c),
                                 cudaMemcpyHostToDevice, stream_));
}

void BuildScratch::readLevel(uint32_t l) {
  timer_.mark(kIdle);
  SRT_CUDA_CHECK(cudaMemcpyAsync(&hostState_[0].levels[l], &state_->levels[l], sizeof(LevelCounts),
                                 cudaMemcpyDeviceToHost, stream_));
  SRT_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void BuildScratch::uploadRoot() {
  const LevelNode root{emptyBounds(), 0, 0, V_, 0, chunksOf(V_)};
  SRT_CUDA_CHECK(cudaMemcpyAsync(a_.levelIn.reserve(1, stream_), &root, sizeof(root),
                                 cudaMemcpyHostToDevice, stream_));
  setLevel(0, {1u, V_, chunksOf(V_), 0u, 0u, 0u});
}

void BuildScratch::reservePlausibleLevel() {
  const LevelCaps c = firstBuildCaps(V_, uint32_t(smallNodeThresholdFor(o_)));
  size_t freeBytes = 0, totalBytes = 0;
  if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess) {
    (void)cudaGetLastError();
    return;
  }
  if (levelBytes(c) / 2 * 3 > freeBytes / 4) return;  // with the arrays' growth slack
  reserveLevel(a_, c, {0, 0, 0, 0, V_}, stream_);
  boxReducer_.reserve(c.refs, c.nodes);
  intReducer_->reserve(uint32_t(kBinCounters) * c.chunks, uint32_t(kBinCounters) * c.nodes);
  compactor_->reserve(2 * c.refs);
}

void BuildScratch::syncLargeStage() {
  reservePlausibleLevel();
  uploadRoot();
  LevelCounts cur = hostState_[0].levels[0];
  for (uint32_t l = 0; cur.nodes > 0; ++l) {
    if (l + 1 >= kMaxLevelEntries) throw std::logic_error("GpuKdTreeBuilder: too many levels");
    const LevelCaps caps = exactCaps(cur);
    reserveLevel(a_, caps, {cur.nodes, cur.base, cur.termBase, cur.termRefBase, cur.refs}, stream_);
    largeLevel(l, caps);
    readLevel(l + 1);
    cur = hostState_[0].levels[l + 1];
    if (size_t(cur.termRefBase) * size_t(o_.scratchPerRef) + cur.termBase > kKdMaxField)
      throw std::length_error("GpuKdTreeBuilder: scratch would pass 2^30 entries");
    std::swap(a_.levelIn, a_.levelNext);
  }
  capLarge_ = cur.base;
  capTerms_ = cur.termBase;
  capTermRefs_ = cur.termRefBase;
}

void BuildScratch::replayLargeStage() {
  const ReplayCaps r = replayCaps(plan_, o_.replaySlack);
  reserveLevel(a_, r.max, {0, 0, 0, 0, V_}, stream_);
  uploadRoot();
  if (o_.levels == GpuKdLevels::Graph && !graph_.unsupported)
    graphLevels(r);
  else
    replayLevels(r);
  capLarge_ = r.max.large;
  capTerms_ = r.smallTerms;
  capTermRefs_ = r.smallRefs;
}

void BuildScratch::replayLevels(const ReplayCaps& r) {
  for (uint32_t l = 0; l < r.levels.size(); ++l) {
    largeLevel(l, r.levels[l]);
    std::swap(a_.levelIn, a_.levelNext);
  }
  if (r.levels.size() % 2) std::swap(a_.levelIn, a_.levelNext);
}

void BuildScratch::graphLevels(const ReplayCaps& r) {
  std::vector<uintptr_t> key = levelGraphKey(a_, mesh_, V_, counters_, state_, r.levels);
  if (!graph_.exec || key != graph_.key) {
    graph_.reset();
    if (key != graph_.pending) {
      graph_.pending = std::move(key);
      replayLevels(r);
      return;
    }
    if (!captureStream_.get()) captureStream_ = OwnedStream::nonBlocking();
    const uint32_t* levelIn = reinterpret_cast<const uint32_t*>(a_.levelIn.data());
    const cudaStream_t stream = stream_;
    stream_ = captureStream_.get();
    timer_.pause(true);
    const bool captured = captureLevelGraph(graph_, key, stream_, [&] { replayLevels(r); });
    timer_.pause(false);
    stream_ = stream;
    if (!captured) {  // nothing ran: the loop again, enqueued
      if (reinterpret_cast<const uint32_t*>(a_.levelIn.data()) != levelIn)
        std::swap(a_.levelIn, a_.levelNext);
      levels_.clear();
      replayLevels(r);
      return;
    }
  }
  timer_.mark(kLevels);
  launchLevelGraph(graph_, stream_);
  levels_ = r.levels;
  graphed_ = true;
}

void BuildScratch::planLevel(const LevelArgs& a) {
  const LevelCaps& caps = a.caps;
  timer_.mark(kBounds);
  launchUnpackLevel(a, a_.curRef.data(), a_.curBox.data(), a_.curOwner.data(), a_.levelIn.data(),
                    a_.offsets.data(), {a_.tight.data(), a_.binCounts.data(), a_.childRefs.data()},
                    stream_);
  reduceBoxes(a_.curBox.data(), caps.refs, a_.tight.data(), caps.nodes, a_.curOwner.data(),
              a_.offsets.data(), true);
  timer_.mark(kBinning);
  const size_t K = kBinCounters;
  const BinLayout layout{a_.partial.data(), a_.binOwner.data(), a_.binOffsets.data()};
  launchBinChunks(a, a_.levelIn.data(), a_.tight.data(), a_.curRef.data(), o_.emptySpaceRatio,
                  maxDepth_, layout, stream_);
  reduction::Request<int> r;
  r.in = layout.partial;
  r.count = uint32_t(K * caps.chunks);
  r.out = a_.binCounts.data();
  r.numSegments = uint32_t(K * caps.nodes);
  r.stream = stream_;
  r.outHoldsIdentity = true;  // zeroed by the unpacking pass
  if (intLayout_ == reduction::Layout::Offsets)
    r.offsets = layout.offsets;
  else
    r.owners = layout.owners;
  intReducer_->reduce(r);
  timer_.mark(kSplit);
  launchChooseSplits(a, a_.levelIn.data(), a_.tight.data(), a_.binCounts.data(), o_.emptySpaceRatio,
                     maxDepth_, sah(), o_.splitPerWarp, a_.large.data(), stream_);
}

void BuildScratch::largeLevel(uint32_t l, const LevelCaps& caps) {
  const LevelArgs a{&state_->levels[l], &state_->levels[l + 1], caps, &state_->overflow};
  const uint32_t C = 2 * caps.nodes, D = 2 * caps.refs;
  planLevel(a);
  launchRouteReferences(a, mesh_, counters_, a_.curRef.data(), a_.large.data(), o_.streamingClip,
                        o_.largeSharedClip, a_.dRef.data(), a_.dKeep.data(), a_.childRefs.data(),
                        stream_);
  timer_.mark(kCompaction);
  compact(a_.dKeep.data(), D, a_.dRef.data(), a_.cRef.data(), &counters_->kept);
  timer_.mark(kSplit);
  classifyAndAssignChildren(a, counters_, a_.large.data(), a_.childRefs.data(),
                            uint32_t(smallNodeThresholdFor(o_)), maxDepth_, a_.levelNext.data(),
                            a_.terms.data(), a_.handle.data(), a_.childStart.data(),
                            a_.scanTemp.data(), childScanTempBytes(C), stream_);
  launchRouteToChildren(a, a_.cRef.data(), &counters_->kept, a_.childStart.data(), a_.handle.data(),
                        a_.terms.data(), a_.levelNext.data(), a_.termTri.data(), a_.termBox.data(),
                        a_.curRef.data(), stream_);
  levels_.push_back(caps);
}

}  // namespace srt::kdgpu
