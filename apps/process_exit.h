// How `streamrt render` ends once its outputs are on disk. The kernel takes back the device
// memory, the CUDA context and the heap of a process that exits anyway; freeing them first (the
// renderer's destructors, cudaFree of its pools, the CUDA runtime's own teardown at exit) only
// delays the exit the user waits for, so a render that went well ends with std::_Exit after
// flushing stdio. STREAMRT_QUICK_EXIT=0 keeps the ordinary return through the destructors (to
// compare the two, or to run a leak checker); MPI runs and sanitizer builds always keep it.
//
// STREAMRT_EXIT_TRACE=FILE appends one JSON line per process to FILE with wall-clock stamps
// (CLOCK_REALTIME seconds, comparable with `date +%s.%N` outside the process): "main" (main()
// entered), "stats" (the first frame's statistics made: the moment of their wall_seconds; 0
// without --stats), "outputs" (every output flushed, fsync'd and renamed into place), "exit"
// (std::_Exit called, or main returning), "atexit_end" (the last exit handler, after the
// destructors and the CUDA runtime's teardown; absent on a quick exit), "quick" and "status".
// Outside time minus these splits the process's wall time into start, work, teardown and the
// kernel's exit.
#pragma once

namespace srt::process {

// First thing in main(): the "main" stamp, and the exit handler that writes the trace.
void markMainEntered();
// The first frame's statistics are made (their wall_seconds): the "stats" stamp (first call only).
void markStatsMade();
// Every output is written and renamed into place: the "outputs" stamp.
void markOutputsDone();
// main() returns `status`: the "exit" stamp (the ordinary path).
void markMainReturns(int status);

// Whether exitNow ends the process: STREAMRT_QUICK_EXIT is not "0", the process is no MPI rank,
// and the build has no sanitizer or coverage instrumentation needing the ordinary exit.
bool quickExitEnabled();

// Where quickExitEnabled(): flushes stdout and stderr (a failed flush of a successful run becomes
// status 1 with a message), writes the trace and ends the process with `status`, running no
// destructor or exit handler. Otherwise returns at once, to return through the destructors.
void exitNow(int status);

}  // namespace srt::process
