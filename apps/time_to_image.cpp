#include "apps/time_to_image.h"

#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace srt {

double secondsSinceProcessStart() {
  // Field 22 of /proc/self/stat, after the command name in parentheses (which may hold spaces).
  std::ifstream in("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
  }
  const long ticks = sysconf(_SC_CLK_TCK);
  timespec now{};
  if (!fields || ticks <= 0 || clock_gettime(CLOCK_BOOTTIME, &now) != 0) return 0;
  const double started = double(std::stoull(field)) / double(ticks);
  const double since = double(now.tv_sec) + double(now.tv_nsec) * 1e-9 - started;
  return since > 0 ? since : 0;
}

std::string timeToImageLine(const RenderStats& s, bool sequence) {
  const TimeToImage& t = s.timeToImage;
  char line[768];
  std::snprintf(line, sizeof line,
                "time to %s: start %.3f s, device %.3f s (select %.3f, context %.3f, checks "
                "%.3f; %.3f s not hidden by the load), load "
                "%.3f s, flatten %.3f s, setup %.3f s (kd-tree %.1f ms), first pass %.1f ms, "
                "render %.3f s, "
                "read-back %.3f s, encode %.3f s, write %.3f s; wall %.3f s%s\n",
                sequence ? "the first image" : "image", t.startupSeconds, t.deviceStartSeconds,
                t.deviceSelectSeconds, t.deviceContextSeconds, t.deviceCheckSeconds,
                t.deviceWaitSeconds, s.sceneLoadSeconds, t.flattenSeconds, t.setupSeconds,
                s.accel.buildMs, t.firstPassSeconds * 1e3, s.renderSeconds, t.readbackSeconds,
                t.encodeSeconds, t.writeSeconds, s.wallSeconds, sequence ? " (every frame)" : "");
  return line;
}

}  // namespace srt
