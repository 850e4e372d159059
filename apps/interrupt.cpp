#include "apps/interrupt.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "apps/progress_bar.h"
#include "base/atomic_file.h"

namespace srt::interrupt {
namespace {

struct State {
  std::mutex lock;
  int deferrals = 0;
  int stoppables = 0;
  int first = 0;  // the first signal that was waited for
  std::string note;
  std::atomic<bool> stop{false};
};
State& state() {
  static State* s = new State;  // never destroyed: the waiting thread outlives main()
  return *s;
}

void say(const std::string& line) {
  const char* p = line.data();
  size_t n = line.size();
  while (n > 0) {
    const ssize_t w = ::write(STDERR_FILENO, p, n);
    if (w <= 0) return;
    p += w;
    n -= size_t(w);
  }
}

[[noreturn]] void endProcess(int signal, const std::string& note) {
  std::fflush(stdout);  // a -v table already printed stays whole
  abandonStagedFiles();
  flockfile(stderr);  // held to the end: nothing else prints after this line
  endProgressLine();
  say(std::string("streamrt: stopped by ") + signalName(signal) +
      (note.empty() ? "" : "; " + note) + "\n");
  _exit(exitStatus(signal));
}

void waitForSignals(sigset_t set) {
  for (;;) {
    int signal = 0;
    if (sigwait(&set, &signal) != 0) continue;
    State& s = state();
    std::unique_lock<std::mutex> hold(s.lock);
    if (s.first != 0 || (s.deferrals == 0 && s.stoppables == 0)) endProcess(signal, s.note);
    s.first = signal;
    if (s.stoppables > 0) {
      s.stop.store(true);
      flockfile(stderr);
      endProgressLine();
      say(std::string("streamrt: ") + signalName(signal) +
          ": stopping after the pass in flight (again to stop at once)\n");
      funlockfile(stderr);
    }
  }
}

sigset_t handledSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

}  // namespace

void install() {
  const sigset_t set = handledSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread(waitForSignals, set).detach();
}

int pending() {
  std::lock_guard<std::mutex> hold(state().lock);
  return state().first;
}

const char* signalName(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "a signal";
  }
}

Deferral::Deferral() {
  std::lock_guard<std::mutex> hold(state().lock);
  ++state().deferrals;
}
Deferral::~Deferral() {
  std::lock_guard<std::mutex> hold(state().lock);
  --state().deferrals;
}

Stoppable::Stoppable() {
  std::lock_guard<std::mutex> hold(state().lock);
  ++state().stoppables;
}
Stoppable::~Stoppable() {
  std::lock_guard<std::mutex> hold(state().lock);
  --state().stoppables;
}

const std::atomic<bool>* stopFlag() {
  return &state().stop;
}

void setExitNote(const std::string& note) {
  std::lock_guard<std::mutex> hold(state().lock);
  state().note = note;
}

}  // namespace srt::interrupt
