// Stages timed by name (pbrt-v4's GPUParallelFor descriptions): a pass runs its launches as
// named stages, and the statistics add the stages' times up by the column each name counts
// towards, never by position.
#pragma once

#include <array>
#include <stdexcept>
#include <type_traits>

#include "renderer/backend/stage_clock.h"
#include "renderer/wavefront/render_stats.h"

namespace srt {

// The columns of RenderStats' per-pass and per-bounce times.
enum class StageColumn { Trace, Shade, Shadow, Compaction, Regenerate };
constexpr size_t kColumns = 5;

// A named stage and the column its time counts towards.
struct Stage {
  const char* name;
  StageColumn column;
};

// Every stage an integrator runs, in one place, by the column its time counts towards.
namespace stage {
inline constexpr Stage kTrace{"trace", StageColumn::Trace};
inline constexpr Stage kShade{"shade", StageColumn::Shade}, kFilm{"film", StageColumn::Shade};
inline constexpr Stage kTraceShadows{"trace shadow rays", StageColumn::Shadow};
// Without a compacting primitive, counting the flags stands in for compaction.
inline constexpr Stage kCompactShadows{"compact shadow rays", StageColumn::Compaction},
    kCountShadows{"count shadow rays", StageColumn::Compaction},
    kCompactPaths{"compact paths", StageColumn::Compaction},
    kCountPaths{"count paths", StageColumn::Compaction},
    kCompactIndex{"compact index stream", StageColumn::Compaction},
    kPartitionOctants{"partition by octant", StageColumn::Compaction};
inline constexpr Stage kRefill{"refill", StageColumn::Regenerate},
    kEndPass{"end pass", StageColumn::Regenerate};
}  // namespace stage

// The named stages of one pass. Each stage is timed from the end of the one before (the pass's
// start for the first), on the backend's timeline; nothing is read until the pass is complete,
// and nothing allocates once the clock has seen a pass of this many stages.
class PassTimer {
 public:
  static constexpr int kMaxStages = 16;

  explicit PassTimer(const Backend& backend) : clock_(backend) {}

  // Starts a pass: the first stage is timed from here.
  void start() {
    clock_.reset();
    count_ = 0;
    start_ = clock_.mark();
  }
  // Runs `launch` (the stage's launches, asynchronous on CUDA) as the stage `s`.
  template <typename F>
  void run(const Stage& s, F&& launch) {
    launch();
    end(s);
  }
  void end(const Stage& s) {
    if (count_ == kMaxStages) throw std::logic_error("PassTimer: more than kMaxStages stages");
    records_[count_++] = {&s, clock_.mark()};
  }

  // After the pass's work is complete: milliseconds per column, each stage counted in its own.
  std::array<double, kColumns> columnMs() const {
    std::array<double, kColumns> total{};
    StageClock::Mark from = start_;
    for (int i = 0; i < count_; ++i) {
      total[size_t(records_[i].stage->column)] += clock_.elapsedMs(from, records_[i].end);
      from = records_[i].end;
    }
    return total;
  }
  // The milliseconds of stage `s` (0 when it did not run).
  double ms(const Stage& s) const {
    double total = 0;
    StageClock::Mark from = start_;
    for (int i = 0; i < count_; ++i) {
      if (records_[i].stage == &s) total += clock_.elapsedMs(from, records_[i].end);
      from = records_[i].end;
    }
    return total;
  }
  // Device time from the end of `before` to the start of `after`: the host was late.
  static double gapMs(const PassTimer& before, const PassTimer& after) {
    const StageClock::Mark end =
        before.count_ ? before.records_[before.count_ - 1].end : before.start_;
    return StageClock::between(before.clock_, end, after.clock_, after.start_);
  }

 private:
  struct Record {
    const Stage* stage = nullptr;
    StageClock::Mark end = 0;
  };
  StageClock clock_;
  StageClock::Mark start_ = 0;
  std::array<Record, kMaxStages> records_{};
  int count_ = 0;
};

// Adds a pass's stage times to per-pass statistics (refills included) or per-bounce ones (which
// have no refill column).
template <typename Stats>
void addStageTimes(const PassTimer& t, Stats& s) {
  const std::array<double, kColumns> ms = t.columnMs();
  s.traceMs += ms[size_t(StageColumn::Trace)];
  s.shadeMs += ms[size_t(StageColumn::Shade)];
  s.shadowMs += ms[size_t(StageColumn::Shadow)];
  s.compactionMs += ms[size_t(StageColumn::Compaction)];
  if constexpr (std::is_same_v<Stats, IterationStats>)
    s.regenerateMs += ms[size_t(StageColumn::Regenerate)];
}

}  // namespace srt
