// Replays every seed and every input that ever crashed a reader (tests/fuzz/corpus/<reader>/,
// tests/fuzz/crashes/<reader>/) through the readers, as the fuzz targets do, in the normal build:
// each must load or fail with a SceneError, nothing else. No libFuzzer or clang needed.
// SRT_FUZZ_REPLAY_DIR=build-fuzz/corpus replays a fuzzer's working corpora too (thousands of
// mutated files), and prints how many loaded and how many were refused.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fuzz_load.h"
#include "tests/test_scenes_dir.h"

namespace srt {
namespace {

namespace fs = std::filesystem;

std::string readAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class FuzzReplay : public ::testing::TestWithParam<const char*> {};

TEST_P(FuzzReplay, EveryKnownInputLoadsOrFailsCleanly) {
  const std::string reader = GetParam();
  size_t files = 0, loaded = 0;
  std::vector<fs::path> dirs = {fs::path(srt::test::testDataDir()) / "fuzz" / "corpus" / reader,
                                fs::path(srt::test::testDataDir()) / "fuzz" / "crashes" / reader};
  if (const char* extra = std::getenv("SRT_FUZZ_REPLAY_DIR"))
    dirs.push_back(fs::path(extra) / reader);
  for (const fs::path& dir : dirs) {
    if (!fs::is_directory(dir)) continue;
    for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
      if (!e.is_regular_file() || e.path().filename().string()[0] == '.') continue;
      ++files;
      SCOPED_TRACE(e.path().string());
      // Only SceneError is caught: any other exception fails the test here.
      EXPECT_NO_THROW(loaded += fuzz::load(reader, readAll(e.path())));
    }
  }
  EXPECT_GT(files, 0u) << "no seed for " << reader;
  std::printf("%s: %zu files, %zu loaded, %zu refused with a SceneError\n", reader.c_str(), files,
              loaded, files - loaded);
}

INSTANTIATE_TEST_SUITE_P(Readers, FuzzReplay, ::testing::ValuesIn(fuzz::kReaders),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

}  // namespace
}  // namespace srt
