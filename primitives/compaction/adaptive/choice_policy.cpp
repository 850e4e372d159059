#include "primitives/compaction/adaptive/choice_policy.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace srt::compaction {

ChoicePolicy::ChoicePolicy(int numCandidates, ChoiceParams params, std::vector<double> prior)
    : params_(params),
      prior_(std::move(prior)),
      window_(numCandidates),
      issued_(numCandidates, 0),
      recorded_(numCandidates, 0),
      runs_(numCandidates, 0) {
  if (numCandidates < 1) throw std::invalid_argument("ChoicePolicy needs a candidate");
  if (prior_.empty()) prior_.assign(numCandidates, 1.0);
  if (int(prior_.size()) != numCandidates)
    throw std::invalid_argument("ChoicePolicy: one prior per candidate is needed");
  rank_.resize(numCandidates);
  std::iota(rank_.begin(), rank_.end(), 0);
  std::stable_sort(rank_.begin(), rank_.end(), [&](int a, int b) { return prior_[a] < prior_[b]; });
}

double ChoicePolicy::median(int c) const {
  std::vector<double> v = window_[c];
  if (v.empty()) return -1.0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

int ChoicePolicy::best() const {
  int b = -1;
  double bm = 0;
  for (int c : rank_) {
    if (recorded_[c] == 0) continue;
    const double m = median(c);
    if (b < 0 || m < bm) b = c, bm = m;
  }
  return b;
}

int ChoicePolicy::choice() const {
  const int b = best();
  return b >= 0 ? b : rank_[0];
}

bool ChoicePolicy::contender(int c) const {
  const int b = best();
  if (recorded_[c] == 0 || b < 0) return prior_[c] <= params_.contend;
  return median(c) <= params_.contend * median(b);
}

int ChoicePolicy::explorationPick() const {
  // Fewest issued runs first, then the most promising: every contender gets its first sample
  // before any gets a second, and a second run waits for the first one's time (a candidate that
  // lost badly is not run again just because its time was still in flight).
  for (int pass = 0; pass < params_.samples; ++pass)
    for (int c : rank_)
      if (issued_[c] <= uint64_t(pass) && (pass == 0 || recorded_[c] >= issued_[c]) && contender(c))
        return c;
  return -1;
}

bool ChoicePolicy::exploring() const {
  if (numCandidates() == 1) return false;
  for (int c = 0; c < numCandidates(); ++c)
    if (issued_[c] < uint64_t(params_.samples) && contender(c)) return true;
  return false;
}

ChoicePolicy::Pick ChoicePolicy::next() {
  ++calls_;
  if (numCandidates() == 1) {  // nothing to choose: never pay for timing
    ++runs_[0];
    return {0, false};
  }
  if (const int e = explorationPick(); e >= 0) {
    ++issued_[e], ++runs_[e];
    return {e, true};
  }
  const uint64_t k = exploitCalls_++;
  const int chosen = choice();
  if (params_.probeEvery > 0 && k % params_.probeEvery == uint64_t(params_.probeEvery - 1)) {
    int c = -1;
    if (probes_++ % 4 == 3) c = probePick(chosen, true);
    if (c < 0) c = probePick(chosen, false);
    if (c >= 0) {
      ++issued_[c], ++runs_[c];
      return {c, true};
    }
  }
  const bool timed = params_.measureEvery > 0 && k % params_.measureEvery == 0;
  if (timed) ++issued_[chosen];
  ++runs_[chosen];
  return {chosen, timed};
}

int ChoicePolicy::issueExploration() {
  if (numCandidates() == 1) return -1;
  const int e = explorationPick();
  if (e >= 0) ++issued_[e], ++runs_[e];
  return e;
}

int ChoicePolicy::probePick(int chosen, bool wantDropped) {
  const int n = numCandidates(), b = best();
  for (int step = 0; step < n; ++step) {
    const int pos = (nextProbe_ + step) % n;
    const int c = rank_[pos];
    if (c == chosen) continue;
    const bool ok = wantDropped
                        ? !contender(c) && b >= 0 && recorded_[c] > 0 && median(c) <= 2 * median(b)
                        : contender(c);
    if (!ok) continue;
    nextProbe_ = (pos + 1) % n;
    return c;
  }
  return -1;
}

void ChoicePolicy::untimed(int c) {
  if (issued_[c] > 0) --issued_[c];
}

void ChoicePolicy::record(int c, double cost) {
  std::vector<double>& w = window_[c];
  w.push_back(cost);
  if (int(w.size()) > std::max(1, params_.window)) w.erase(w.begin());
  ++recorded_[c];
}

std::vector<double> ChoicePolicy::relativeCosts() const {
  const int b = best();
  if (b < 0) return prior_;
  const double bm = median(b);
  std::vector<double> out(numCandidates());
  for (int c = 0; c < numCandidates(); ++c)
    out[c] =
        recorded_[c] == 0 ? prior_[c] : (bm > 0 ? median(c) / bm : (median(c) > 0 ? 1e9 : 1.0));
  return out;
}

}  // namespace srt::compaction
