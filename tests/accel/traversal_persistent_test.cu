// The persistent-thread traversal (renderer/wavefront/intersect_persistent.cu) against
// traceClosest on the same device, bit for bit (triangle, t, barycentrics), for every variant:
// random and camera rays on the built-in Cornell box and the Conference Room, with slots, dead
// lanes, a device-side count below the launch size, counts that are not a multiple of 32 and
// empty streams. Positions the contract skips must stay unwritten.
// Without a device: the traversal steps (kdtree_traverse_persistent.cuh) driven on the host with
// random speculation against intersectClosest and intersectAny, and the CPU backend's refusal.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <memory>
#include <random>
#include <stdexcept>

#include "primitives/common/cuda_check.h"
#include "primitives/common/memory.h"
#include "renderer/accel/kdtree_traverse_persistent.cuh"
#include "renderer/wavefront/camera.h"
#include "renderer/wavefront/intersect_persistent.h"
#include "renderer/wavefront/scene_data.h"
#include "scenes/loader.h"
#include "tests/accel/kdtree_test_util.h"

namespace srt::test {
namespace {

#define SRT_REQUIRE_CUDA() \
  if (!cudaDeviceAvailable()) GTEST_SKIP() << "no CUDA device: " << cudaDeviceDescription()

constexpr uint8_t kUnwritten = 0xab;  // byte pattern of hits the tracer must not touch

// Rays for one scene: random origins in (a little beyond) the bounds with random directions, some
// axis-parallel, followed by the camera's rays through pixel centres.
struct RaySet {
  std::vector<Vec3f> origin, direction;
};

RaySet makeRaySet(const Scene& scene, const SceneView& view, uint32_t numRandom, int width,
                  int height, uint32_t seed) {
  RaySet set;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  const Bounds3f b = view.accel.bounds;
  const Vec3f extent = b.hi - b.lo;
  for (uint32_t i = 0; i < numRandom; ++i) {
    const Vec3f o(b.lo.x - 0.1f * extent.x + 1.2f * extent.x * u(rng),
                  b.lo.y - 0.1f * extent.y + 1.2f * extent.y * u(rng),
                  b.lo.z - 0.1f * extent.z + 1.2f * extent.z * u(rng));
    const float z = 2.f * u(rng) - 1.f, phi = 2.f * kPi * u(rng);
    const float r = std::sqrt(std::max(0.f, 1.f - z * z));
    Vec3f d(r * std::cos(phi), r * std::sin(phi), z);
    if (i % 16 == 0) {  // axis-parallel: zero direction components take their own branch
      d = Vec3f(0.f, 0.f, 0.f);
      d[int(i / 16 % 3)] = u(rng) < 0.5f ? -1.f : 1.f;
    }
    set.origin.push_back(o);
    set.direction.push_back(d);
  }
  const Camera cam = scene.camera ? *scene.camera : frameScene(scene, float(width) / height);
  const CameraView cv = CameraView::from(cam, width, height);
  for (uint32_t p = 0; p < uint32_t(width * height); ++p) {
    const Ray ray = cv.generate(p, {0.5f, 0.5f}, {0.5f, 0.5f});
    set.origin.push_back(ray.o);
    set.direction.push_back(ray.d);
  }
  return set;
}

// One stream configuration: which positions, slots and lanes the stream has.
struct StreamCase {
  const char* name;
  uint32_t count;
  bool slots, lanes;
  int64_t deviceCount;  // < 0: none
};

std::vector<StreamCase> streamCases(uint32_t total) {
  return {
      {"all rays", total, false, false, -1},
      {"one ray", 1, false, false, -1},
      {"31 rays", 31, false, false, -1},
      {"33 rays with slots", 33, true, false, -1},
      {"slots", total - 7, true, false, -1},
      {"dead lanes", total, false, true, -1},
      {"slots and dead lanes", total - 1000, true, true, -1},
      {"device count below count", total, false, false, total / 3 + 5},
      {"device count, slots and lanes", total - 3, true, true, 20001},
      {"device count above count", 1000, true, false, 5000},
      {"device count zero", total, false, false, 0},
      {"empty stream", 0, false, false, -1},
  };
}

class PersistentTraversal : public ::testing::Test {
 protected:
  void check(const Scene& scene, const char* sceneName) {
    backend_ = selectBackend("cuda");
    const SceneData data(scene, backend_);
    const SceneView& view = data.view();
    const RaySet set = makeRaySet(scene, view, 60000, 160, 120, 17);
    const uint32_t total = uint32_t(set.origin.size());
    const Buffer<Vec3f> origin(MemorySpace::Cuda, set.origin),
        direction(MemorySpace::Cuda, set.direction);
    // Slots: a shuffled subset, so position i reads an unrelated ray.
    std::vector<uint32_t> perm(total);
    for (uint32_t i = 0; i < total; ++i) perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), std::mt19937(5));
    const Buffer<uint32_t> slots(MemorySpace::Cuda, perm);
    std::vector<uint8_t> laneFlags(total);
    std::mt19937 rng(9);
    for (auto& f : laneFlags) f = rng() % 10 < 7;  // 30% dead lanes
    const Buffer<uint8_t> lanes(MemorySpace::Cuda, laneFlags);
    Buffer<uint32_t> deviceCount(MemorySpace::Cuda, 1);

    const std::vector<StreamCase> cases = streamCases(total);
    size_t hitsSeen = 0, missesSeen = 0;
    for (const StreamCase& c : cases) {
      SCOPED_TRACE(std::string(sceneName) + ": " + c.name);
      RayStreamRef rays = RayStreamRef::of(origin.data(), direction.data(), 0);
      rays.slots = c.slots ? slots.data() : nullptr;
      rays.lanes = c.lanes ? lanes.data() : nullptr;
      rays.count = c.count;
      const uint32_t n = c.deviceCount < 0 ? c.count : std::min(c.count, uint32_t(c.deviceCount));
      if (c.deviceCount >= 0) {
        deviceCount.upload(std::vector<uint32_t>{uint32_t(c.deviceCount)});
        rays.deviceCount = deviceCount.data();
      }
      // The reference: traceClosest over exactly the positions below n, without a device count.
      RayStreamRef refRays = rays;
      refRays.count = n;
      refRays.deviceCount = nullptr;
      const std::vector<Hit> expected = trace(view, refRays, c.count, nullptr);
      for (uint32_t i = 0; i < n; ++i) {
        if (c.lanes && !laneFlags[i]) continue;
        (expected[i].triangle == kNoHit ? missesSeen : hitsSeen) += 1;
      }
      for (PersistentVariant v : kAllPersistentVariants) {
        SCOPED_TRACE(toString(v));
        const std::vector<Hit> got = trace(view, rays, c.count, &v);
        size_t bad = 0;
        for (uint32_t i = 0; i < c.count; ++i) {
          if (std::memcmp(&got[i], &expected[i], sizeof(Hit)) == 0) continue;
          if (bad++ < 5)
            ADD_FAILURE() << "position " << i << ": persistent triangle " << got[i].triangle
                          << " t " << got[i].t << " b " << got[i].b1 << "," << got[i].b2
                          << " | traceClosest triangle " << expected[i].triangle << " t "
                          << expected[i].t << " b " << expected[i].b1 << "," << expected[i].b2;
        }
        EXPECT_EQ(bad, 0u);
      }
      // Skipped positions stay as they were, in the reference too (so the comparison above also
      // proves the persistent kernel wrote nothing there).
      uint8_t unwritten[sizeof(Hit)];
      std::memset(unwritten, kUnwritten, sizeof(Hit));
      for (uint32_t i = 0; i < c.count; ++i) {
        const bool written = i < n && (!c.lanes || laneFlags[i]);
        if (!written) ASSERT_EQ(std::memcmp(&expected[i], unwritten, sizeof(Hit)), 0) << i;
      }
    }
    checkShadows(view, set, slots, lanes, laneFlags, sceneName);
    // The comparison means something only if rays both hit and miss.
    EXPECT_GT(hitsSeen, 1000u);
    EXPECT_GT(missesSeen, 0u) << "every ray hit: the rays should include some that leave";
    std::cout << "[ " << sceneName << " ] " << data.triangleCount() << " triangles, " << hitsSeen
              << " hits and " << missesSeen << " misses compared per variant\n";
  }

  // traceShadowsPersistent against traceShadows: the same rays with finite (and some infinite)
  // tMax as shadow rays, each to its own path, the same stream cases; radiance compared bit for
  // bit.
  void checkShadows(const SceneView& view, const RaySet& set, const Buffer<uint32_t>& indices,
                    const Buffer<uint8_t>& lanes, const std::vector<uint8_t>& laneFlags,
                    const char* sceneName) {
    const uint32_t total = uint32_t(set.origin.size());
    const Bounds3f b = view.accel.bounds;
    const float diagonal = length(b.hi - b.lo);
    std::mt19937 rng(41);
    std::uniform_real_distribution<float> u(0.f, 1.f);
    std::vector<uint32_t> pathSlot(total);
    for (uint32_t i = 0; i < total; ++i) pathSlot[i] = (i * 7919u + 13u) % total;  // a bijection
    ASSERT_NE(total % 7919u, 0u);
    std::vector<float> tMax(total);
    std::vector<Vec3f> contribution(total), radiance(total);
    for (uint32_t i = 0; i < total; ++i) {
      tMax[i] = i % 50 == 0 ? kInf : diagonal * u(rng);
      contribution[i] = Vec3f(u(rng), u(rng), u(rng));
      radiance[i] = Vec3f(0.1f * float(i % 7), 1.f / float(i + 1), 0.f);
    }
    ShadowRaysStorage rays;
    rays.allocate(MemorySpace::Cuda, total);
    rays.pathSlot.upload(pathSlot);
    rays.origin.upload(set.origin);
    rays.direction.upload(set.direction);
    rays.tMax.upload(tMax);
    rays.contribution.upload(contribution);
    PathStateStorage paths;
    paths.allocate(MemorySpace::Cuda, total);
    Buffer<uint32_t> deviceCount(MemorySpace::Cuda, 1);
    size_t lit = 0, blocked = 0;
    for (const StreamCase& c : streamCases(total)) {
      SCOPED_TRACE(std::string(sceneName) + " shadows: " + c.name);
      ShadowStream stream;
      stream.rays = rays.view();
      stream.indices = c.slots ? indices.data() : nullptr;
      stream.lanes = c.lanes ? lanes.data() : nullptr;
      stream.maxCount = c.count;
      if (c.deviceCount >= 0) {
        deviceCount.upload(std::vector<uint32_t>{uint32_t(c.deviceCount)});
        stream.deviceCount = deviceCount.data();
      }
      const auto shade = [&](const PersistentVariant* v) {
        std::vector<Vec3fAnd> packed(radiance.size());
        for (size_t k = 0; k < radiance.size(); ++k) packed[k].v = radiance[k], packed[k].u = 0;
        paths.radianceDepth.upload(packed);
        if (v)
          traceShadowsPersistent(backend_, view, stream, paths.view(), *v);
        else
          traceShadows(backend_, view, stream, paths.view());
        backend_.synchronize();
        std::vector<Vec3f> out;
        for (const Vec3fAnd& q : paths.radianceDepth.download()) out.push_back(q.v);
        return out;
      };
      const std::vector<Vec3f> expected = shade(nullptr);
      size_t litHere = 0, live = 0;
      for (uint32_t i = 0; i < total; ++i)
        litHere += std::memcmp(&expected[i], &radiance[i], sizeof(Vec3f)) != 0;
      const uint32_t n = c.deviceCount < 0 ? c.count : std::min(c.count, uint32_t(c.deviceCount));
      for (uint32_t i = 0; i < n; ++i) live += !c.lanes || laneFlags[i];
      lit += litHere;
      blocked += live - litHere;  // a zero contribution would count as blocked: u(rng) > 0 here
      for (PersistentVariant v : kAllPersistentVariants) {
        SCOPED_TRACE(toString(v));
        const std::vector<Vec3f> got = shade(&v);
        size_t bad = 0;
        for (uint32_t i = 0; i < total; ++i)
          if (std::memcmp(&got[i], &expected[i], sizeof(Vec3f)) != 0 && bad++ < 5)
            ADD_FAILURE() << "path " << i << ": persistent " << got[i].x << "," << got[i].y << ","
                          << got[i].z << " | traceShadows " << expected[i].x << "," << expected[i].y
                          << "," << expected[i].z;
        EXPECT_EQ(bad, 0u);
      }
    }
    // Meaningful only if some shadow rays were blocked and some were not.
    EXPECT_GT(lit, 1000u);
    EXPECT_GT(blocked, 1000u);
    std::cout << "[ " << sceneName << " ] " << lit << " unoccluded and " << blocked
              << " blocked shadow rays compared per variant\n";
  }

  // Hits of `rays` into a buffer of `count` entries pre-filled with kUnwritten bytes; `variant`
  // null: traceClosest.
  std::vector<Hit> trace(const SceneView& view, const RayStreamRef& rays, uint32_t count,
                         const PersistentVariant* variant) {
    Buffer<Hit> hits(MemorySpace::Cuda, std::max<uint32_t>(count, 1));
    hits.fillBytes(kUnwritten);
    if (variant)
      traceClosestPersistent(backend_, view, rays, hits.data(), *variant);
    else
      traceClosest(backend_, view, rays, hits.data());
    backend_.synchronize();
    return hits.download(count);
  }

  Backend backend_;
};

TEST_F(PersistentTraversal, MatchesTraceClosestOnCornell) {
  SRT_REQUIRE_CUDA();
  check(loadScene("cornell"), "cornell");
}

TEST_F(PersistentTraversal, MatchesTraceClosestOnConferenceRoom) {
  SRT_REQUIRE_CUDA();
  const std::string path = testScenePath("conference-room/conference.obj");
  if (path.empty()) GTEST_SKIP() << "conference-room/conference.obj not under " << testScenesDir();
  check(loadScene(path), "conference");
}

// The while-while steps on the host, with speculation votes drawn at random (any length of
// speculative walk, not only what a warp would do): the same hits as intersectClosest, bit for bit,
// and the same answers as intersectAny.
template <bool kSpeculative, bool kAnyHit = false>
bool stepwiseTrace(const KdTreeView& tree, const Ray& ray, std::mt19937& rng, float pVote,
                   Hit* hit) {
  persistent::KdLane l;
  detail::KdStackEntry stack[kKdMaxDepth];
  if (!persistent::startLane(tree, ray, l)) return false;
  std::bernoulli_distribution vote(pVote);
  do {
    persistent::walkToLeaf<kSpeculative>(tree, l, stack, [&](bool) { return vote(rng); });
    persistent::testLeaf<kAnyHit>(tree, l);
  } while (!persistent::laneDone(l));
  if (l.found) *hit = l.hit;
  return l.found;
}

TEST(PersistentTraversalSteps, MatchIntersectClosestAndAnyWithAnySpeculation) {
  std::vector<TestMesh> meshes = {
      randomTriangles(3000, 3), coplanarTriangles(),   axisPlaneTriangles(), slivers(200),
      identicalTriangles(40),   degenerateTriangles(), oneTriangle()};
  for (const char* scene :
       {"cornell-box/CornellBox-Sphere.obj", "conference-room/conference.obj"}) {
    const std::string path = testScenePath(scene);
    if (!path.empty()) meshes.push_back(loadObjMesh(path));
  }
  std::mt19937 rng(23);
  for (const TestMesh& mesh : meshes) {
    SCOPED_TRACE(mesh.name);
    const KdTree tree = buildKdTreeSah(mesh.view());
    const KdTreeView view = hostView(tree, mesh.view());
    size_t hits = 0, bad = 0;
    for (RayFamily family : kAllRayFamilies) {
      for (const Ray& ray : makeRays(mesh, family, 2000, 31 + size_t(family))) {
        Hit want, plain, spec, specLong;
        const bool w = intersectClosest(view, ray, &want);
        const bool a = stepwiseTrace<false>(view, ray, rng, 0.f, &plain);
        const bool b = stepwiseTrace<true>(view, ray, rng, 0.3f, &spec);
        const bool c = stepwiseTrace<true>(view, ray, rng, 0.f, &specLong);  // to a 2nd leaf
        Hit ignored;
        const bool any = intersectAny(view, ray);
        const bool anyPlain = stepwiseTrace<false, true>(view, ray, rng, 0.f, &ignored);
        const bool anySpec = stepwiseTrace<true, true>(view, ray, rng, 0.3f, &ignored);
        if ((anyPlain != any || anySpec != any) && bad++ < 5)
          ADD_FAILURE() << toString(family) << ": intersectAny " << any << " | steps " << anyPlain
                        << " | speculative " << anySpec << " for " << describe(ray, w, want);
        hits += w;
        const auto same = [&](bool got, const Hit& h) {
          return got == w && (!w || std::memcmp(&h, &want, sizeof(Hit)) == 0);
        };
        if ((!same(a, plain) || !same(b, spec) || !same(c, specLong)) && bad++ < 5)
          ADD_FAILURE() << toString(family) << ": intersectClosest " << describe(ray, w, want)
                        << " | steps " << describe(ray, a, plain) << " | speculative "
                        << describe(ray, b, spec) << " | speculative to a second leaf "
                        << describe(ray, c, specLong);
      }
    }
    EXPECT_EQ(bad, 0u);
    if (mesh.triangleCount() > 1) EXPECT_GT(hits, 0u);
  }
}

// Needs no device: the CPU backend is refused before anything is launched.
TEST(PersistentTraversalCpu, RefusesTheCpuBackend) {
  const Backend cpu = selectBackend("cpu");
  const SceneData data(loadScene("cornell"), cpu);
  const std::vector<Vec3f> o{{0.f, 0.f, 0.f}}, d{{0.f, 0.f, 1.f}};
  const RayStreamRef rays = RayStreamRef::of(o.data(), d.data(), 1);
  Hit hit;
  try {
    traceClosestPersistent(cpu, data.view(), rays, &hit);
    FAIL() << "the CPU backend was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--traversal persistent needs the CUDA backend");
  }
  ShadowStream shadows;
  shadows.maxCount = 1;
  EXPECT_THROW(traceShadowsPersistent(cpu, data.view(), shadows, PathState{}),
               std::invalid_argument);
}

}  // namespace
}  // namespace srt::test
