// streamrt-bench-gl --interop-diagnose: every CUDA-GL interop (registered, host copies, Vulkan
// and CUDA VMM external memory with semaphores or host waits) with both payload sides, each in a
// child process of its own with a time limit, so a hang or a fatal CUDA error in one cannot hide
// the others. Each child prints the GL and CUDA devices, then each step of its interop as it
// starts it ("[interop] ..."), then the result of compacting small known streams against the
// CPU reference; the parent prints the child's lines and a verdict: PASS, FAIL (with the failing
// step) or HANG (with the last step started).
#pragma once

#include <string>

namespace srt::bench {

// The parent: runs the children, prints their output and a summary. Returns 0 when auto works.
int runInteropDiagnose(double childSeconds);
// A child: the environment, then `spec` on the known streams. Exit 0 when every stream matches.
int runInteropDiagnoseOne(const std::string& spec);

}  // namespace srt::bench
