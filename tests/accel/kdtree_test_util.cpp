#include "tests/accel/kdtree_test_util.h"

#include <tiny_obj_loader.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>

namespace srt::test {

TriangleMeshView TestMesh::view() const {
  TriangleMeshView v;
  v.positions = positions.data();
  v.indices = indices.data();
  v.triangleCount = triangleCount();
  return v;
}

Bounds3f TestMesh::bounds() const {
  Bounds3f b;
  for (const Vec3f& p : positions)
    if (std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z)) b.extend(p);
  return b;
}

void TestMesh::addTriangle(Vec3f a, Vec3f b, Vec3f c) {
  for (const Vec3f& p : {a, b, c}) {
    indices.push_back(uint32_t(positions.size()));
    positions.push_back(p);
  }
}

std::string testScenePath(const std::string& relative) {
  const std::string path = testScenesDir() + "/" + relative;
  return std::ifstream(path).good() ? path : std::string();
}

TestMesh loadObjMesh(const std::string& path) {
  tinyobj::ObjReaderConfig config;
  config.triangulate = true;
  config.vertex_color = false;
  config.mtl_search_path = "";  // materials are not needed here
  tinyobj::ObjReader reader;
  if (!reader.ParseFromFile(path, config))
    throw std::runtime_error("cannot read OBJ " + path + ": " + reader.Error());
  TestMesh mesh;
  mesh.name = path.substr(path.find_last_of('/') + 1);
  const auto& v = reader.GetAttrib().vertices;
  for (size_t i = 0; i + 2 < v.size(); i += 3) mesh.positions.push_back({v[i], v[i + 1], v[i + 2]});
  for (const auto& shape : reader.GetShapes())
    for (const auto& idx : shape.mesh.indices) {
      if (idx.vertex_index < 0 || size_t(idx.vertex_index) >= mesh.positions.size())
        throw std::runtime_error(path + ": vertex index out of range in shape " + shape.name);
      mesh.indices.push_back(uint32_t(idx.vertex_index));
    }
  return mesh;
}

TestMesh emptyMesh() {
  TestMesh m;
  m.name = "empty";
  return m;
}

TestMesh oneTriangle() {
  TestMesh m;
  m.name = "one-triangle";
  m.addTriangle({-1, -1, 0.3f}, {1, -0.5f, 0.1f}, {0.2f, 1, -0.4f});
  return m;
}

TestMesh degenerateTriangles() {
  TestMesh m;
  m.name = "degenerate";
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  const float nan = std::nanf("");
  for (int i = 0; i < 200; ++i) {
    const Vec3f a(u(rng), u(rng), u(rng)), b(u(rng), u(rng), u(rng)), c(u(rng), u(rng), u(rng));
    switch (i % 6) {
      case 0:
        m.addTriangle(a, a + (b - a) * 0.1f, a + (c - a) * 0.1f);
        break;  // small, fine
      case 1:
        m.addTriangle(a, a, b);
        break;  // two equal
      case 2:
        m.addTriangle(a, a, a);
        break;  // a point
      case 3:
        m.addTriangle(a, lerp(0.3f, a, b), b);
        break;  // collinear
      case 4:
        m.addTriangle(a, b, Vec3f(nan, c.y, c.z));
        break;  // not finite
      default:
        m.addTriangle({a.x, a.y, 0}, {b.x, a.y, 0}, {a.x, a.y, 0});
        break;  // axis line
    }
  }
  return m;
}

TestMesh coplanarTriangles() {
  TestMesh m;
  m.name = "coplanar";
  // Plane through the origin with normal (1, 2, 3): every triangle twice (exact t ties).
  const Vec3f e1 = normalize(Vec3f(2, -1, 0)), e2 = normalize(cross(Vec3f(1, 2, 3), e1));
  const int n = 24;
  for (int pass = 0; pass < 2; ++pass)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        auto p = [&](int a, int b) {
          return e1 * (float(a) / n - 0.5f) + e2 * (float(b) / n - 0.5f);
        };
        m.addTriangle(p(i, j), p(i + 1, j), p(i + 1, j + 1));
        m.addTriangle(p(i, j), p(i + 1, j + 1), p(i, j + 1));
      }
  return m;
}

TestMesh axisPlaneTriangles() {
  TestMesh m;
  m.name = "axis-plane";
  const int n = 32;
  auto p = [&](int a, int b) { return Vec3f(float(a) / n, float(b) / n * 0.7f, 0.25f); };
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      m.addTriangle(p(i, j), p(i + 1, j), p(i + 1, j + 1));
      m.addTriangle(p(i, j), p(i + 1, j + 1), p(i, j + 1));
    }
  return m;
}

const char* toString(RayFamily f) {
  switch (f) {
    case RayFamily::Inside:
      return "inside";
    case RayFamily::Outside:
      return "outside";
    case RayFamily::AxisParallel:
      return "axis-parallel";
    case RayFamily::Grazing:
      return "grazing";
    case RayFamily::ShortRays:
      return "short";
  }
  return "?";
}

std::vector<Ray> makeRays(const TestMesh& mesh, RayFamily family, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u01(0.f, 1.f);
  Bounds3f b = mesh.bounds();
  if (b.empty()) b = {Vec3f(-1.f), Vec3f(1.f)};
  const Vec3f c = b.center();
  const float radius = std::max(0.5f * length(b.diagonal()), 1e-3f);
  for (int k = 0; k < 3; ++k) {  // flat meshes: give origins room off the plane
    const float minExtent = 0.2f * std::max(maxComponent(b.diagonal()), 1e-3f);
    if (b.hi[k] - b.lo[k] < minExtent) b.lo[k] -= minExtent, b.hi[k] += minExtent;
  }
  auto inBox = [&](float grow) {
    const Vec3f d = b.diagonal();
    return Vec3f(b.lo.x + d.x * (u01(rng) * (1 + 2 * grow) - grow),
                 b.lo.y + d.y * (u01(rng) * (1 + 2 * grow) - grow),
                 b.lo.z + d.z * (u01(rng) * (1 + 2 * grow) - grow));
  };
  auto sphereDir = [&]() {
    const float z = 1.f - 2.f * u01(rng), phi = 2.f * kPi * u01(rng);
    const float r = std::sqrt(std::max(0.f, 1.f - z * z));
    return Vec3f(r * std::cos(phi), r * std::sin(phi), z);
  };
  const uint32_t triCount = mesh.triangleCount();
  auto vertex = [&](uint32_t tri, int k) { return mesh.positions[mesh.indices[3 * tri + k]]; };
  auto randomTri = [&]() { return uint32_t(u01(rng) * float(triCount)) % triCount; };
  auto finiteVec = [](Vec3f p) {
    return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
  };
  std::vector<Ray> rays;
  while (rays.size() < n) {
    Ray r;
    switch (family) {
      case RayFamily::Inside:
        r.o = inBox(0.f);
        r.d = sphereDir();
        break;
      case RayFamily::Outside:
        r.o = c + sphereDir() * (radius * (1.2f + 2.f * u01(rng)));
        r.d = normalize(inBox(0.05f) - r.o);
        break;
      case RayFamily::AxisParallel: {
        r.o = inBox(0.1f);
        if (triCount > 0 && u01(rng) < 0.7f) {  // origin coordinates on vertex coordinates
          const Vec3f v = vertex(randomTri(), int(u01(rng) * 3) % 3);
          if (finiteVec(v)) {
            const int keep = int(u01(rng) * 3) % 3;
            for (int k = 0; k < 3; ++k)
              if (k != keep) r.o[k] = v[k];
          }
        }
        const int axis = int(u01(rng) * 3) % 3;
        r.d = Vec3f(0.f);
        r.d[axis] = u01(rng) < 0.5f ? -1.f : 1.f;
        break;
      }
      case RayFamily::Grazing: {
        if (triCount == 0) {
          r.o = inBox(0.5f);
          r.d = sphereDir();
          break;
        }
        const uint32_t tri = randomTri();
        const int e = int(u01(rng) * 3) % 3;
        const Vec3f a = vertex(tri, e), bb = vertex(tri, (e + 1) % 3);
        if (!finiteVec(a) || !finiteVec(bb)) continue;
        const float mode = u01(rng);
        if (mode < 0.15f && !(a == bb)) {  // along the edge's line
          r.o = a - (bb - a) * (0.5f + u01(rng));
          r.d = normalize(bb - a);
        } else {  // at a point of the edge (a vertex one time in five)
          const float t = mode < 0.3f ? 0.f : u01(rng);
          const Vec3f p = a + (bb - a) * t;
          r.o = p + sphereDir() * (radius * (0.05f + u01(rng)));
          r.d = normalize(p - r.o);
        }
        break;
      }
      case RayFamily::ShortRays:
        r.o = inBox(0.2f);
        r.d = sphereDir();
        r.tMax = radius * 0.5f * u01(rng);
        break;
    }
    if (!finiteVec(r.d) || (r.d.x == 0.f && r.d.y == 0.f && r.d.z == 0.f)) continue;
    rays.push_back(r);
  }
  return rays;
}

bool bruteClosest(const TriangleMeshView& mesh, const Ray& ray, Hit* hit) {
  bool found = false;
  float tMax = ray.tMax;
  for (uint32_t t = 0; t < mesh.triangleCount; ++t)
    if (intersectMeshTriangle(mesh, t, ray, tMax, hit)) found = true, tMax = hit->t;
  return found;
}

bool bruteAny(const TriangleMeshView& mesh, const Ray& ray) {
  Hit h;
  for (uint32_t t = 0; t < mesh.triangleCount; ++t)
    if (intersectMeshTriangle(mesh, t, ray, ray.tMax, &h)) return true;
  return false;
}

bool sameClosest(bool hitA, const Hit& a, bool hitB, const Hit& b) {
  if (hitA != hitB) return false;
  if (!hitA || a.triangle == b.triangle) return true;
  return std::fabs(a.t - b.t) <= 1e-4f * std::max(std::fabs(a.t), std::fabs(b.t));
}

std::string describe(const Ray& r, bool hit, const Hit& h) {
  std::ostringstream s;
  s.precision(9);
  s << "ray o=(" << r.o.x << "," << r.o.y << "," << r.o.z << ") d=(" << r.d.x << "," << r.d.y << ","
    << r.d.z << ") tMax=" << r.tMax;
  if (hit)
    s << " hit tri " << h.triangle << " t=" << h.t;
  else
    s << " miss";
  return s.str();
}

TestMesh identicalTriangles(int n) {
  TestMesh m;
  m.name = "identical-" + std::to_string(n);
  for (int i = 0; i < n; ++i) m.addTriangle({0, 0, 0}, {1, 0.2f, 0.1f}, {0.3f, 1, -0.2f});
  return m;
}

// Only non-finite triangles: nothing to build, one empty leaf.
TestMesh nonFiniteTriangles() {
  TestMesh m;
  m.name = "non-finite";
  const float nan = std::nanf(""), inf = std::numeric_limits<float>::infinity();
  m.addTriangle({nan, 0, 0}, {1, 0, 0}, {0, 1, 0});
  m.addTriangle({0, 0, 0}, {inf, 0, 0}, {0, 1, 0});
  return m;
}

// Slivers spanning the scene's longest axis: every median split along it duplicates all of them.
TestMesh slivers(int n) {
  TestMesh m;
  m.name = "slivers-" + std::to_string(n);
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  for (int i = 0; i < n; ++i) {
    const float y = u(rng), z = u(rng);
    m.addTriangle({-10.f, y, z}, {10.f, y + 0.01f, z}, {10.f, y, z + 0.01f});
  }
  return m;
}

TestMesh randomTriangles(int n, uint32_t seed) {
  TestMesh m;
  m.name = "random-" + std::to_string(n);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f), s(0.f, 0.08f);
  for (int i = 0; i < n; ++i) {
    const Vec3f c(u(rng), u(rng) * 0.5f, u(rng) * 2.f);
    m.addTriangle(c, c + Vec3f(s(rng), s(rng), s(rng)), c + Vec3f(s(rng), -s(rng), s(rng)));
  }
  return m;
}

std::vector<GpuBuildScene> gpuBuildScenes() {
  return {{"cornell-box/CornellBox-Original.obj", 1.1},
          {"cornell-box/CornellBox-Sphere.obj", 1.12},
          {"teapot/teapot.obj", 1.1},
          {"conference-room/conference.obj", 1.1}};
}

}  // namespace srt::test
