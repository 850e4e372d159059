#include "primitives/compaction/adaptive/calibration_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <tuple>

#ifndef SRT_VERSION
#define SRT_VERSION "unknown"
#endif

namespace srt::compaction {
namespace {

constexpr const char* kMagic = "streamrt-auto-calibration";

std::atomic<bool> warnedRead{false}, warnedWrite{false};

void warnOnce(std::atomic<bool>& flag, const std::string& message) {
  if (!flag.exchange(true)) std::fprintf(stderr, "streamrt: warning: %s\n", message.c_str());
}

std::vector<std::string> splitTabs(const std::string& line) {
  std::vector<std::string> out;
  size_t begin = 0;
  while (true) {
    const size_t end = line.find('\t', begin);
    out.push_back(line.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    if (end == std::string::npos) return out;
    begin = end + 1;
  }
}

bool parseInt(const std::string& s, long long min, long long max, long long& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno || *end || v < min || v > max) return false;
  out = v;
  return true;
}

// One line: device, memory, fields, bytes, log2 size, then "spec cost" pairs, tab-separated.
std::string formatLine(const CalibrationKey& k, const CalibrationCosts& costs) {
  std::ostringstream line;
  line << k.device << '\t' << toString(k.memory) << '\t' << k.numFields << '\t' << k.bytes << '\t'
       << k.countLog2;
  char buf[32];
  for (const auto& [spec, cost] : costs) {
    std::snprintf(buf, sizeof buf, "%.6g", cost);
    line << '\t' << spec << ' ' << buf;
  }
  return line.str();
}

bool readFile(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  text = s.str();
  return true;
}

bool makeFolders(const std::string& folder) {
  for (size_t at = 1; at <= folder.size(); ++at) {
    if (at != folder.size() && folder[at] != '/') continue;
    const std::string part = folder.substr(0, at);
    if (mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) return false;
  }
  return true;
}

}  // namespace

bool CalibrationKey::operator<(const CalibrationKey& o) const {
  return std::tie(device, memory, numFields, bytes, countLog2) <
         std::tie(o.device, o.memory, o.numFields, o.bytes, o.countLog2);
}

std::string CalibrationCache::defaultPath() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && xdg[0] == '/') return std::string(xdg) + "/streamrt/auto-calibration.txt";
  const char* home = std::getenv("HOME");
  if (home && home[0]) return std::string(home) + "/.cache/streamrt/auto-calibration.txt";
  return {};
}

std::string CalibrationCache::deviceIdentity(MemorySpace m) {
  std::string id;
  if (m == MemorySpace::Cuda) {
    int device = 0, driver = 0, runtime = 0;
    if (cudaGetDevice(&device) != cudaSuccess) {
      cudaGetLastError();
      return {};
    }
    // Asked once a device, not once a stream shape: cudaGetDeviceProperties reads every attribute.
    static std::mutex mutex;
    static std::map<int, std::string> known;
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = known.find(device); it != known.end()) return it->second;
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
      cudaGetLastError();
      return {};
    }
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    id = std::string(prop.name) + " | driver " + std::to_string(driver) + " | runtime " +
         std::to_string(runtime);
    for (char& c : id)
      if (c == '\t' || c == '\n') c = ' ';
    return known[device] = id + " | streamrt " SRT_VERSION;
  } else {
    id = "host " + std::to_string(std::thread::hardware_concurrency()) + " threads";
  }
  for (char& c : id)
    if (c == '\t' || c == '\n') c = ' ';
  return id + " | streamrt " SRT_VERSION;
}

bool CalibrationCache::parse(const std::string& text,
                             std::map<CalibrationKey, CalibrationCosts>& out, std::string& why,
                             bool& otherVersion) {
  otherVersion = false;
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line.rfind(kMagic, 0) != 0) {
    why = "no '" + std::string(kMagic) + "' header";
    return false;
  }
  long long version = 0;
  if (!parseInt(line.substr(std::strlen(kMagic) + (line.size() > std::strlen(kMagic))), 1, 1 << 20,
                version)) {
    why = "bad version in the header";
    return false;
  }
  if (version != kFormatVersion) {
    otherVersion = true;
    return true;
  }
  int number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    const std::vector<std::string> cols = splitTabs(line);
    CalibrationKey k;
    long long fields = 0, bytes = 0, log2 = 0;
    const bool ok = cols.size() >= 6 && !cols[0].empty() &&
                    (cols[1] == "cuda" || cols[1] == "host") &&
                    parseInt(cols[2], 0, 1 << 10, fields) &&
                    parseInt(cols[3], 0, 1ll << 20, bytes) && parseInt(cols[4], 0, 64, log2);
    if (!ok) {
      why = "line " + std::to_string(number) + " is malformed";
      return false;
    }
    k.device = cols[0];
    k.memory = cols[1] == "cuda" ? MemorySpace::Cuda : MemorySpace::Host;
    k.numFields = int(fields), k.bytes = uint32_t(bytes), k.countLog2 = int(log2);
    CalibrationCosts costs;
    for (size_t c = 5; c < cols.size(); ++c) {
      const size_t space = cols[c].rfind(' ');
      char* end = nullptr;
      const double cost =
          space == std::string::npos ? -1 : std::strtod(cols[c].c_str() + space + 1, &end);
      if (space == 0 || space == std::string::npos || *end || !std::isfinite(cost) || cost <= 0) {
        why = "line " + std::to_string(number) + " has a bad cost";
        return false;
      }
      costs.emplace_back(cols[c].substr(0, space), cost);
    }
    out[k] = std::move(costs);
  }
  return true;
}

void CalibrationCache::load() {
  entries_.clear();
  std::string text, why;
  if (path_.empty() || !readFile(path_, text)) return;
  bool otherVersion = false;
  std::map<CalibrationKey, CalibrationCosts> parsed;
  if (!parse(text, parsed, why, otherVersion)) {
    warnOnce(warnedRead, "ignoring the auto calibration cache '" + path_ + "': " + why);
    return;
  }
  if (!otherVersion) entries_ = std::move(parsed);
}

std::vector<double> CalibrationCache::find(const CalibrationKey& key,
                                           const std::vector<std::string>& candidates) const {
  const auto it = entries_.find(key);
  if (it == entries_.end()) return {};
  std::vector<double> out;
  for (const std::string& spec : candidates) {
    double cost = -1;
    for (const auto& [s, c] : it->second)
      if (s == spec) cost = c;
    if (cost <= 0) return {};  // a candidate never measured here: explore as usual
    out.push_back(cost);
  }
  return out;
}

void CalibrationCache::put(const CalibrationKey& key, CalibrationCosts costs) {
  entries_[key] = costs;
  ours_[key] = std::move(costs);
}

bool CalibrationCache::save() const {
  if (path_.empty() || ours_.empty()) return true;
  // Other processes may have written since load(): keep their entries, ours win.
  std::map<CalibrationKey, CalibrationCosts> merged;
  std::string text, why;
  bool otherVersion = false;
  if (readFile(path_, text) && (!parse(text, merged, why, otherVersion) || otherVersion))
    merged.clear();
  for (const auto& [k, v] : ours_) merged[k] = v;

  const size_t slash = path_.rfind('/');
  const std::string folder = slash == std::string::npos ? "." : path_.substr(0, slash);
  auto fail = [&](const std::string& what) {
    warnOnce(warnedWrite, "cannot write the auto calibration cache '" + path_ + "': " + what);
    return false;
  };
  if (!makeFolders(folder)) return fail(std::strerror(errno));
  std::string tmp = path_ + ".tmpXXXXXX";
  const int fd = mkstemp(tmp.data());
  if (fd < 0) return fail(std::strerror(errno));
  std::string out = std::string(kMagic) + " " + std::to_string(kFormatVersion) + "\n";
  for (const auto& [k, v] : merged) out += formatLine(k, v) + "\n";
  size_t written = 0;
  while (written < out.size()) {
    const ssize_t n = write(fd, out.data() + written, out.size() - written);
    if (n <= 0) break;
    written += size_t(n);
  }
  const bool ok = written == out.size() && fsync(fd) == 0;
  const int err = errno;
  close(fd);
  if (!ok || rename(tmp.c_str(), path_.c_str()) != 0) {
    const std::string cause = std::strerror(ok ? errno : err);
    unlink(tmp.c_str());
    return fail(cause);
  }
  return true;
}

}  // namespace srt::compaction
