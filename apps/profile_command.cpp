// `streamrt profile SCENE --compaction a,b,...|all --out DIR [render options]`: every chosen
// primitive and `none` on one scene and one kd-tree, with warm-up and timed repeats; writes
// DIR/profile.json, DIR/profile.csv and DIR/report.html (self-contained, SVG charts).
// `streamrt profile --compare A B --out DIR`: two finished profiles side by side, written to
// DIR/compare.html and DIR/compare.csv.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include "apps/camera_flags.h"
#include "apps/command.h"
#include "apps/interrupt.h"
#include "apps/profile/compaction_list.h"
#include "apps/profile/html_report.h"
#include "apps/profile/profile_compare.h"
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
  std::vector<std::string> compare;  // two profile.json files (or their folders)
  bool quiet = false;
  int threads = 0;
  CameraFlags camera;
  profile::Settings settings;
};

bool isFolder(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

const std::vector<std::string> kFiles = {"profile.json", "profile.csv", "report.html"};
const std::vector<std::string> kCompareFiles = {"compare.html", "compare.csv"};

// The output folder may exist (the files in it are replaced, so each must be a regular file or
// absent) or be new in a writable folder; checked before the scene loads, so a typo costs nothing.
void checkOutputFolder(std::string dir, const std::vector<std::string>& files) {
  if (dir.empty()) throw UsageError("--out: an empty folder name");
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  struct stat st {};
  if (stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) throw std::invalid_argument("--out " + dir + " is not a folder");
    for (const std::string& file : files) checkOutputFile(dir + "/" + file, "--out");
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

// Writes `texts` as `files` in `dir` (created when new): all of them appear together or none.
void writeTogether(const std::string& outDir, const std::vector<std::string>& files,
                   const std::vector<std::string>& texts) {
  if (!isFolder(outDir) && mkdir(outDir.c_str(), 0777) != 0)
    throw std::runtime_error("--out " + outDir + ": cannot create the folder (" +
                             std::strerror(errno) + ")");
  const std::string dir = outDir + (outDir.back() == '/' ? "" : "/");
  interrupt::Deferral finishWriting;
  std::vector<std::unique_ptr<StagedFile>> staged;
  std::vector<StagedFile*> all;
  for (size_t i = 0; i < files.size(); ++i) {
    staged.push_back(
        std::make_unique<StagedFile>(checkOutputFile(dir + files[i], "--out"), "profile"));
    staged.back()->write(texts[i]);
    all.push_back(staged.back().get());
  }
  StagedFile::commitTogether(all);
}

// With --compare only the output folder and -q apply: anything else would be silently ignored.
void checkCompareFlags(const CLI::App& app) {
  for (const CLI::Option* o : app.get_options()) {
    const std::string name = o->get_name();
    if (o->count() == 0 || name == "--compare" || name == "--out" || name == "--quiet") continue;
    throw UsageError((o->get_positional() ? "a scene ('" + o->as<std::string>() + "')" : name) +
                     " does not apply to --compare, which reads two finished profiles");
  }
}

int runCompare(const ProfileCommand& cmd) {
  checkOutputFolder(cmd.outDir, kCompareFiles);
  const profile::SavedProfile a = profile::readProfile(cmd.compare[0]);
  const profile::SavedProfile b = profile::readProfile(cmd.compare[1]);
  profile::checkComparable(a, b);
  writeTogether(cmd.outDir, kCompareFiles, {profile::compareHtml(a, b), profile::compareCsv(a, b)});
  const std::string dir = cmd.outDir + (cmd.outDir.back() == '/' ? "" : "/");
  if (const int signal = interrupt::pending()) {
    std::fprintf(stderr, "streamrt: stopped by %s after writing %scompare.html, compare.csv\n",
                 interrupt::signalName(signal), dir.c_str());
    return interrupt::exitStatus(signal);
  }
  if (cmd.quiet) return 0;
  std::printf("%-24s %12s %12s %12s\n", "primitive", "A median ms", "B median ms", "B over A");
  for (const std::string& name : profile::commonPrimitives(a, b)) {
    const double x = a.find(name)->renderMs, y = b.find(name)->renderMs;
    std::printf("%-24s %12.2f %12.2f %11.3fx\n", name.c_str(), x, y, profile::speedup(x, y));
  }
  std::fprintf(stderr, "streamrt: wrote %scompare.html, compare.csv\n", dir.c_str());
  return 0;
}

int runProfile(ProfileCommand& cmd) {
  checkOutputFolder(cmd.outDir, kFiles);
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
  writeTogether(cmd.outDir, kFiles, {json, csv, html});
  const std::string dir = cmd.outDir + (cmd.outDir.back() == '/' ? "" : "/");
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
  p->add_option("-o,--out", cmd->outDir,
                "Output folder: profile.json, profile.csv and report.html are written there "
                "(with --compare: compare.html and compare.csv)")
      ->type_name("DIR");
  p->add_option("--compare", cmd->compare,
                "Compare two finished profiles (profile.json files or their folders) side by "
                "side: speed-ups per primitive and per-pass deltas, written to --out")
      ->type_name("PROFILE")
      ->expected(2);
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
  return {p, [cmd, p] {
            if (p->count("--out") == 0)
              throw UsageError("--out DIR is required (the folder the reports are written to)");
            if (cmd->compare.empty()) return runProfile(*cmd);
            checkCompareFlags(*p);
            return runCompare(*cmd);
          }};
}

}  // namespace srt
