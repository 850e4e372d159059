// Replays every seed and every input that ever crashed a reader (tests/fuzz/corpus/<reader>/,
// tests/fuzz/crashes/<reader>/) through the readers, as the fuzz targets do, in the normal build:
// each must load or fail with a SceneError, nothing else. No libFuzzer or clang needed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fuzz_load.h"

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
  size_t files = 0;
  for (const char* set : {"corpus", "crashes"}) {
    const fs::path dir = fs::path(SRT_FUZZ_DIR) / set / reader;
    if (!fs::is_directory(dir)) continue;
    for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
      if (!e.is_regular_file() || e.path().filename().string()[0] == '.') continue;
      ++files;
      SCOPED_TRACE(e.path().string());
      // fuzz::load swallows SceneError only: any other exception fails the test here.
      EXPECT_NO_THROW(fuzz::load(reader, readAll(e.path())));
    }
  }
  EXPECT_GT(files, 0u) << "no seed for " << reader;
}

INSTANTIATE_TEST_SUITE_P(Readers, FuzzReplay, ::testing::ValuesIn(fuzz::kReaders),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

}  // namespace
}  // namespace srt
