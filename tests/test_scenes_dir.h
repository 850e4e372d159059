#pragma once
// Where the tests find their data. The shared scenes: $SRT_TEST_SCENES_DIR when set (a bundle run on another
// machine points at its own copy), else the folder CMake unpacked them into, found relative to
// the running test binary so that a moved or copied build tree still finds its data.
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace srt::test {

inline std::string testBinaryDir() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return ".";
  std::string path(buf, size_t(n));
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

inline std::string testScenesDir() {
  const char* env = std::getenv("SRT_TEST_SCENES_DIR");
  if (env && *env) return env;
  return testBinaryDir() + "/" + SRT_TEST_SCENES_RELATIVE;
}

// Small data copied into the build tree (tests/CMakeLists.txt): examples/, fuzz/corpus/,
// fuzz/crashes/. $SRT_TEST_DATA_DIR wins, as above.
inline std::string testDataDir() {
  const char* env = std::getenv("SRT_TEST_DATA_DIR");
  if (env && *env) return env;
  return testBinaryDir() + "/" + SRT_TEST_DATA_RELATIVE;
}

}  // namespace srt::test
