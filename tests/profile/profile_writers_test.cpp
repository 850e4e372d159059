// The writers on a made-up sweep: a mismatch shows in the JSON, the CSV and loudly in the report;
// the report is self-contained; names with commas and markup survive CSV and HTML.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "apps/profile/html_report.h"
#include "apps/profile/profile_writers.h"

namespace srt::profile {
namespace {

PrimitiveProfile primitive(const std::string& spec, const std::string& registered, double ms) {
  PrimitiveProfile p;
  p.spec = spec;
  p.info = *compaction::Registry::global().find(registered);
  for (double scale : {1.0, 1.1}) {
    RenderStats s;
    s.renderSeconds = ms * scale / 1e3;
    for (int d = 0; d < 3; ++d) {
      BounceStats& b = s.bounce(size_t(d));
      b.raysIn = 1000u >> d;
      b.raysAlive = 500u >> d;
      b.traceMs = 2, b.shadeMs = 1, b.compactionMs = 0.5;
      b.compactionBytes = p.info.compacts ? 8000 : 0;
    }
    p.runs.push_back(s);
  }
  p.summary = summarize(p.runs);
  p.imageHash = "0123456789abcdef";
  return p;
}

// Fields of one CSV line, quotes removed.
std::vector<std::string> splitCsv(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (char c : line) {
    if (c == '"')
      quoted = !quoted;
    else if (c == ',' && !quoted)
      fields.emplace_back();
    else
      fields.back() += c;
  }
  return fields;
}

Result sweep(bool mismatch) {
  Result r;
  r.settings.repeats = 2;
  r.header.scene = "test<scene>";
  r.header.backend = "cpu";
  r.referencePrimitive = "gl-roger:block=128,scan=blelloch";
  r.referenceHash = "0123456789abcdef";
  r.primitives = {primitive("gl-roger:block=128,scan=blelloch", "gl-roger", 10),
                  primitive("none", "none", 20)};
  if (mismatch) {
    r.primitives[1].imagesIdentical = false;
    r.mismatches.push_back({"none", 1, false, 12, 0.25});
  }
  return r;
}

TEST(ProfileWriters, JsonCarriesSpeedupAndImageCheck) {
  const nlohmann::json ok = nlohmann::json::parse(profileJson(sweep(false)));
  EXPECT_TRUE(ok["images_identical"].get<bool>());
  EXPECT_NEAR(ok["primitives"][0]["speedup_vs_none"].get<double>(), 2.0, 1e-9);
  EXPECT_EQ(ok["primitives"][0]["compaction_bytes"], 24000);
  EXPECT_TRUE(ok["primitives"][1]["compaction_gb_per_s"].is_null());  // none moves nothing
  const nlohmann::json bad = nlohmann::json::parse(profileJson(sweep(true)));
  EXPECT_FALSE(bad["images_identical"].get<bool>());
  ASSERT_EQ(bad["mismatches"].size(), 1u);
  EXPECT_EQ(bad["mismatches"][0]["differing_pixels"], 12);
  EXPECT_FALSE(bad["primitives"][1]["images_identical"].get<bool>());
}

TEST(ProfileWriters, CsvQuotesNamesAndKeepsColumns) {
  std::istringstream csv(profileCsv(sweep(true)));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, kCsvHeader);
  const auto columns = [](const std::string& l) {
    size_t n = 1;
    bool quoted = false;
    for (char c : l) {
      if (c == '"') quoted = !quoted;
      n += c == ',' && !quoted;
    }
    return n;
  };
  const size_t header = columns(line);
  int rows = 0;
  while (std::getline(csv, line)) {
    EXPECT_EQ(columns(line), header) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 2 * (3 + 1));  // per primitive: three bounces and a total
  EXPECT_NE(profileCsv(sweep(false)).find("\"gl-roger:block=128,scan=blelloch\",0,"),
            std::string::npos);
}

// Under the regenerate schedule stage times exist per pass only: the pass rows carry them, with
// the pool's occupancy, and the bounce rows keep their counts.
TEST(ProfileWriters, CsvPassRowsCarryTheStageTimes) {
  Result r = sweep(false);
  for (PrimitiveProfile& p : r.primitives) {
    for (RenderStats& s : p.runs) {
      for (BounceStats& b : s.bounces) b.traceMs = b.shadeMs = b.compactionMs = 0;
      IterationStats pass;
      pass.lanes = 64, pass.alive = 40, pass.regenerated = 24, pass.idle = 0;
      pass.traceMs = 2 * s.renderSeconds * 1e3, pass.shadeMs = 1, pass.regenerateMs = 0.25;
      s.iterations = {pass, pass};
    }
    p.summary = summarize(p.runs);
  }
  std::istringstream csv(profileCsv(r));
  std::string line;
  std::getline(csv, line);
  const std::vector<std::string> header = splitCsv(line);
  const auto column = [&](const std::string& name) {
    return size_t(std::find(header.begin(), header.end(), name) - header.begin());
  };
  ASSERT_LT(column("pass"), header.size());
  int passes = 0, bounces = 0;
  while (std::getline(csv, line)) {
    const std::vector<std::string> row = splitCsv(line);
    ASSERT_EQ(row.size(), header.size()) << line;
    if (!row[column("pass")].empty()) {
      ++passes;
      EXPECT_EQ(row[column("bounce")], "");
      EXPECT_EQ(row[column("lanes")], "64");
      EXPECT_EQ(row[column("rays_alive")], "40");
      EXPECT_EQ(row[column("regenerated")], "24");
      EXPECT_EQ(row[column("shade_ms_median")], "1");
      EXPECT_EQ(row[column("regenerate_ms_max")], "0.25");
      // gl-roger's runs took 10 and 11 ms, so its passes' trace times were 20 and 22 ms.
      if (row[0] != "none") {
        EXPECT_EQ(row[column("trace_ms_min")], "20");
        EXPECT_EQ(row[column("trace_ms_max")], "22");
      }
    } else if (row[column("bounce")] != "total") {
      ++bounces;
      EXPECT_EQ(row[column("trace_ms_median")], "");  // not measured per depth: empty, not 0
      EXPECT_NE(row[column("rays_in")], "");
    } else {
      EXPECT_EQ(row[column("shade_ms_median")], "2");  // two passes of 1 ms
    }
  }
  EXPECT_EQ(passes, 2 * 2);
  EXPECT_EQ(bounces, 2 * 3);
}

TEST(ProfileWriters, ReportShoutsAboutAMismatch) {
  const std::string ok = htmlReport(sweep(false));
  EXPECT_NE(ok.find("id=\"images-identical\""), std::string::npos);
  EXPECT_EQ(ok.find("IMAGE MISMATCH"), std::string::npos);
  const std::string bad = htmlReport(sweep(true));
  EXPECT_NE(bad.find("id=\"images-differ\""), std::string::npos);
  EXPECT_NE(bad.find("IMAGE MISMATCH"), std::string::npos);
  EXPECT_NE(bad.find("12 pixels differ"), std::string::npos);
  EXPECT_NE(bad.find(">DIFFERS<"), std::string::npos);
}

TEST(ProfileWriters, ReportIsSelfContainedAndEscaped) {
  std::string html = htmlReport(sweep(false));
  // The SVG namespace is a name, not a fetch; anything else pointing outside is.
  const std::string ns = "xmlns=\"http://www.w3.org/2000/svg\"";
  for (size_t p = html.find(ns); p != std::string::npos; p = html.find(ns))
    html.erase(p, ns.size());
  for (const char* external :
       {"<script", "src=", "href=", "@import", "url(", "http://", "https://"})
    EXPECT_EQ(html.find(external), std::string::npos) << external;
  EXPECT_EQ(html.find("test<scene>"), std::string::npos);
  EXPECT_NE(html.find("test&lt;scene&gt;"), std::string::npos);
  EXPECT_GE(std::count(html.begin(), html.end(), '<'), 100);
  size_t svgs = 0;
  for (size_t p = html.find("<svg"); p != std::string::npos; p = html.find("<svg", p + 1)) ++svgs;
  EXPECT_EQ(svgs, 6u + 2u);  // speed-up, totals, 2 stage charts, rays, compaction, bytes, GB/s
}

}  // namespace
}  // namespace srt::profile
