#include "apps/progress_bar.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>

namespace srt {
namespace {
std::atomic<bool> lineOpen{false};  // a bar is drawn and its line not ended

std::string duration(double s) {
  char buf[32];
  if (s < 60)
    std::snprintf(buf, sizeof buf, "%.0fs", s);
  else if (s < 3600)
    std::snprintf(buf, sizeof buf, "%dm%02ds", int(s) / 60, int(s) % 60);
  else
    std::snprintf(buf, sizeof buf, "%dh%02dm", int(s) / 3600, (int(s) / 60) % 60);
  return buf;
}
}  // namespace

ProgressBar::ProgressBar(std::string label, bool enabled)
    : label_(std::move(label)), enabled_(enabled), start_(std::chrono::steady_clock::now()) {}

void ProgressBar::update(int done, int total, uint64_t rays) {
  if (!enabled_ || total <= 0) return;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (elapsed < 1.0 && !drawn_) return;
  constexpr int kWidth = 30;
  const double frac = double(done) / total;
  const int filled = int(frac * kWidth);
  std::string bar(size_t(filled), '#');
  bar.append(size_t(kWidth - filled), '.');
  const double eta = done > 0 ? elapsed * (total - done) / done : 0.0;
  flockfile(stderr);  // the bar and lineOpen together, as endProgressLine sees them
  std::fprintf(stderr, "\r%s [%s] %d/%d  %.3g Mrays/s  elapsed %s  ETA %s   ", label_.c_str(),
               bar.c_str(), done, total, rays / elapsed / 1e6, duration(elapsed).c_str(),
               duration(eta).c_str());
  std::fflush(stderr);
  lineOpen = true;
  funlockfile(stderr);
  drawn_ = true;
}

ProgressBar::~ProgressBar() {
  finish();
}

void ProgressBar::finish() {
  if (lineOpen.exchange(false)) std::fputc('\n', stderr);
  drawn_ = false;
}

void endProgressLine() {
  if (lineOpen.exchange(false)) (void)::write(STDERR_FILENO, "\n", 1);
}

}  // namespace srt
