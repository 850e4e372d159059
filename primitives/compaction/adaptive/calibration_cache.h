// `auto`'s calibration on disk: what its exploration measured, per device and stream shape, so a
// fresh process starts exploiting at once. One text file, $XDG_CACHE_HOME/streamrt/
// auto-calibration.txt (~/.cache/streamrt/ without XDG_CACHE_HOME), versioned by its first line
// and written to a temporary name and renamed, so readers never see half a file. A file that
// does not parse is ignored, with one warning a process, and replaced on the next save.
//
// An entry is keyed by the device (name, driver and runtime versions, streamrt's version), the
// memory space and the stream's shape (fields, bytes per element, log2 size class); it holds
// each candidate's cost relative to the best (1 = the best).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "primitives/common/memory.h"

namespace srt::compaction {

struct CalibrationKey {
  std::string device;  // "NVIDIA H100 80GB HBM3 | driver 12040 | runtime 12040 | streamrt 0.1.0"
  MemorySpace memory = MemorySpace::Cuda;
  int numFields = 0;
  uint32_t bytes = 0;
  int countLog2 = 0;
  bool operator<(const CalibrationKey& o) const;
};

// Candidate spec and its relative cost.
using CalibrationCosts = std::vector<std::pair<std::string, double>>;

class CalibrationCache {
 public:
  static constexpr int kFormatVersion = 1;

  // The file in the user's cache folder; empty when neither XDG_CACHE_HOME nor HOME is set.
  static std::string defaultPath();
  // What identifies the device that streams in `m` run on, with the versions that change costs.
  static std::string deviceIdentity(MemorySpace m);

  explicit CalibrationCache(std::string path) : path_(std::move(path)) {}

  // Reads the file: a missing file or another format version is an empty cache; a file that
  // does not parse is too, with one warning on stderr a process. Never throws.
  void load();
  // Costs for `key` naming every spec of `candidates`, in their order; empty when there are none.
  std::vector<double> find(const CalibrationKey& key,
                           const std::vector<std::string>& candidates) const;
  void put(const CalibrationKey& key, CalibrationCosts costs);
  // Merges with the file as it is now (other processes' entries kept, ours win) and replaces it
  // atomically. Returns false, after one warning a process, when it cannot be written.
  bool save() const;

  const std::string& path() const { return path_; }
  size_t size() const { return entries_.size(); }

 private:
  // Parses `text` into entries; false (with `why`) when malformed.
  static bool parse(const std::string& text, std::map<CalibrationKey, CalibrationCosts>& out,
                    std::string& why, bool& otherVersion);
  std::string path_;
  std::map<CalibrationKey, CalibrationCosts> entries_;
  std::map<CalibrationKey, CalibrationCosts> ours_;  // put() since load(): what save() writes
};

}  // namespace srt::compaction
