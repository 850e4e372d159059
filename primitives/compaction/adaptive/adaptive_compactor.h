// `auto`: a compaction primitive that picks, per request shape, the fastest of the registered
// primitives from their measured costs (Moreira et al. 2010's meta-algorithm; the policy is in
// choice_policy.h).
//
// Candidates: on CUDA memory every registered primitive that compacts and takes CUDA memory,
// except the OpenGL family (its interop costs milliseconds; `gl=1` adds it); on host memory the
// CPU ones (`cpu`). Never `none` (it does not compact) and never `auto` itself.
// Options: `auto:candidates=cub+lookback+tile-atomic` (names joined by '+'; a candidate's own
// options follow its name with ';' between them: `tile-atomic:items=8;preload=0`), `gl=1`,
// `ordered=1` (only ordered candidates), `samples=2`, `probe=64` (see ChoiceParams), `tiny=N`
// (streams shorter than N run the likeliest candidate untimed: exploring them costs more than
// any choice saves), `fresh` (ignore the calibration cache; what is learnt still goes to it).
//
// Calibration cache (calibration_cache.h): a shape whose relative costs the cache holds for this
// device starts exploiting them at once (timed every measureEvery-th call and re-probed as
// usual); shapes explored to the end are written back when the compactor is destroyed.
//
// The key of a decision is the request's shape: memory space, log2 bucket of count, number of
// fields and bytes per element (the renderer's path state and its shadow rays get separate
// decisions at every bounce size). A new shape starts from the relative costs of the nearest
// known shape, so a candidate that lost badly there is not explored again.
//
// The first request of each field layout in a memory space first runs every candidate once on a
// short prefix (untimed), so lazy kernel loading and first-use allocation stay out of the samples.
// Timing never blocks: on CUDA memory each timed run is bracketed by CUDA events on r.stream,
// read with cudaEventQuery on later calls (a bounce loop that reads its counters back has
// completed them by the next call); on host memory candidates are synchronous and timed with
// std::chrono. Ordering: the registered Info says "unordered" since the default CUDA candidates
// include unordered primitives; ordered() says what this instance guarantees.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "primitives/compaction/adaptive/calibration_cache.h"
#include "primitives/compaction/adaptive/choice_policy.h"
#include "primitives/compaction/compaction.h"

namespace srt::compaction {

struct AdaptiveOptions {
  std::vector<std::string> candidates;  // specs; empty: every fitting registered primitive
  bool gl = false;                      // default candidates include the OpenGL family
  bool ordered = false;                 // only ordered candidates
  ChoiceParams policy;
  uint32_t tiny = 1u << 14;  // streams shorter than this are never explored nor timed
  bool fresh = false;        // ignore the calibration cache
  std::string cachePath;     // empty: CalibrationCache::defaultPath()
  // Reads candidates, gl, ordered, samples and probe; throws std::invalid_argument on bad values.
  static AdaptiveOptions read(OptionReader& o);
};

// What `auto` has learnt about one request shape, for --stats and tests.
struct AdaptiveShapeStats {
  MemorySpace memory = MemorySpace::Cuda;
  int countLog2 = 0;  // counts in [2^(countLog2-1), 2^countLog2); 0 for an empty stream
  int numFields = 0;
  uint32_t bytesPerElement = 0;  // the fields' bytes summed
  uint64_t calls = 0;
  std::string choice;  // what the next call of this shape runs
  bool exploring = false;
  bool calibrated = false;  // started from the calibration cache
  bool tiny = false;        // shorter than the tiny option: untimed
  struct Candidate {
    std::string name;
    uint64_t runs = 0, samples = 0;
    double nsPerElement = -1;  // median of the recent samples; < 0 when never timed
    bool contender = false;
  };
  std::vector<Candidate> candidates;
};

class AdaptiveCompactor final : public Compactor {
 public:
  // Candidates are created from `registry` (which must outlive this) on the first request in
  // each memory space; reserve() is forwarded to them.
  AdaptiveCompactor(const Registry& registry, AdaptiveOptions options);
  ~AdaptiveCompactor() override;

  void reserve(uint32_t maxCount) override;
  // Makes and prepares the candidates for p.memory (each loads its kernels on every layout) and
  // reads the calibration cache, so the first frame neither warms up nor waits.
  void prepare(const Preparation& p) override;
  void compact(const Request& r) override;
  double lastTransferMs() const override { return lastTransferMs_; }

  // True when every candidate, in either memory space, keeps input order (ordered=1, or only
  // ordered ones named; the default "auto" is unordered).
  bool ordered() const { return ordered_; }
  // The candidate the last compact() ran ("" before the first call).
  const std::string& lastChoice() const { return lastChoice_; }
  // One entry per request shape seen, in order of first appearance.
  std::vector<AdaptiveShapeStats> shapeStats() const;
  // One line per shape: "cuda 2^19 x 12 fields 96 B: tile-atomic (120 calls; tile-atomic 0.21
  // ns/el, lookback 0.25, ...)"; times still in flight are not included.
  std::string choiceSummary() const override;
  // Writes the calibration of shapes measured since the last write (the destructor writes all).
  void persist() override;

 private:
  struct Family;  // the candidates of one memory space
  struct Shape;
  struct Timing;  // a timed run whose CUDA events are still pending
  Family& family(MemorySpace m);
  Shape& shape(const Request& r, Family& f);
  void harvest();
  void run(const Request& r, Shape& s, int candidate, bool timed);
  CalibrationCache* cache();
  void saveCalibration(bool onlyNew);

  const Registry& registry_;
  AdaptiveOptions options_;
  bool ordered_ = false;
  uint32_t maxCount_ = 0;
  std::unique_ptr<Family> families_[2];
  std::vector<std::unique_ptr<Shape>> shapes_;
  std::vector<std::unique_ptr<Timing>> timings_;  // event pairs, free or pending
  std::string lastChoice_;
  std::unique_ptr<CalibrationCache> cache_;  // read on first use
  double lastTransferMs_ = 0;
};

// Registers "auto" into `r`; its factory lists r's entries when an instance is created. Call it
// after the other families (Registry::global() does).
void registerAdaptiveCompactors(Registry& r);

}  // namespace srt::compaction
