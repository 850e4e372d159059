// The checks of animated scenes run on each backend: moving the instances to time t
// (SceneData::setTime, on the backend) gives the bits of a scene loaded at t from scratch
// (flatten() on the host), and so the same image; the per-frame tree statistics, when asked for,
// are those of the host's walk of the same tree.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "primitives/common/cuda_check.h"
#include "tests/render/render_test_util.h"

namespace srt::test {

// A static floor, a spinning, scaled and sliding sphere with normals, and a second animated
// instance of the same mesh with one keyframe; an odd vertex count so no block is full.
inline Scene movingSpheres(bool movingLight) {
  Scene s;
  s.name = "moving-spheres";
  Material grey, light;
  grey.name = "grey", grey.kd = Vec3f(0.6f);
  light.name = "light", light.ke = Vec3f(4.f);
  s.materials = {grey, light};
  Mesh floor = makeQuad(Vec3f(-3.f, -1.f, -3.f), Vec3f(6.f, 0.f, 0.f), Vec3f(0.f, 0.f, 6.f), 0);
  Mesh sphere = makeSphere(Vec3f(0.f), 0.7f, 37);
  sphere.materialIds.assign(sphere.triangleCount(), 0);
  Mesh lamp = makeQuad(Vec3f(-0.5f, 2.f, -0.5f), Vec3f(1.f, 0.f, 0.f), Vec3f(0.f, 0.f, 1.f), 1);
  floor.normals.assign(floor.positions.size(), Vec3f(0.f, 1.f, 0.f));
  lamp.normals.assign(lamp.positions.size(), Vec3f(0.f, -1.f, 0.f));
  s.meshes = {floor, sphere, lamp};
  Instance still;  // mesh 0
  Instance spinning;
  spinning.mesh = 1;
  spinning.keyframes = {{0.f, {-1.f, 0.f, 0.f}, {0.3f, 1.f, 0.2f}, 0.f, {1.f, 1.f, 1.f}},
                        {1.f, {1.2f, 0.3f, -0.5f}, {0.3f, 1.f, 0.2f}, 170.f, {1.3f, 0.8f, 1.1f}}};
  Instance fixedKey;
  fixedKey.mesh = 1;
  fixedKey.transform = Transform::translate({0.f, 0.f, -2.f});
  fixedKey.keyframes = {{0.f, {0.5f, 0.f, 0.f}, {0.f, 0.f, 1.f}, 30.f, {0.5f, 0.5f, 0.5f}}};
  Instance lampInstance;
  lampInstance.mesh = 2;
  if (movingLight)
    lampInstance.keyframes = {{0.f, {0.f, 0.f, 0.f}, {0.f, 1.f, 0.f}, 0.f, {1.f, 1.f, 1.f}},
                              {1.f, {0.4f, 0.2f, 0.f}, {0.f, 1.f, 0.f}, 45.f, {1.5f, 1.f, 1.5f}}};
  s.instances = {still, spinning, fixedKey, lampInstance};
  s.environment = Vec3f(0.1f);
  s.animationEnd = 1.f;
  Camera c;
  c.position = Vec3f(0.f, 1.f, 5.f);
  c.target = Vec3f(0.f, 0.f, 0.f);
  s.camera = c;
  return s;
}

template <typename T>
inline std::vector<T> onHost(const T* p, size_t n, const Backend& backend) {
  std::vector<T> v(n);
  if (n == 0) return v;
  backend.synchronize();
  if (backend.isCuda())
    SRT_CUDA_CHECK(cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
  else
    std::memcpy(v.data(), p, n * sizeof(T));
  return v;
}

template <typename T>
inline bool sameBits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// Moved from 0 to t (through another time) against loaded at t: positions, normals and corners.
inline void expectMovedEqualsLoaded(const Backend& backend, const AccelOptions& accel,
                                    bool movingLight) {
  const Scene scene = movingSpheres(movingLight);
  const size_t vertices = flatten(scene).positions.size(), corners = 3 * scene.triangleCount();
  for (float t : {0.37f, 1.f, 0.f}) {
    SceneData moved(scene, backend, 0.f, accel);
    moved.setTime(scene, 0.8f);
    moved.setTime(scene, t);
    const SceneData loaded(scene, backend, t, accel);
    const SceneView &a = moved.view(), &b = loaded.view();
    EXPECT_TRUE(sameBits(onHost(a.accel.mesh.positions, vertices, backend),
                         onHost(b.accel.mesh.positions, vertices, backend)))
        << "t = " << t;
    EXPECT_TRUE(
        sameBits(onHost(a.normals, vertices, backend), onHost(b.normals, vertices, backend)))
        << "t = " << t;
    EXPECT_TRUE(sameBits(onHost(a.accel.mesh.corners, corners, backend),
                         onHost(b.accel.mesh.corners, corners, backend)))
        << "t = " << t;
    EXPECT_EQ(a.emitters.count, b.emitters.count);
    EXPECT_TRUE(sameBits(onHost(a.emitters.areas, a.emitters.count, backend),
                         onHost(b.emitters.areas, b.emitters.count, backend)))
        << "t = " << t;
  }
}

// The first build's statistics always, later ones only when asked for, equal to the host's walk.
inline void expectTreeStats(const Backend& backend, AccelOptions accel) {
  const Scene scene = movingSpheres(false);
  SceneData quiet(scene, backend, 0.f, accel);
  EXPECT_TRUE(quiet.accelReport().treeComputed);
  EXPECT_GT(quiet.accelReport().tree.nodes, 0u);
  quiet.setTime(scene, 0.5f);
  EXPECT_FALSE(quiet.accelReport().treeComputed);
  EXPECT_EQ(quiet.accelReport().tree.nodes, 0u);
  AccelOptions unasked = accel;  // a render whose statistics nobody reads
  unasked.firstTreeStats = false;
  const SceneData silent(scene, backend, 0.f, unasked);
  EXPECT_FALSE(silent.accelReport().treeComputed);
  EXPECT_EQ(silent.accelReport().tree.nodes, 0u);

  accel.rebuildTreeStats = true;
  SceneData asked(scene, backend, 0.f, accel);
  asked.setTime(scene, 0.5f);
  const AccelBuildReport& r = asked.accelReport();
  ASSERT_TRUE(r.treeComputed);
  const SceneData loaded(scene, backend, 0.5f, accel);
  const KdTreeStats& e = loaded.accelReport().tree;  // the same build from the same bits
  EXPECT_EQ(r.tree.nodes, e.nodes);
  EXPECT_EQ(r.tree.leaves, e.leaves);
  EXPECT_EQ(r.tree.emptyLeaves, e.emptyLeaves);
  EXPECT_EQ(r.tree.maxDepth, e.maxDepth);
  EXPECT_EQ(r.tree.primReferences, e.primReferences);
  EXPECT_EQ(r.tree.avgPrimsPerLeaf, e.avgPrimsPerLeaf);
  EXPECT_EQ(r.tree.sahCost, e.sahCost);
}

inline Image renderAt(const Backend& backend, const AccelOptions& accel, float loadTime,
                      std::initializer_list<float> times) {
  RenderOptions o;
  o.width = 37, o.height = 29, o.spp = 2, o.maxDepth = 4;
  Renderer r(movingSpheres(true), backend, o, accel, loadTime);
  Image img;
  for (float t : times) img = r.render(t).image;
  return img;
}

// Frames played in order, each render announcing the next frame's time (Renderer::setNextTime),
// with the kd-tree overlap as `overlap` says (SRT_KD_OVERLAP unset for the test). `times` may
// repeat a time or break the announced order (the prefetch is then dropped). Each frame's image,
// and in `overlapped` whether its tree was the one built beside the frame before.
struct PlayedFrames {
  std::vector<Image> images;
  std::vector<bool> overlapped;
};

inline PlayedFrames playFrames(const Backend& backend, AccelOptions accel,
                               const std::string& overlap, const std::vector<float>& times,
                               const std::vector<float>& announced, bool movingLight = false) {
  unsetenv("SRT_KD_OVERLAP");
  accel.overlap = overlap;
  RenderOptions o;
  o.width = 37, o.height = 29, o.spp = 2, o.maxDepth = 4;
  Renderer r(movingSpheres(movingLight), backend, o, accel, 0.f);
  PlayedFrames out;
  for (size_t i = 0; i < times.size(); ++i) {
    if (i < announced.size()) r.setNextTime(announced[i]);
    RenderResult result = r.render(times[i]);
    out.images.push_back(std::move(result.image));
    out.overlapped.push_back(result.stats.accel.overlapped);
  }
  return out;
}

// Every frame of a timeline played with the overlap `on` is the frame played without it, bit for
// bit, and the frames announced in time were built beside the render before them.
inline void expectOverlapKeepsTheFrames(const Backend& backend, const AccelOptions& accel,
                                        const std::string& on) {
  // Frame 3 breaks the announced order (0.6 announced, 0.7 shown); frame 4 repeats a time.
  const std::vector<float> times = {0.2f, 0.4f, 0.7f, 0.7f, 0.9f, 0.1f};
  const std::vector<float> announced = {0.4f, 0.6f, 0.9f, 0.9f, 0.1f};
  const PlayedFrames serial = playFrames(backend, accel, "off", times, announced);
  const PlayedFrames overlapped = playFrames(backend, accel, on, times, announced);
  const std::vector<bool> expected = {false, true, false, false, true, true};
  for (size_t i = 0; i < times.size(); ++i) {
    EXPECT_TRUE(bitIdentical(serial.images[i], overlapped.images[i])) << "frame " << i;
    EXPECT_FALSE(serial.overlapped[i]) << "frame " << i;
    EXPECT_EQ(overlapped.overlapped[i], expected[i]) << "frame " << i;
  }
  EXPECT_FALSE(bitIdentical(serial.images[0], serial.images[1]));  // the scene did move
  // A moving light keeps the serial path (its emitters are rebuilt on the host).
  const PlayedFrames lit = playFrames(backend, accel, on, {0.2f, 0.4f}, {0.4f}, true);
  EXPECT_FALSE(lit.overlapped[1]);
}

}  // namespace srt::test
