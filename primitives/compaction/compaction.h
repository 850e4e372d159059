// Stream compaction: the one interface every compaction primitive implements, and the registry
// that names them, so the CLI, the tests and the benchmarks loop over all of them.
//
// A stream is a set of parallel arrays (fields) of `count` elements plus one keep flag per element.
// An index stream is a single 4-byte field; AoS ray records are a single 32- or 64-byte field;
// the renderer's SoA path state is one field per member. Compaction writes the survivors of
// every field densely into that field's `dst`, using the same permutation for all fields, and
// writes the number of survivors to `numKept`.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "primitives/common/memory.h"

namespace srt::compaction {

// Where a primitive does its work.
enum class Device { Cpu, Cuda, Gl, Any };
const char* toString(Device d);

struct Field {
  const void* src = nullptr;  // count * bytes, not overlapping dst
  void* dst = nullptr;        // room for count * bytes
  uint32_t bytes = 0;         // element size: a multiple of 4, at most kMaxFieldBytes
};
constexpr uint32_t kMaxFieldBytes = 256;
constexpr int kMaxFields = 16;

struct Request {
  const uint8_t* keep = nullptr;  // keep[i] != 0: element i survives
  const Field* fields = nullptr;
  int numFields = 0;              // 0 is allowed: only the count is computed
  uint32_t count = 0;             // elements in the stream
  uint32_t* numKept = nullptr;    // receives the survivors' count
  MemorySpace memory = MemorySpace::Cuda;  // where keep, fields and numKept live
  cudaStream_t stream = nullptr;  // orders the work when memory is Cuda
};

// Throws std::invalid_argument naming what is wrong (field size, count, null pointers).
void validate(const Request& r);

class Compactor {
 public:
  virtual ~Compactor() = default;
  // Grows scratch storage for streams of up to maxCount elements, so that compact() in a bounce
  // loop allocates nothing.
  virtual void reserve(uint32_t maxCount) {}
  // Asynchronous with respect to the host when memory is Cuda (unless the primitive says otherwise).
  virtual void compact(const Request& r) = 0;
  // Milliseconds of the last compact() spent moving data between memory spaces (GL interop or
  // uploads); included in the call's total, reported apart by the tracer's statistics.
  virtual double lastTransferMs() const { return 0.0; }
  // What a primitive that chooses among others (auto) chose so far, for --stats; empty for the
  // rest.
  virtual std::string choiceSummary() const { return {}; }
};

struct Info {
  std::string name;                // what --compaction takes: "cub", "warp-aggregated", "gl-roger"
  Device device = Device::Cpu;
  bool ordered = true;             // survivors keep their input order
  bool compacts = true;            // false only for "none": the caller keeps dead lanes in place
  std::vector<MemorySpace> accepts;  // memory spaces a Request may live in
  std::string description;         // one line for `streamrt list`
  bool accepts_(MemorySpace m) const;
};

// Options after a colon in a primitive's name: "gl-roger:block=128,scan=blelloch". A factory reads
// the keys it knows; OptionReader::finish() rejects the rest, so a typo is an error, not a default.
class OptionReader {
 public:
  OptionReader(std::string primitive, std::string_view text);  // parses "k=v,k=v"
  std::string get(const std::string& key, const std::string& fallback);
  int getInt(const std::string& key, int fallback);
  void finish() const;  // throws std::invalid_argument naming unknown keys and the known ones
 private:
  std::string primitive_;
  std::vector<std::pair<std::string, std::string>> values_;
  std::vector<std::string> known_;
};

using Factory = std::function<std::unique_ptr<Compactor>(OptionReader&)>;

class Registry {
 public:
  struct Entry {
    Info info;
    Factory factory;
  };
  // Every built-in primitive, registered once on first use.
  static Registry& global();

  void add(Info info, Factory factory);  // throws on a duplicate name
  const std::vector<Entry>& entries() const { return entries_; }
  const Info* find(std::string_view name) const;
  std::vector<std::string> names() const;
  // `spec` is a name, optionally followed by ":key=value,..." options. Throws
  // std::invalid_argument listing the registered names when the name is unknown, and naming the
  // option when an option is unknown or malformed.
  std::unique_ptr<Compactor> create(std::string_view spec) const;
  // The name part of a spec ("gl-roger" of "gl-roger:block=128").
  static std::string_view nameOf(std::string_view spec);

 private:
  std::vector<Entry> entries_;
};

// Each family registers its variants here (one line per variant in the family's register file).
void registerCpuCompactors(Registry& r);   // cpu, none
void registerCudaCompactors(Registry& r);  // cub and the CUDA family
void registerGlCompactors(Registry& r);    // the OpenGL no-scatter family

}  // namespace srt::compaction
