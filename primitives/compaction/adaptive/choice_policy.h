// The decision half of `--compaction auto` (Moreira et al. 2010, section 4's meta-algorithm: no
// primitive is best on every data set, so pick per data set from what is observed). One
// ChoicePolicy per request shape says which candidate runs next and whether to time it; it knows
// nothing of clocks or CUDA, so its behaviour is tested with synthetic samples.
//
// Exploration is paid for in real compactions, so it is kept small:
//  - a candidate is a *contender* while its median time is within `contend` x the best median
//    (before its first sample, while its prior ratio from a similar shape is within it);
//  - each contender is timed `samples` times, the most promising first; a candidate that loses by
//    more than `contend` after any sample is dropped (every candidate's first run costs about
//    as much as the compaction itself, so the first pass is the price of exploring: it is paid
//    once per compactor, since later shapes start from a measured one); a dropped candidate is
//    re-admitted when the best one's median worsens so much that it is a contender again;
//  - then the best median runs, timed every `measureEvery`-th call so its median follows the
//    workload, and every `probeEvery`-th call one other contender (in turn) is re-timed; every
//    4th of those re-probes goes to a dropped candidate within 2x of the best, if there is one,
//    so that an unlucky sample is corrected. Candidates slower than 2x are never re-run.
#pragma once

#include <cstdint>
#include <vector>

namespace srt::compaction {

struct ChoiceParams {
  int samples = 2;      // timed runs of each contender before exploiting
  int probeEvery = 64;  // every probeEvery-th exploiting call re-times another contender (0: never)
  int measureEvery = 8;   // every measureEvery-th exploiting call times the chosen one
  double contend = 1.25;  // slower than contend x the best median: no longer a contender
  int window = 5;         // a median over the last `window` samples of each candidate
};

class ChoicePolicy {
 public:
  struct Pick {
    int candidate = 0;
    bool timed = false;  // the caller should time this run and report it with record()
  };

  // `prior`: per candidate, its cost relative to the best on a similar shape (1 = the best);
  // empty when nothing is known, which makes every candidate a contender, in index order.
  ChoicePolicy(int numCandidates, ChoiceParams params, std::vector<double> prior = {});

  // The candidate to run on this call. `timed` picks are counted as issued runs at once, so a
  // sample still in flight (a CUDA event not yet complete) does not trigger a second exploration.
  Pick next();
  // Within the same call as next(): the next contender still owed a sample, issued (timed) but
  // not counted as a call; -1 when none is owed. A caller times a round of candidates on one
  // input with it.
  int issueExploration();
  // A timed pick could not be timed after all (no free timer): the run is not counted.
  void untimed(int candidate);
  // A completed timing of `candidate`, in any unit proportional to cost (ns per element).
  void record(int candidate, double cost);

  // The candidate with the lowest median so far, or -1 before the first sample.
  int best() const;
  // What the next exploiting call runs: best(), or the most promising by prior while nothing
  // has been measured.
  int choice() const;
  bool exploring() const;
  bool contender(int candidate) const;
  double median(int candidate) const;  // < 0 when there is no sample
  // Median cost relative to the best median (1 = the best), for seeding a similar shape; the
  // prior stands in for candidates with no sample.
  std::vector<double> relativeCosts() const;

  int numCandidates() const { return int(runs_.size()); }
  uint64_t calls() const { return calls_; }
  uint64_t runs(int candidate) const { return runs_[candidate]; }  // every run, timed or not
  uint64_t samples(int candidate) const { return recorded_[candidate]; }

 private:
  int explorationPick() const;                  // -1 when every contender has its samples
  int probePick(int chosen, bool wantDropped);  // -1 when there is no such candidate

  ChoiceParams params_;
  std::vector<double> prior_;
  std::vector<int> rank_;  // candidate indices, most promising (lowest prior) first
  std::vector<std::vector<double>> window_;  // last samples per candidate, oldest first
  std::vector<uint64_t> issued_, recorded_, runs_;
  uint64_t calls_ = 0, exploitCalls_ = 0;
  int nextProbe_ = 0;  // position in rank_ of the next re-probe
  uint64_t probes_ = 0;
};

}  // namespace srt::compaction
