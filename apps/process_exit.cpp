#include "apps/process_exit.h"

#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "apps/mpi_render.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SRT_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer) || __has_feature(leak_sanitizer)
#define SRT_SANITIZED 1
#endif
#endif

// Defined only in a build with gcov instrumentation, whose counters are written at exit.
extern "C" void __gcov_dump(void) __attribute__((weak));

namespace srt::process {
namespace {

struct Stamps {
  double main = 0, stats = 0, outputs = 0, exit = 0;
  int status = 0;
  bool quick = false;
  bool written = false;
};
Stamps gStamps;

double now() {
  timespec t{};
  clock_gettime(CLOCK_REALTIME, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// Appends the trace line (once) to STREAMRT_EXIT_TRACE; `atexitEnd` 0: not reached.
void writeTrace(double atexitEnd) {
  const char* path = std::getenv("STREAMRT_EXIT_TRACE");
  if (!path || !*path || gStamps.written) return;
  gStamps.written = true;
  char extra[64] = "";
  if (atexitEnd > 0) std::snprintf(extra, sizeof extra, ", \"atexit_end\": %.6f", atexitEnd);
  FILE* f = std::fopen(path, "a");
  if (!f) return;  // a diagnostic only: never an error of the render
  std::fprintf(f,
               "{\"pid\": %ld, \"main\": %.6f, \"stats\": %.6f, \"outputs\": %.6f, \"exit\": "
               "%.6f%s, \"quick\": %s, \"status\": %d}\n",
               long(getpid()), gStamps.main, gStamps.stats, gStamps.outputs, gStamps.exit, extra,
               gStamps.quick ? "true" : "false", gStamps.status);
  std::fclose(f);
}

}  // namespace

void markMainEntered() {
  gStamps.main = now();
  // Registered before CUDA starts, so it runs after the CUDA runtime's own exit handler.
  if (std::getenv("STREAMRT_EXIT_TRACE")) std::atexit([] { writeTrace(now()); });
}

void markStatsMade() {
  if (gStamps.stats == 0) gStamps.stats = now();
}

void markOutputsDone() {
  gStamps.outputs = now();
}

void markMainReturns(int status) {
  if (gStamps.exit == 0) gStamps.exit = now(), gStamps.status = status;
}

bool quickExitEnabled() {
#ifdef SRT_SANITIZED
  return false;  // leak checks run at exit
#else
  if (__gcov_dump) return false;
  const char* v = std::getenv("STREAMRT_QUICK_EXIT");
  if (v && std::strcmp(v, "0") == 0) return false;
  return !mpi::launched();  // MPI_Finalize runs in the renderer's destructor
#endif
}

void exitNow(int status) {
  if (!quickExitEnabled()) return;
  // _Exit does not flush stdio: a -v line or table in stdout's buffer would be lost.
  if ((std::fflush(stdout) != 0 || std::ferror(stdout)) && status == 0) {
    std::fprintf(stderr, "streamrt: error: cannot write standard output: %s\n",
                 std::strerror(errno));
    status = 1;
  }
  std::fflush(stderr);
  gStamps.exit = now(), gStamps.status = status, gStamps.quick = true;
  writeTrace(0);
  std::_Exit(status);
}

}  // namespace srt::process
