// A diagnostic for "the image depends on the kd-tree": with SRT_DUAL_TREE_CHECK=<file>, SceneData
// also builds a second tree over the same mesh, and after every closest-hit and shadow trace of
// the pool integrator the check traces the same rays again, with the standard traversal and the
// default persistent kernel, against both trees. Every ray whose five results (the integrator's
// own hit, then standard and persistent on each tree) are not bit-identical is written to <file>
// (the first SRT_DUAL_TREE_MAX, default 1000) with its ray as hex floats, so
// streamrt-dual-tree-replay can trace it again on the host. <file>.summary counts the rays checked
// and differing so far (rewritten after every pass: a quick process exit loses nothing).
//
// Other settings:
//   SRT_DUAL_TREE_BUILDER  cpu | gpu-host | gpu: the second tree's builder (default cpu, or gpu
//                          (gpu-host on the CPU backend) when the render's tree is the CPU one).
//   SRT_DUAL_TREE_DUMP=1   also writes both trees as <file>.primary.kdtree, <file>.second.kdtree
//                          (a device-built tree cannot be rebuilt bit for bit on the host).
// The check synchronises after every trace and doubles the tracing work: for diagnosis only.
// Static scenes only (a per-frame rebuild turns it off).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "primitives/common/memory.h"
#include "renderer/accel/device_kdtree.h"
#include "renderer/wavefront/dual_tree_check_format.h"
#include "renderer/wavefront/stages.h"

namespace srt {

// Counters on the backend's memory (atomics in the check kernels).
struct DualTreeCounters {
  unsigned long long closestRays = 0, shadowRays = 0;
  unsigned long long closestDiffering = 0, shadowDiffering = 0;
  uint32_t records = 0;  // records claimed (may pass the buffer's size; only that many are kept)
};

class DualTreeCheck {
 public:
  // What SceneData knows when it has built the render's tree.
  struct Inputs {
    std::string primaryBuilder;   // the render's builder (cpu, gpu, gpu-host)
    const DeviceKdTree* primary;  // the render's tree
    TriangleMeshView hostMesh;    // host positions and indices (for the host builders)
    TriangleMeshView deviceMesh;  // the same in the backend's memory (for the GPU builder)
    TriangleMeshView tracedMesh;  // deviceMesh with the traversal's corners
    KdBuildOptions sah;           // the CPU builder's options
    GpuKdBuildOptions gpu;        // the GPU builder's (SAH constants applied)
  };
  // Null unless SRT_DUAL_TREE_CHECK names a file. Throws std::invalid_argument for a bad setting.
  static std::unique_ptr<DualTreeCheck> fromEnvironment(const Backend& backend, const Inputs& in);
  DualTreeCheck(const Backend& backend, const Inputs& in, const std::string& path,
                const std::string& secondBuilder, uint32_t maxRecords, bool dumpTrees);
  ~DualTreeCheck();

  // After the integrator traced `rays` into `hits` against scene.accel: traces them again.
  void closest(const Backend& b, const SceneView& scene, const RayStreamRef& rays, const Hit* hits);
  // After the integrator traced `shadows` (their occlusion is recomputed: the trace itself only
  // adds light to `state`, which this reads for pixels).
  void shadows(const Backend& b, const SceneView& scene, const ShadowStream& shadows,
               const PathState& state);

  const DualTreeCounters& counters() const { return counters_; }
  const KdTreeView& secondView() const { return secondView_; }

 private:
  void flush(const Backend& b);

  std::string path_;
  std::string secondBuilder_;
  uint32_t maxRecords_;
  std::unique_ptr<DeviceKdTree> second_;
  KdTreeView secondView_;
  Buffer<DualTreeCounters> deviceCounters_;
  Buffer<DualTreeRecord> records_;
  Buffer<Hit> primaryHits_, secondHits_;         // persistent re-traces (CUDA)
  Buffer<Vec3fAnd> primaryLight_, secondLight_;  // shadow rays' persistent re-traces
  Buffer<uint32_t> identity_;                    // shadow ray j adds to light[j]
  Buffer<Vec3f> ones_;
  DualTreeCounters counters_;
  uint32_t written_ = 0;
  uint32_t pass_ = 0;
};

}  // namespace srt
