// Helpers for the scene tests: a scratch folder removed at the end, and file writing.
#pragma once

#include <gtest/gtest.h>

#include "tests/test_scenes_dir.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace srt::test {

class ScratchDir {
 public:
  ScratchDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() / ("srt-scenes-" + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = file(name);
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Runs `f`, expects a SceneError-like exception whose message contains every given fragment.
template <typename E, typename F>
void expectErrorContaining(F&& f, std::initializer_list<std::string> fragments) {
  try {
    f();
    ADD_FAILURE() << "no exception thrown";
  } catch (const E& e) {
    const std::string msg = e.what();
    for (const std::string& frag : fragments)
      EXPECT_NE(msg.find(frag), std::string::npos)
          << "message '" << msg << "' lacks '" << frag << "'";
  }
}

// Standard base64, for glTF data URIs built in tests.
inline std::string base64(const std::string& bytes) {
  static const char* abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t v = uint32_t(uint8_t(bytes[i])) << 16;
    if (i + 1 < bytes.size()) v |= uint32_t(uint8_t(bytes[i + 1])) << 8;
    if (i + 2 < bytes.size()) v |= uint8_t(bytes[i + 2]);
    out += abc[(v >> 18) & 63];
    out += abc[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? abc[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? abc[v & 63] : '=';
  }
  return out;
}

// The bytes of trivially copyable values, in host (little-endian) order.
template <typename... T>
std::string bytesOf(const T&... values) {
  std::string out;
  (out.append(reinterpret_cast<const char*>(&values), sizeof(T)), ...);
  return out;
}

}  // namespace srt::test
