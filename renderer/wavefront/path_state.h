// The wavefront streams, each described once as an X-macro list of fields (Cycles'
// state_template.h, pbrt's workitems.soa). The SoA view, the allocation, the compaction fields
// and the byte counts all expand from these lists, so adding a member is one line.
#pragma once

#include <cstdint>
#include <vector>

#include "base/math.h"
#include "primitives/common/memory.h"
#include "primitives/compaction/compaction.h"

namespace srt {

// A vector and a 4-byte companion in 16 aligned bytes. The path state is four arrays of these, so
// compaction moves a path as four 16-byte vectors and traversal loads a ray in two (as eight
// arrays of 4- and 12-byte members it took twenty scalar accesses, and compaction ran at about
// half the speed of a copy of the same bytes).
struct alignas(16) Vec3fAnd {
  Vec3f v;
  union {
    uint32_t u;
    float f;
  };
};
static_assert(sizeof(Vec3fAnd) == 16, "Vec3fAnd must stay 16 bytes");

// A path in flight. Paths of every depth share the pool, so each carries its pixel, sample and
// depth: random numbers are keyed by (pixel, sample, depth), never by stream slot.
#define SRT_PATH_FIELDS(X)                                                                   \
  X(Vec3fAnd, originPixel)     /* next ray's origin; .u: film pixel (and the RNG key) */     \
  X(Vec3fAnd, directionSample) /* next ray's direction; .u: sample index within its pixel */ \
  X(Vec3fAnd, throughputPdf)   /* f cos / pdf so far; .f: last BSDF pdf, 0 after specular */ \
  X(Vec3fAnd, radianceDepth)   /* radiance so far (to the film at death); .u: bounces so far */

// A shadow ray from next-event estimation: if unoccluded, `contribution` is added to the
// radiance of the path in `pathSlot`.
#define SRT_SHADOW_FIELDS(X) \
  X(uint32_t, pathSlot)      \
  X(Vec3f, origin)           \
  X(Vec3f, direction)        \
  X(float, tMax)             \
  X(Vec3f, contribution)

// A Whitted ray waiting on a spill stack (a glass hit's second child): the first three arrays of
// a path, the weight in place of the throughput and the depth in its 4-byte companion.
#define SRT_WHITTED_FIELDS(X)                                        \
  X(Vec3fAnd, originPixel)     /* ray origin; .u: film pixel */      \
  X(Vec3fAnd, directionSample) /* ray direction; .u: sample index */ \
  X(Vec3fAnd, weightDepth)     /* weight; .u: depth */

#define SRT_SOA_MEMBER(type, name) type* name = nullptr;
#define SRT_SOA_BUFFER(type, name) Buffer<type> name;
#define SRT_SOA_ALLOC(type, name) name = Buffer<type>(space, n);
#define SRT_SOA_VIEW(type, name) v.name = name.data();
#define SRT_SOA_BYTES(type, name) +sizeof(type)
#define SRT_SOA_FIELD(type, name) \
  out.push_back({from.name.data(), to.name.data(), uint32_t(sizeof(type))});

// Declares <Name> (a plain view of device or host pointers, passed by value to stages) and
// <Name>Storage (the owning buffers).
#define SRT_DECLARE_SOA(Name, FIELDS)                                                \
  struct Name {                                                                      \
    FIELDS(SRT_SOA_MEMBER)                                                           \
    static constexpr size_t kBytesPerElement = 0 FIELDS(SRT_SOA_BYTES);              \
  };                                                                                 \
  struct Name##Storage {                                                             \
    FIELDS(SRT_SOA_BUFFER)                                                           \
    size_t capacity = 0;                                                             \
    void allocate(MemorySpace space, size_t n) {                                     \
      FIELDS(SRT_SOA_ALLOC)                                                          \
      capacity = n;                                                                  \
    }                                                                                \
    Name view() const {                                                              \
      Name v;                                                                        \
      FIELDS(SRT_SOA_VIEW)                                                           \
      return v;                                                                      \
    }                                                                                \
    /* One compaction field per member, moving elements from `from` to `to`. */      \
    static void compactionFields(const Name##Storage& from, const Name##Storage& to, \
                                 std::vector<compaction::Field>& out) {              \
      FIELDS(SRT_SOA_FIELD)                                                          \
    }                                                                                \
  };

SRT_DECLARE_SOA(PathState, SRT_PATH_FIELDS)
SRT_DECLARE_SOA(ShadowRays, SRT_SHADOW_FIELDS)
SRT_DECLARE_SOA(WhittedRays, SRT_WHITTED_FIELDS)

}  // namespace srt
