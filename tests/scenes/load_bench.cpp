// Scene load time by stage, for time to image: reading the file, tinyobjloader's parse alone (OBJ),
// and the whole loadScene (parse, materials and textures, building our meshes, validation).
// Not a test: a benchmark run by hand, e.g.
//   build/tests/scenes/streamrt-bench-load scenes/data/conference-room/conference.obj --repeats 7
// prints each stage's first run (what a user waits for: fresh memory, cold caches), median and
// minimum in milliseconds (--json for one JSON object).
#include <tiny_obj_loader.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "scenes/loader.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Stage {
  std::string name;
  std::vector<double> ms, cpuMs;
};

// CPU time of the whole process (every thread): the work, which a busy machine does not inflate.
double cpuMs() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
}

void time(Stage& s, const std::function<void()>& f) {
  const auto t0 = Clock::now();
  const double c0 = cpuMs();
  f();
  s.cpuMs.push_back(cpuMs() - c0);
  s.ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
}

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  int repeats = 5;
  bool json = false, loadOnly = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--repeats" && i + 1 < argc)
      repeats = std::max(1, std::atoi(argv[++i]));
    else if (a == "--json")
      json = true;
    else if (a == "--load-only")  // for profilers
      loadOnly = true;
    else
      path = a;
  }
  if (path.empty()) {
    std::fprintf(stderr, "usage: streamrt-bench-load SCENE [--repeats N] [--json] [--load-only]\n");
    return 2;
  }
  const bool obj = path.size() > 4 && path.substr(path.size() - 4) == ".obj";
  // loadScene first in each repeat, so that its first run is the one a user waits for.
  std::vector<Stage> stages = {{"read", {}}, {"tinyobj_parse", {}}, {"load_scene", {}}};
  size_t triangles = 0;
  for (int r = 0; r < repeats; ++r) {
    time(stages[2], [&] {
      triangles = srt::loadScene(path, srt::LoadOptions{/*quiet=*/true}).triangleCount();
    });
    if (loadOnly) continue;
    std::string bytes;
    time(stages[0], [&] { bytes = readAll(path); });
    if (obj)
      time(stages[1], [&] {
        tinyobj::attrib_t attrib;
        std::vector<tinyobj::shape_t> shapes;
        std::vector<tinyobj::material_t> materials;
        std::string warn, err;
        std::istringstream in(bytes);
        tinyobj::LoadObj(&attrib, &shapes, &materials, &warn, &err, &in, nullptr, false, false);
      });
  }
  if (json)
    std::printf("{\"scene\": \"%s\", \"triangles\": %zu, \"repeats\": %d", path.c_str(), triangles,
                repeats);
  else
    std::printf(
        "%s: %zu triangles, %d repeats (wall ms: first, median, min; CPU ms of all threads: min)\n",
        path.c_str(), triangles, repeats);
  for (Stage& s : stages) {
    if (s.ms.empty()) continue;
    const double first = s.ms.front();
    std::sort(s.ms.begin(), s.ms.end());
    const double cpu = *std::min_element(s.cpuMs.begin(), s.cpuMs.end());
    const double median = s.ms[s.ms.size() / 2], min = s.ms.front();
    if (json)
      std::printf(", \"%s_ms\": {\"first\": %.2f, \"median\": %.2f, \"min\": %.2f}", s.name.c_str(),
                  first, median, min);
    else
      std::printf("  %-14s %9.2f %9.2f %9.2f %9.2f\n", s.name.c_str(), first, median, min, cpu);
  }
  if (json) std::printf("}\n");
  return 0;
}
