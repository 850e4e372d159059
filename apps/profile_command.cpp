// `streamrt profile SCENE --compaction a,b,...|all --out DIR [render options]`: every chosen
// primitive and `none` on one scene and one kd-tree, with warm-up and timed repeats; writes
// DIR/profile.json, DIR/profile.csv and DIR/report.html (self-contained, SVG charts).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "apps/camera_flags.h"
#include "apps/command.h"
#include "apps/interrupt.h"
#include "apps/profile/compaction_list.h"
#include "apps/profile/html_report.h"
#include "apps/profile/profile_sweep.h"
#include "apps/profile/profile_writers.h"
#include "apps/render_flags.h"
#include "base/atomic_file.h"
#include "base/paths.h"
#include "scenes/loader.h"

namespace srt {
namespace {

struct ProfileCommand {
  std::string scene = "cornell";
  std::string compaction = "all";
  std::string backend = "auto";
  std::string outDir;
  bool quiet = false;
  int threads = 0;
  CameraFlags camera;
  profile::Settings settings;
};

bool isFolder(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

const char* const kFiles[] = {"profile.json", "profile.csv", "report.html"};

// The output folder may exist (the three files in it are replaced, so each must be a regular
// file or absent) or be new in a writable folder; checked before the scene loads, so a typo
// costs nothing.
void checkOutputFolder(std::string dir) {
  if (dir.empty()) throw UsageError("--out: an empty folder name");
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  struct stat st {};
  if (stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) throw std::invalid_argument("--out " + dir + " is not a folder");
    for (const char* file : kFiles) checkOutputFile(dir + "/" + file, "--out");
    return;
  }
  const std::string parent = folderOf(dir);
  if (!isFolder(parent))
    throw std::invalid_argument("--out " + dir + ": the folder " + parent + " does not exist");
  if (access(parent.c_str(), W_OK) != 0)
    throw std::invalid_argument("--out " + dir + ": cannot create it, " + parent +
                                " is not writable");
}

void printSummary(const profile::Result& r) {
  int nameWidth = 9;
  for (const profile::PrimitiveProfile& p : r.primitives)
    nameWidth = std::max(nameWidth, int(p.spec.size()));
  std::printf("%-*s %10s %21s %9s %13s %8s  %s\n", nameWidth, "primitive", "median ms",
              "min - max ms", "speed-up", "compaction ms", "GB/s", "image");
  for (const profile::PrimitiveProfile& p : r.primitives) {
    const profile::PrimitiveSummary& s = p.summary;
    char range[48], rate[32] = "-";
    std::snprintf(range, sizeof range, "%.2f - %.2f", s.renderMs.min, s.renderMs.max);
    if (std::isfinite(s.gbPerSecond)) std::snprintf(rate, sizeof rate, "%.3g", s.gbPerSecond);
    std::printf("%-*s %10.2f %21s %8.3fx %13.3f %8s  %s\n", nameWidth, p.spec.c_str(),
                s.renderMs.median, range, r.speedupVsNone(p), s.compactionMs.median, rate,
                p.imagesIdentical ? "identical" : "DIFFERS");
  }
}

int runProfile(ProfileCommand& cmd) {
  checkOutputFolder(cmd.outDir);
  checkCameraFlags(cmd.camera);
  std::string notice;
  const Backend backend = selectBackend(cmd.backend, &notice);
  if (!notice.empty() && !cmd.quiet) std::fprintf(stderr, "streamrt: %s\n", notice.c_str());
  profile::Settings& settings = cmd.settings;
  settings.primitives = profile::parseCompactionList(cmd.compaction, backend);
  for (const std::string& spec : settings.primitives) {
    RenderOptions o = settings.options;
    o.compaction = spec;
    validateRenderOptions(backend, o);  // every primitive checked before the long work
  }
  applyThreads(cmd.threads);
  if (!cmd.quiet)
    std::fprintf(stderr, "streamrt: profiling %zu primitives, %d warm-up + %d timed renders each\n",
                 settings.primitives.size(), settings.warmup, settings.repeats);

  LoadOptions load;
  load.quiet = cmd.quiet;
  Scene scene = loadScene(cmd.scene, load);
  scene.name = validUtf8(scene.name);  // it goes into profile.json
  if (cmd.camera.any()) {
    const RenderOptions& o = settings.options;
    scene.camera = applyCameraFlags(
        cmd.camera, scene.camera.value_or(frameScene(scene, float(o.width) / float(o.height))));
  }
  const profile::Result result = profile::runSweep(
      std::move(scene), backend, settings, [&](const std::string& spec, int run, int runs) {
        if (!cmd.quiet && run + 1 == runs)
          std::fprintf(stderr, "streamrt: profiled %s\n", spec.c_str());
      });

  // Everything is formatted before the first file is written.
  const std::string json = profile::profileJson(result);
  const std::string csv = profile::profileCsv(result);
  const std::string html = profile::htmlReport(result);
  if (!isFolder(cmd.outDir) && mkdir(cmd.outDir.c_str(), 0777) != 0)
    throw std::runtime_error("--out " + cmd.outDir + ": cannot create the folder (" +
                             std::strerror(errno) + ")");
  const std::string dir = cmd.outDir + (cmd.outDir.back() == '/' ? "" : "/");
  {
    interrupt::Deferral finishWriting;  // the three files appear together or not at all
    StagedFile jsonFile(checkOutputFile(dir + kFiles[0], "--out"), "profile");
    StagedFile csvFile(checkOutputFile(dir + kFiles[1], "--out"), "profile");
    StagedFile htmlFile(checkOutputFile(dir + kFiles[2], "--out"), "report");
    jsonFile.write(json);
    csvFile.write(csv);
    htmlFile.write(html);
    StagedFile::commitTogether({&jsonFile, &csvFile, &htmlFile});
  }
  if (const int signal = interrupt::pending()) {
    std::fprintf(stderr,
                 "streamrt: stopped by %s after writing %sprofile.json, profile.csv, "
                 "report.html\n",
                 interrupt::signalName(signal), dir.c_str());
    return interrupt::exitStatus(signal);
  }

  if (!cmd.quiet) printSummary(result);
  if (!result.imagesIdentical()) {
    std::fprintf(stderr,
                 "streamrt: error: IMAGES DIFFER: %zu renders do not match the first render of %s "
                 "bit for bit (see %sreport.html)\n",
                 result.mismatches.size(), result.referencePrimitive.c_str(), dir.c_str());
    return 2;
  }
  if (!cmd.quiet)
    std::fprintf(stderr,
                 "streamrt: images identical; wrote %sprofile.json, profile.csv, report.html\n",
                 dir.c_str());
  return 0;
}

}  // namespace

Command addProfileCommand(CLI::App& app) {
  auto cmd = std::make_shared<ProfileCommand>();
  RenderOptions& o = cmd->settings.options;
  o.compaction = "none";
  CLI::App* p = app.add_subcommand(
      "profile",
      "Render one scene with several compaction primitives (and none) on one kd-tree, timing "
      "each bounce; writes JSON, CSV and an HTML report with charts");
  p->add_option("scene", cmd->scene, "Built-in scene name or scene file (as for render)")
      ->capture_default_str();
  p->add_option("--compaction", cmd->compaction,
                "Comma list of primitives (NAME[:key=value,...]) or all (every primitive the "
                "backend can run); none is always added as the baseline")
      ->capture_default_str();
  p->add_option("--out", cmd->outDir,
                "Output folder: profile.json, profile.csv and report.html are written there")
      ->type_name("DIR")
      ->required();
  p->add_option("--warmup", cmd->settings.warmup, "Untimed renders per primitive first")
      ->capture_default_str()
      ->check(integerIn(0, 1000));
  p->add_option("--repeats", cmd->settings.repeats, "Timed renders per primitive")
      ->capture_default_str()
      ->check(integerIn(1, 1000));
  p->add_option("--spp", o.spp, "Samples per pixel")
      ->capture_default_str()
      ->check(kPositiveInteger);
  addRenderFlags(*p, o, cmd->backend);
  addKdTreeFlags(*p, cmd->settings.accel);
  addThreadsFlag(*p, cmd->threads);
  addCameraFlags(*p, cmd->camera);
  p->add_flag("-q,--quiet", cmd->quiet, "Print nothing but errors");
  return {p, [cmd] { return runProfile(*cmd); }};
}

}  // namespace srt
