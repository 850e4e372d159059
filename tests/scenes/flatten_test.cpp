// flatten(): the instances' geometry in one set of arrays, written in parallel; every element as
// the sequential definition makes it, bit for bit.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "base/transform_normal.h"
#include "scenes/scene.h"

namespace srt {
namespace {

Mesh randomMesh(uint32_t vertices, uint32_t triangles, bool uvs, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-3.f, 3.f);
  Mesh m;
  for (uint32_t v = 0; v < vertices; ++v) {
    m.positions.push_back({u(rng), u(rng), u(rng)});
    m.normals.push_back(normalize(Vec3f{u(rng), u(rng), u(rng) + 7.f}));
    if (uvs) m.uvs.push_back({u(rng), u(rng)});
  }
  for (uint32_t t = 0; t < triangles; ++t) {
    for (int k = 0; k < 3; ++k) m.indices.push_back(uint32_t(rng() % vertices));
    m.materialIds.push_back(t % 3);
  }
  return m;
}

// The sequential definition, instance after instance.
FlatGeometry flattenOneByOne(const Scene& s, float time) {
  FlatGeometry g;
  bool normals = true, uvs = true;
  for (const Instance& i : s.instances) {
    normals &= s.meshes[i.mesh].normals.size() == s.meshes[i.mesh].positions.size();
    uvs &= s.meshes[i.mesh].uvs.size() == s.meshes[i.mesh].positions.size();
  }
  for (const Instance& i : s.instances) {
    const Mesh& m = s.meshes[i.mesh];
    const Transform x = i.transformAt(time);
    const uint32_t base = uint32_t(g.positions.size());
    for (size_t v = 0; v < m.positions.size(); ++v) {
      g.positions.push_back(x.point(m.positions[v]));
      if (normals) g.normals.push_back(normalByInverse(x.inverse(), m.normals[v]));
      if (uvs) g.uvs.push_back(m.uvs[v]);
    }
    for (uint32_t k : m.indices) g.indices.push_back(base + k);
    g.materialIds.insert(g.materialIds.end(), m.materialIds.begin(), m.materialIds.end());
  }
  return g;
}

template <typename T>
bool sameBits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

void expectFlattenedAsOneByOne(const Scene& s, float time) {
  const FlatGeometry got = flatten(s, time), want = flattenOneByOne(s, time);
  EXPECT_TRUE(sameBits(got.positions, want.positions));
  EXPECT_TRUE(sameBits(got.normals, want.normals));
  EXPECT_TRUE(sameBits(got.uvs, want.uvs));
  EXPECT_TRUE(sameBits(got.indices, want.indices));
  EXPECT_TRUE(sameBits(got.materialIds, want.materialIds));
}

Scene instancedScene(bool everyMeshHasUvs) {
  Scene s;
  s.meshes.push_back(randomMesh(50000, 70001, true, 1));  // parallel: past 65536 corners
  s.meshes.push_back(randomMesh(3, 1, everyMeshHasUvs, 2));
  s.meshes.push_back(randomMesh(777, 1001, true, 3));
  Instance a;
  a.mesh = 0;
  a.transform = Transform::translate({1.f, -2.f, 0.5f}) * Transform::rotate(33.f, {1.f, 2.f, 3.f}) *
                Transform::scale({2.f, 0.5f, 1.5f});
  Instance b;
  b.mesh = 1;
  Instance c;
  c.mesh = 2;
  c.keyframes = {Keyframe{0.f, {0.f, 0.f, 0.f}, {0.f, 1.f, 0.f}, 0.f, {1.f, 1.f, 1.f}},
                 Keyframe{1.f, {4.f, 0.f, 0.f}, {0.f, 1.f, 0.f}, 90.f, {1.f, 2.f, 1.f}}};
  // The first mesh twice, the second time mirrored.
  s.instances = {a, b, c, a};
  s.instances[3].transform = Transform::scale({-1.f, 1.f, 1.f});
  return s;
}

TEST(Flatten, ParallelArraysAreTheSequentialOnes) {
  expectFlattenedAsOneByOne(instancedScene(true), 0.f);
  expectFlattenedAsOneByOne(instancedScene(true), 0.3f);
}

TEST(Flatten, UvsOnlyWhenEveryMeshHasThem) {
  const Scene s = instancedScene(false);
  expectFlattenedAsOneByOne(s, 0.7f);
  EXPECT_TRUE(flatten(s).uvs.empty());
  EXPECT_EQ(flatten(s).normals.size(), flatten(s).positions.size());
}

TEST(Flatten, EmptySceneAndEmptyMesh) {
  Scene s;
  const FlatGeometry none = flatten(s);
  EXPECT_TRUE(none.positions.empty() && none.indices.empty() && none.materialIds.empty());
  s.meshes.push_back(Mesh{});
  s.instances.push_back(Instance{});
  expectFlattenedAsOneByOne(s, 0.f);
}

}  // namespace
}  // namespace srt
