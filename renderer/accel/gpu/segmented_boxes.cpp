// BoxReducer and the list of segmented reductions the GPU kd-tree build accepts: the only code of
// the build that names srt::reduction::Aabb.
#include "renderer/accel/gpu/segmented_boxes.h"

#include <cstddef>
#include <stdexcept>
#include <type_traits>

#include "primitives/common/name_list.h"

namespace srt {
namespace {

using reduction::Aabb;
using BoxRegistry = reduction::Registry<Aabb, reduction::AabbUnion>;
using IntRegistry = reduction::Registry<int, reduction::Sum<int>>;

// The reduction reads and writes the build's Bounds3f arrays as Aabb arrays: same size, alignment
// and member offsets (lo then hi, three floats each), and the same empty box (+inf / -inf, the
// union's identity and Bounds3f's default).
static_assert(sizeof(Aabb) == sizeof(Bounds3f) && alignof(Aabb) == alignof(Bounds3f));
static_assert(sizeof(Vec3f) == 3 * sizeof(float) && alignof(Vec3f) == alignof(float));
static_assert(offsetof(Aabb, lo) == offsetof(Bounds3f, lo) &&
              offsetof(Aabb, hi) == offsetof(Bounds3f, hi));
static_assert(std::is_standard_layout_v<Aabb> && std::is_standard_layout_v<Bounds3f> &&
              std::is_trivially_copyable_v<Bounds3f>);

}  // namespace

std::vector<reduction::Info> gpuKdSegmentedReductions() {
  std::vector<reduction::Info> out;
  for (const auto& e : BoxRegistry::global().entries())
    if (e.info.segmented && IntRegistry::global().find(e.info.name, true)) out.push_back(e.info);
  return out;
}

std::vector<std::string> gpuKdSegmentedReductionNames() {
  std::vector<std::string> names;
  for (const reduction::Info& i : gpuKdSegmentedReductions()) names.push_back(i.name);
  return names;
}

void checkGpuKdSegreduce(const std::string& name, const std::string& what) {
  const std::vector<std::string> names = gpuKdSegmentedReductionNames();
  for (const std::string& n : names)
    if (n == name) return;
  throw std::invalid_argument(what + ": unknown segmented reduction '" + name +
                              "' (registered: " + commaList(names) + ")");
}

namespace kdgpu {

struct BoxReducer::Impl {
  std::unique_ptr<reduction::Reducer<Aabb, reduction::AabbUnion>> reducer;
};

BoxReducer::BoxReducer(const std::string& name)
    : impl_(new Impl{BoxRegistry::global().createSegmented(name)}),
      layout_(BoxRegistry::global().find(name, true)->layout) {}

BoxReducer::~BoxReducer() = default;

void BoxReducer::reserve(uint32_t maxCount, uint32_t maxSegments) {
  impl_->reducer->reserve(maxCount, maxSegments);
}

void BoxReducer::reduce(const Bounds3f* in, uint32_t count, Bounds3f* out, uint32_t segments,
                        const uint32_t* owners, const uint32_t* offsets, cudaStream_t stream,
                        bool outHoldsIdentity) {
  reduction::Request<Aabb> r;
  r.in = reinterpret_cast<const Aabb*>(in);
  r.out = reinterpret_cast<Aabb*>(out);
  r.count = count;
  r.numSegments = segments;
  r.owners = owners;
  r.offsets = offsets;
  r.stream = stream;
  r.outHoldsIdentity = outHoldsIdentity;
  impl_->reducer->reduce(r);
}

}  // namespace kdgpu
}  // namespace srt
