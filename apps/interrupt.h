// Ctrl-C and kill. SIGINT, SIGTERM and SIGHUP are blocked in every thread and taken by one thread
// that waits for them (sigwait), so what a signal does runs as ordinary code, not in an
// asynchronous handler. By default a signal ends the process at once: the temporaries of outputs
// being written are removed, the progress line is ended, one line says why, and the exit status
// is 128 + the signal (130 for SIGINT, 143 for SIGTERM). The main thread can ask for the first
// signal to wait for it instead (Deferral, Stoppable); a second one still ends the process.
#pragma once

#include <atomic>
#include <string>

namespace srt::interrupt {

// Blocks the signals and starts the waiting thread; call first in main(), before any thread
// starts (threads inherit the blocked set).
void install();

// The first signal received while a Deferral or Stoppable was alive, or 0.
int pending();
// "SIGINT", "SIGTERM", "SIGHUP".
const char* signalName(int signal);
inline int exitStatus(int signal) {
  return 128 + signal;
}

// While one lives, the first signal is only recorded: the main thread finishes what it does (an
// image being written) and then asks pending().
class Deferral {
 public:
  Deferral();
  ~Deferral();
  Deferral(const Deferral&) = delete;
  Deferral& operator=(const Deferral&) = delete;
};

// While one lives, the first signal also sets stopFlag() (a render's stop condition) and says on
// stderr that the render stops after the pass in flight.
class Stoppable {
 public:
  Stoppable();
  ~Stoppable();
  Stoppable(const Stoppable&) = delete;
  Stoppable& operator=(const Stoppable&) = delete;
};
const std::atomic<bool>* stopFlag();

// A few words for the line printed when a signal ends the process, saying what was kept (e.g.
// "frames 1-12 of 40 written"); empty by default.
void setExitNote(const std::string& note);

}  // namespace srt::interrupt
