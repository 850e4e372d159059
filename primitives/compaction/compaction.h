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
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "primitives/common/enum_names.h"
#include "primitives/common/memory.h"

namespace srt::compaction {

// Where a primitive does its work.
enum class Device { Cpu, Cuda, Gl, Any };
constexpr EnumNames<Device, 4> enumNames(Device) {
  return {{{{Device::Cpu, "cpu"},
            {Device::Cuda, "cuda"},
            {Device::Gl, "opengl"},
            {Device::Any, "any"}}}};
}
using srt::toString;  // compaction::toString(Device::Gl) is "opengl"

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
  int numFields = 0;                       // 0 is allowed: only the count is computed
  uint32_t count = 0;                      // elements in the stream
  uint32_t* numKept = nullptr;             // receives the survivors' count
  MemorySpace memory = MemorySpace::Cuda;  // where keep, fields and numKept live
  cudaStream_t stream = nullptr;           // orders the work when memory is Cuda
};

// Throws std::invalid_argument naming what is wrong (field size, count, null pointers).
void validate(const Request& r);

// What a caller will compact, told before its first frame (CUB's two-phase call, done once):
// the largest count, the memory space and stream, and the byte sizes of each stream's fields.
struct Preparation {
  uint32_t maxCount = 0;
  MemorySpace memory = MemorySpace::Cuda;
  cudaStream_t stream = nullptr;
  std::vector<std::vector<uint32_t>> layouts;  // per stream: its fields' element sizes
};

class Compactor {
 public:
  virtual ~Compactor() = default;
  // Grows scratch storage for streams of up to maxCount elements, so that compact() in a bounce
  // loop allocates nothing.
  virtual void reserve(uint32_t maxCount) {}
  // Everything a first compact() would set up, done now, outside the caller's timed work:
  // reserve(p.maxCount), then one compaction of a short stream of each layout (kernels load and
  // scratch is sized on first use), waited for. Primitives that pick among others (auto) make
  // and prepare their candidates.
  virtual void prepare(const Preparation& p);
  // Asynchronous with respect to the host when memory is Cuda (unless the primitive says
  // otherwise).
  virtual void compact(const Request& r) = 0;
  // Milliseconds of the last compact() spent moving data between memory spaces (GL interop or
  // uploads); included in the call's total, reported apart by the tracer's statistics.
  virtual double lastTransferMs() const { return 0.0; }
  // What a primitive that chooses among others (auto) chose so far, for --stats; empty for the
  // rest.
  virtual std::string choiceSummary() const { return {}; }
  // Saves what the primitive learned that outlives the process (auto's calibration cache). Called
  // after each render, outside its timing: a process that ends with _Exit runs no destructor.
  virtual void persist() {}
};

// One option a primitive takes after the colon ("block=128"): described where the primitive is
// registered, so Registry::check() can read a spec without making the primitive.
struct OptionSpec {
  std::string key;
  std::string fallback;  // the default, as text
  std::string accepted;  // the values it takes, in words: "a multiple of 32 in [32, 1024]"
  // True when `value` is one of them.
  std::function<bool(const std::string& value)> accepts;
};
// An integer in [min, max] that is a multiple of `step` (or a power of two when powerOfTwo).
OptionSpec intOption(std::string key, int fallback, int min, int max, int step = 1);
OptionSpec powerOfTwoOption(std::string key, int fallback, int min, int max);
// One of `choices` (the first is not necessarily the default).
OptionSpec choiceOption(std::string key, std::string fallback, std::vector<std::string> choices);
OptionSpec flagOption(std::string key, bool fallback);  // 0 or 1

// The options of one spec, read against their descriptions: every described key, given or
// defaulted.
class OptionValues {
 public:
  // Parses "k=v,k=v" (the text after the colon). Throws std::invalid_argument starting with
  // `who` for a malformed item, an undescribed key (listing the described ones), a key given
  // twice or a value not accepted.
  static OptionValues read(const std::string& who, const std::vector<OptionSpec>& specs,
                           std::string_view text);
  const std::string& get(const std::string& key) const;  // throws std::logic_error if undescribed
  int getInt(const std::string& key) const;
  bool given(const std::string& key) const;  // on the spec, not defaulted

 private:
  std::vector<std::pair<std::string, std::string>> values_;
  std::vector<std::string> given_;
};

struct Info {
  Info() = default;
  // What every registration states; the rest is set apart (Registry::add's options, resolve).
  Info(std::string name, Device device, bool ordered, bool compacts,
       std::vector<MemorySpace> accepts, std::string description)
      : name(std::move(name)),
        device(device),
        ordered(ordered),
        compacts(compacts),
        accepts(std::move(accepts)),
        description(std::move(description)) {}

  std::string name;  // what --compaction takes: "cub", "warp-aggregated", "gl-roger"
  Device device = Device::Cpu;
  bool ordered = true;               // survivors keep their input order
  bool compacts = true;              // false only for "none": the caller keeps dead lanes in place
  std::vector<MemorySpace> accepts;  // memory spaces a Request may live in
  std::string description;           // one line for `streamrt list`
  std::vector<OptionSpec> options;   // what may follow the colon
  bool picks = false;                // chooses among the other primitives (auto)
  bool gl = false;                   // runs OpenGL passes (set for Device::Gl; auto:gl=1)
  // Adjusts the Info to a spec's options (auto:ordered=1 is ordered) and checks combinations one
  // option alone cannot (std::invalid_argument); may be empty.
  std::function<void(Info&, const OptionValues&)> resolve;

  bool accepts_(MemorySpace m) const;
  bool usesGl() const { return gl || device == Device::Gl; }
  // The description followed by the options and their defaults: "... [block=256: a multiple of
  // 32 in [32, 1024]]".
  std::string summary() const;
};

// What a caller requires of a primitive. Registry::check() names the first requirement a spec
// fails; Registry::matching() lists the primitives that meet them all (the one registry filter).
struct Needs {
  std::string what = "--compaction";  // the flag or setting the spec came from, for messages
  std::optional<MemorySpace> memory;  // streams live there
  std::optional<Device> device;       // runs there (the GPU kd build: Cuda)
  bool compacts = false;              // not "none"
  bool ordered = false;               // survivors keep their order
  bool direct = false;                // not one that picks among the others (auto)
  bool gl = true;                     // OpenGL primitives allowed (a context is at hand)
  std::string kind;  // the requirement in words ("an ordered CUDA compaction primitive"); empty:
                     // each failed requirement is named by itself
  // Empty when `info` meets every requirement, else why not ("runs on cuda and cannot take
  // streams in host memory").
  std::string unmet(const Info& info) const;
};

// Options after a colon in a primitive's name: "gl-roger:block=128,scan=blelloch". A factory reads
// the keys it knows; OptionReader::finish() rejects the rest, so a typo is an error, not a default.
class OptionReader {
 public:
  OptionReader(std::string primitive, std::string_view text);  // parses "k=v,k=v"
  std::string get(const std::string& key, const std::string& fallback);
  int getInt(const std::string& key, int fallback);
  void finish() const;  // throws std::invalid_argument naming unknown keys and the known ones
  const std::vector<std::string>& keysRead() const { return known_; }
  const std::vector<std::pair<std::string, std::string>>& values() const { return values_; }

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

  // Throws on a duplicate name. `options` describe what may follow the colon (Info::options).
  void add(Info info, Factory factory, std::vector<OptionSpec> options = {});
  const std::vector<Entry>& entries() const { return entries_; }
  const Info* find(std::string_view name) const;
  std::vector<std::string> names() const;
  // The registered primitives that meet `needs`, in registration order.
  std::vector<const Info*> matching(const Needs& needs) const;
  std::vector<std::string> namesMatching(const Needs& needs) const;
  // Reads `spec` ("name" or "name:key=value,...") against the primitive's described options and
  // `needs` without making the primitive; returns its Info as the options make it. Throws
  // std::invalid_argument starting with needs.what and naming what is wrong: an unknown name
  // (listing the registered ones), an unknown key (listing the described ones), a value out of
  // range, an unmet need (listing the primitives that meet them).
  Info check(std::string_view spec, const Needs& needs = {}) const;
  // check(spec), then makes the primitive.
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
