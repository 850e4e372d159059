// Reductions and segmented reductions (Martín et al. 2012): the one interface every variant
// implements, and a registry per (value type, operator) that names them, so the kd-tree builder
// (--segreduce NAME), the tests and the benchmark loop over all of them.
//
// Segmented input is described both ways the literature uses, and each variant says which it
// reads: `owners` (owners[i] = segment of element i, non-decreasing: the paper's owner array) and
// `offsets` (segment s is [offsets[s], offsets[s+1]), numSegments + 1 entries: CUB's layout).
// out[s] = in[first] op ... op in[last] in input order; an empty segment gives Op::identity().
//
// Per-node bounds in a kd-tree build, with the algorithm named by --segreduce:
//   auto red = Registry<Aabb, AabbUnion>::global().createSegmented(name);  // throws if unknown
//   red->reserve(maxTriangles, maxNodes);           // once: no allocation inside the build loop
//   Request<Aabb> q;
//   q.in = triBounds; q.count = numTris;             // Aabb has Bounds3f's layout
//   q.out = nodeBounds; q.numSegments = numNodes;
//   q.owners = triNode;                              // both layouts, or the one that
//   q.offsets = nodeFirstTri;                        //   find(name, true)->layout names
//   q.stream = stream;
//   red->reduce(q);                                  // asynchronous on q.stream
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "primitives/common/enum_names.h"
#include "primitives/reduction/operators.h"

namespace srt::reduction {

enum class Layout { None, Owners, Offsets };
constexpr EnumNames<Layout, 3> enumNames(Layout) {
  return {{{{Layout::None, "none"}, {Layout::Owners, "owners"}, {Layout::Offsets, "offsets"}}}};
}

// All pointers are CUDA device memory.
template <typename T>
struct Request {
  const T* in = nullptr;
  uint32_t count = 0;  // elements in `in`
  T* out = nullptr;    // 1 value (unsegmented) or numSegments values
  // Segmented only (ignored by unsegmented variants):
  uint32_t numSegments = 0;
  const uint32_t* owners = nullptr;   // count entries, needed when Info::layout == Owners
  const uint32_t* offsets = nullptr;  // numSegments + 1 entries, needed when layout == Offsets
  // Segmented: out[] already holds Op::identity() in every segment (the caller wrote it in a
  // pass it runs anyway), so a variant that starts by filling the output may skip that launch.
  bool outHoldsIdentity = false;
  cudaStream_t stream = nullptr;  // the work is asynchronous on this stream
};

template <typename T, typename Op>
class Reducer {
 public:
  virtual ~Reducer() = default;
  // Grows scratch storage so that reduce() on inputs up to these sizes allocates nothing.
  virtual void reserve(uint32_t maxCount, uint32_t maxSegments) {}
  virtual void reduce(const Request<T>& r) = 0;
};

struct Info {
  std::string name;  // what --segreduce / --reduce takes: "tb2", "mergepath", "cub"
  bool segmented = false;
  Layout layout = Layout::None;  // which segment description the variant reads
  bool commutativeOnly = false;  // true: the result is only right for commutative operators (CUB)
  std::string description;       // one line for `streamrt list`
};

// Throws std::invalid_argument naming the variant and what is missing (null pointer, layout).
void validate(const Info& info, const void* in, uint32_t count, const void* out,
              uint32_t numSegments, const uint32_t* owners, const uint32_t* offsets);

template <typename T, typename Op>
class Registry {
 public:
  using Factory = std::function<std::unique_ptr<Reducer<T, Op>>()>;
  struct Entry {
    Info info;
    Factory factory;
  };
  // Every built-in variant for this (T, Op), registered once on first use. Instantiated in
  // primitives/reduction/instantiate_*.cu for (float, Sum), (int, Sum), (Aabb, AabbUnion),
  // (Mat2u, Mat2Product).
  static Registry& global();

  // Unsegmented and segmented variants may share a name ("tb2"); (name, segmented) is unique.
  void add(Info info, Factory factory);  // throws on a duplicate (name, segmented)
  const std::vector<Entry>& entries() const { return entries_; }
  const Info* find(std::string_view name, bool segmented) const;
  std::vector<std::string> names(bool segmented) const;
  // Throws std::invalid_argument listing the registered names (of that kind) when unknown, or
  // when a segmented variant is asked for an unsegmented one or the other way round.
  std::unique_ptr<Reducer<T, Op>> create(std::string_view name, bool segmented) const;
  std::unique_ptr<Reducer<T, Op>> createSegmented(std::string_view name) const {
    return create(name, true);
  }

 private:
  std::vector<Entry> entries_;
};

// GPU helpers for callers that hold one description and need the other (asynchronous on stream).
// owners[i] = s for offsets[s] <= i < offsets[s+1]; offsets from sorted owners.
void ownersFromOffsets(const uint32_t* offsets, uint32_t numSegments, uint32_t* owners,
                       uint32_t count, cudaStream_t stream);
void offsetsFromOwners(const uint32_t* owners, uint32_t count, uint32_t* offsets,
                       uint32_t numSegments, cudaStream_t stream);

// ---- Registry members (small; the per-type instances live in instantiate_*.cu) ----

template <typename T, typename Op>
void Registry<T, Op>::add(Info info, Factory factory) {
  if (find(info.name, info.segmented))
    throw std::logic_error("reduction registered twice: " + info.name);
  entries_.push_back({std::move(info), std::move(factory)});
}

template <typename T, typename Op>
const Info* Registry<T, Op>::find(std::string_view name, bool segmented) const {
  for (const Entry& e : entries_)
    if (e.info.name == name && e.info.segmented == segmented) return &e.info;
  return nullptr;
}

template <typename T, typename Op>
std::vector<std::string> Registry<T, Op>::names(bool segmented) const {
  std::vector<std::string> out;
  for (const Entry& e : entries_)
    if (e.info.segmented == segmented) out.push_back(e.info.name);
  return out;
}

template <typename T, typename Op>
std::unique_ptr<Reducer<T, Op>> Registry<T, Op>::create(std::string_view name,
                                                        bool segmented) const {
  for (const Entry& e : entries_)
    if (e.info.name == name && e.info.segmented == segmented) return e.factory();
  std::string list;
  for (const std::string& n : names(segmented)) list += (list.empty() ? "" : ", ") + n;
  throw std::invalid_argument(std::string("unknown ") + (segmented ? "segmented " : "") +
                              "reduction '" + std::string(name) + "' (registered: " + list + ")");
}

template <>
Registry<float, Sum<float>>& Registry<float, Sum<float>>::global();
template <>
Registry<int, Sum<int>>& Registry<int, Sum<int>>::global();
template <>
Registry<Aabb, AabbUnion>& Registry<Aabb, AabbUnion>::global();
template <>
Registry<Mat2u, Mat2Product>& Registry<Mat2u, Mat2Product>::global();

}  // namespace srt::reduction
