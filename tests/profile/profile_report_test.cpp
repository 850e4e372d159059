// `streamrt profile` end to end on the CPU: the JSON holds every primitive with positive times and
// identical images, the CSV has its header, and headless Chromium renders the report's charts.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "base/image_io.h"

namespace {

const char* const kChromium = "/usr/bin/chromium";

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

class ProfileReport : public ::testing::Test {
 protected:
  // One profile per test process (ctest runs each test in its own), in a fresh folder.
  static void SetUpTestSuite() {
    char tmpl[] = "/tmp/streamrt-profile-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = std::string(tmpl) + "/out";  // not there yet: the command creates it
    const std::string cmd = std::string(SRT_STREAMRT_EXE) +
                            " profile cornell --backend cpu --compaction cpu,none --width 32 "
                            "--height 32 --spp 2 --repeats 2 --warmup 1 -q --out " +
                            dir_;
    rc_ = std::system(cmd.c_str());
  }
  // The folder goes when the suite is done: ctest runs each test in its own process, so a test
  // run would otherwise leave one folder per test in /tmp.
  static void TearDownTestSuite() {
    if (!dir_.empty()) std::filesystem::remove_all(std::filesystem::path(dir_).parent_path());
  }
  void SetUp() override { ASSERT_EQ(rc_, 0) << "streamrt profile failed"; }
  static nlohmann::json json() { return nlohmann::json::parse(readFile(dir_ + "/profile.json")); }
  static std::string chromium(const std::string& args) {
    return std::string("timeout 120 ") + kChromium +
           " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
           "--disable-background-networking --disable-component-update --disable-sync "
           "--user-data-dir=" +
           dir_ + "/chromium-profile " + args;
  }
  static std::string dir_;
  static int rc_;
};
std::string ProfileReport::dir_;
int ProfileReport::rc_ = -1;

TEST_F(ProfileReport, JsonHasEveryPrimitiveWithPositiveTimes) {
  const nlohmann::json j = json();
  EXPECT_EQ(j["backend"], "cpu");
  EXPECT_EQ(j["repeats"], 2);
  EXPECT_EQ(j["warmup"], 1);
  EXPECT_TRUE(j["images_identical"].get<bool>());
  EXPECT_TRUE(j["mismatches"].empty());
  ASSERT_EQ(j["primitives"].size(), 2u);
  EXPECT_EQ(j["primitives"][0]["name"], "cpu");
  EXPECT_EQ(j["primitives"][1]["name"], "none");
  const std::string hash = j["reference_image_hash"];
  for (const auto& p : j["primitives"]) {
    SCOPED_TRACE(p["name"].get<std::string>());
    EXPECT_TRUE(p["images_identical"].get<bool>());
    EXPECT_EQ(p["image_hash"], hash);
    EXPECT_EQ(p["render_ms_samples"].size(), 2u);
    const auto& r = p["render_ms"];
    EXPECT_GT(r["median"].get<double>(), 0);
    EXPECT_LE(r["min"].get<double>(), r["median"].get<double>());
    EXPECT_LE(r["median"].get<double>(), r["max"].get<double>());
    EXPECT_GT(p["speedup_vs_none"].get<double>(), 0);
    EXPECT_GT(p["totals_ms"]["trace"]["median"].get<double>(), 0);
    EXPECT_GT(p["totals_ms"]["shade"]["median"].get<double>(), 0);
    ASSERT_GE(p["bounces"].size(), 2u);
    EXPECT_GT(p["bounces"][0]["rays_in"].get<uint64_t>(), 0u);
    // Stage times per bounce (waves, Whitted) or per pass over the pool (regenerate).
    const auto& step = p["per_bounce_times"].get<bool>() ? p["bounces"][0] : p["iterations"][0];
    ASSERT_FALSE(step.is_null());
    const auto& trace = step["trace_ms"];
    EXPECT_GT((trace.is_object() ? trace["median"] : trace).get<double>(), 0);
  }
  EXPECT_DOUBLE_EQ(j["primitives"][1]["speedup_vs_none"].get<double>(), 1.0);
  // The same paths whichever primitive compacts: rays per bounce agree.
  EXPECT_EQ(j["primitives"][0]["bounces"][1]["rays_in"],
            j["primitives"][1]["bounces"][1]["rays_in"]);
}

TEST_F(ProfileReport, CsvHasHeaderAndRows) {
  std::istringstream csv(readFile(dir_ + "/profile.csv"));
  std::string header, line;
  std::getline(csv, header);
  EXPECT_EQ(header.rfind("primitive,bounce,rays_in,lanes,rays_alive,shadow_rays,", 0), 0u)
      << header;
  EXPECT_NE(header.find("render_ms_median"), std::string::npos);
  const size_t columns = count(header, ",") + 1;
  int totals = 0, rows = 0;
  while (std::getline(csv, line)) {
    ++rows;
    EXPECT_EQ(count(line, ",") + 1, columns) << line;
    totals += line.find(",total,") != std::string::npos;
  }
  EXPECT_EQ(totals, 2);
  EXPECT_GT(rows, 4);
}

TEST_F(ProfileReport, ChromiumRendersTheCharts) {
  if (access(kChromium, X_OK) != 0) GTEST_SKIP() << kChromium << " is not installed";
  const nlohmann::json j = json();
  // Pool occupancy: the first compacting primitive's (cpu) and none's, when they report passes.
  size_t occupancy = 0;
  for (const auto& p : j["primitives"]) occupancy += !p["iterations"].empty();
  // speed-up, stage totals, one stage chart per primitive, rays, compaction, bytes, bandwidth
  const size_t expected = 6 + j["primitives"].size() + occupancy;

  const std::string report = "file://" + dir_ + "/report.html";
  ASSERT_EQ(
      std::system(
          (chromium("--dump-dom " + report) + " > " + dir_ + "/dom.html 2>/dev/null").c_str()),
      0);
  const std::string dom = readFile(dir_ + "/dom.html");
  EXPECT_EQ(count(dom, "<svg"), expected);
  EXPECT_NE(dom.find("id=\"images-identical\""), std::string::npos);
  // Every chart but the byte ones (the CPU build may report none) drew bars or lines.
  size_t drawn = 0;
  for (size_t p = dom.find("<svg"); p != std::string::npos; p = dom.find("<svg", p + 1)) {
    const std::string svg = dom.substr(p, dom.find("</svg>", p) - p);
    drawn += svg.find("class=\"bar\"") != std::string::npos ||
             svg.find("class=\"line\"") != std::string::npos;
  }
  EXPECT_GE(drawn, expected - 2);
  static const std::regex barHeight("class=\"bar\"[^>]* height=\"([0-9.]+)\"");
  double tallest = 0;
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), barHeight);
       it != std::sregex_iterator(); ++it)
    tallest = std::max(tallest, std::stod((*it)[1]));
  EXPECT_GT(tallest, 20);

  // The screenshot shows the charts: the trace stage's blue and compaction's orange are painted.
  const std::string png = dir_ + "/report.png";
  ASSERT_EQ(std::system((chromium("--hide-scrollbars --window-size=1200,2400 --screenshot=" + png +
                                  " " + report) +
                         " > /dev/null 2>&1")
                            .c_str()),
            0);
  const srt::Image shot = srt::readImage(png);
  ASSERT_GT(shot.width, 0);
  size_t blue = 0, orange = 0, white = 0;
  for (const srt::Vec3f& p : shot.pixels) {
    const float r = srt::linearToSrgb(p.x) * 255, g = srt::linearToSrgb(p.y) * 255,
                b = srt::linearToSrgb(p.z) * 255;
    const auto near = [&](float R, float G, float B) {
      return std::abs(r - R) < 8 && std::abs(g - G) < 8 && std::abs(b - B) < 8;
    };
    blue += near(0x00, 0x72, 0xB2);
    orange += near(0xE6, 0x9F, 0x00);
    white += near(255, 255, 255);
  }
  EXPECT_GT(blue, 500u);
  EXPECT_GT(orange, 200u);
  EXPECT_LT(white, shot.pixels.size() * 95 / 100);  // not a blank page
}

}  // namespace
