// `streamrt profile --compare A B` end to end on the CPU: two small profiles (state and index
// payloads) compared; the CSV's numbers are the profiles' own, every pass is there, the report
// has its charts; a missing, broken or foreign file and two different scenes are one-line errors.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void writeFile(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

struct CommandRun {
  int exitCode = -1;
  std::string output;
};

CommandRun run(const std::string& args) {
  CommandRun r;
  FILE* pipe = popen((std::string(SRT_STREAMRT_EXE) + " " + args + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  char buf[512];
  while (fgets(buf, sizeof buf, pipe)) r.output += buf;
  const int status = pclose(pipe);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> fields(1);
  for (char c : line) {
    if (c == ',')
      fields.emplace_back();
    else
      fields.back() += c;
  }
  return fields;
}

class ProfileCompare : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char tmpl[] = "/tmp/streamrt-compare-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    const std::string common =
        "profile cornell --backend cpu --compaction cpu --width 24 --height 16 --spp 2 "
        "--repeats 2 --warmup 0 -q --out ";
    profileA_ = run(common + dir_ + "/a");
    profileB_ = run(common + dir_ + "/b --payload index");
  }
  static void TearDownTestSuite() {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  void SetUp() override {
    ASSERT_EQ(profileA_.exitCode, 0) << profileA_.output;
    ASSERT_EQ(profileB_.exitCode, 0) << profileB_.output;
  }
  static nlohmann::json profile(const char* which) {
    return nlohmann::json::parse(readFile(dir_ + "/" + which + "/profile.json"));
  }
  static std::string dir_;
  static CommandRun profileA_, profileB_;
};
std::string ProfileCompare::dir_;
CommandRun ProfileCompare::profileA_, ProfileCompare::profileB_;

TEST_F(ProfileCompare, CsvHoldsBothProfilesNumbersAndEveryPass) {
  const std::string out = dir_ + "/cmp";
  const CommandRun r =
      run("profile --compare " + dir_ + "/a/profile.json " + dir_ + "/b -o " + out);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("B over A"), std::string::npos) << r.output;

  std::istringstream csv(readFile(out + "/compare.csv"));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "primitive,row,index,quantity,a,b,b_minus_a,a_over_b");
  std::map<std::string, std::vector<std::string>> totals;  // "cpu/render_ms" -> row
  std::map<std::string, int> passRows;                     // per primitive
  while (std::getline(csv, line)) {
    const std::vector<std::string> f = split(line);
    ASSERT_EQ(f.size(), 8u) << line;
    if (f[1] == "total") totals[f[0] + "/" + f[3]] = f;
    if (f[1] == "pass" && f[3] == "all_stages_ms") ++passRows[f[0]];
  }
  const nlohmann::json a = profile("a"), b = profile("b");
  for (size_t i = 0; i < a["primitives"].size(); ++i) {
    const std::string name = a["primitives"][i]["name"];
    SCOPED_TRACE(name);
    const auto& row = totals[name + "/render_ms"];
    ASSERT_EQ(row.size(), 8u);
    const double x = a["primitives"][i]["render_ms"]["median"];
    const double y = b["primitives"][i]["render_ms"]["median"];
    EXPECT_NEAR(std::stod(row[4]), x, x * 1e-5);
    EXPECT_NEAR(std::stod(row[5]), y, y * 1e-5);
    EXPECT_NEAR(std::stod(row[7]), x / y, x / y * 1e-4);  // the speed-up of B over A
    // The default schedule times passes: one row per pass of the longer of the two.
    const size_t passes =
        std::max(a["primitives"][i]["iterations"].size(), b["primitives"][i]["iterations"].size());
    EXPECT_GT(passes, 0u);
    EXPECT_EQ(size_t(passRows[name]), passes);
  }
}

TEST_F(ProfileCompare, ReportShowsBothSidesAndWhatDiffers) {
  const std::string out = dir_ + "/cmp-html";
  const CommandRun r = run("profile --compare " + dir_ + "/a " + dir_ + "/b -o " + out + " -q");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_EQ(r.output, "");  // -q
  const std::string html = readFile(out + "/compare.html");
  EXPECT_NE(html.find(dir_ + "/a/profile.json"), std::string::npos);
  EXPECT_NE(html.find(dir_ + "/b/profile.json"), std::string::npos);
  // The payload differs between the two and is marked; the scene does not.
  EXPECT_NE(html.find("<tr class=\"differs\"><th>payload</th><td>state</td><td>index</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<tr><th>scene</th>"), std::string::npos);
  size_t svgs = 0;
  for (size_t p = html.find("<svg"); p != std::string::npos; p = html.find("<svg", p + 1)) ++svgs;
  EXPECT_EQ(svgs, 3u + 2u);  // speed-up, render time, stages, one per-pass chart per primitive
  EXPECT_NE(html.find("Per-pass deltas"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);

  // A browser draws every chart: each has bars or lines in the DOM it builds.
  const char* chromium = "/usr/bin/chromium";
  if (access(chromium, X_OK) != 0) GTEST_SKIP() << chromium << " is not installed";
  const std::string dom = out + "/dom.html";
  const std::string cmd = std::string("timeout 120 ") + chromium +
                          " --headless --no-sandbox --disable-gpu --no-first-run "
                          "--disable-background-networking --user-data-dir=" +
                          out + "/chromium-profile --dump-dom file://" + out + "/compare.html > " +
                          dom + " 2>/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const std::string drawn = readFile(dom);
  size_t charts = 0;
  for (size_t p = drawn.find("<svg"); p != std::string::npos; p = drawn.find("<svg", p + 1)) {
    const std::string svg = drawn.substr(p, drawn.find("</svg>", p) - p);
    charts += svg.find("class=\"bar\"") != std::string::npos ||
              svg.find("class=\"line\"") != std::string::npos;
  }
  EXPECT_EQ(charts, svgs);
}

TEST_F(ProfileCompare, BadInputsAreOneLineErrors) {
  const std::string out = dir_ + "/cmp-bad", a = dir_ + "/a/profile.json";
  writeFile(dir_ + "/broken.json", "{\"tool\": \"streamrt profile\", \"scene\": ");
  writeFile(dir_ + "/foreign.json", "{\"frames\": []}");
  nlohmann::json other = profile("a");
  other["scene"] = "furnace";
  other["spp"] = 64;
  writeFile(dir_ + "/other.json", other.dump());
  nlohmann::json wrongType = profile("a");
  wrongType["primitives"][0]["render_ms"]["median"] = "fast";
  writeFile(dir_ + "/wrong-type.json", wrongType.dump());
  const struct {
    std::string args, message;
    int exitCode;
  } cases[] = {
      {a + " " + dir_ + "/missing.json", "missing.json: cannot read (No such file", 1},
      {a + " " + dir_ + "/broken.json", "broken.json: not JSON (parse error", 1},
      {dir_ + "/foreign.json " + a, "foreign.json: not a streamrt profile.json", 1},
      {a + " " + dir_ + "/other.json",
       "render different work (scene 'cornell' vs 'furnace', spp 2 vs 64)", 1},
      {dir_ + "/wrong-type.json " + a, "\"primitives[cpu].render_ms.median\" is not a number", 1},
      {a + " " + a + " --spp 4", "--spp does not apply to --compare", 2},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const CommandRun r = run("profile --compare " + c.args + " -o " + out);
    EXPECT_EQ(r.exitCode, c.exitCode) << r.output;
    EXPECT_EQ(r.output.rfind("streamrt: error: ", 0), 0u) << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(out)) << "a failed comparison wrote its folder";
}

}  // namespace
