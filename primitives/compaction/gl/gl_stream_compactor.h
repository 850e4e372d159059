// The part every GL compactor shares: moving keep flags and fields into textures (uploads, or
// CUDA-GL interop on CUDA memory), one gather pass per field once an algorithm has produced the
// compacted stream of source indices, the read-back, the count and the timings.
#pragma once

#include <chrono>
#include <memory>

#include "primitives/compaction/gl/gl_passes.h"
#include "primitives/gl/cuda_gl_buffer.h"
#include "primitives/gl/gl_objects.h"

namespace srt::compaction::gl {

class GlStreamCompactor : public GlCompactor {
  // First member: a GL context is current before any GL object below is made. Throws
  // GlUnavailable.
  struct CurrentContext {
    CurrentContext();
  } context_;

 public:
  void reserve(uint32_t maxCount) override;
  void compact(const Request& r) override;
  double lastTransferMs() const override { return transferMs_; }
  std::vector<std::pair<std::string, double>> lastStepTimes() const override { return steps_; }

 protected:
  struct Indices {
    Texture* texture = nullptr;  // element k: source index of the k-th survivor
    Layout layout;               // count = survivors
  };
  // The algorithm: from the keep flags (R8UI, layout `keep`) to the indices; marks its steps.
  virtual Indices computeIndices(Texture& keep, const Layout& keepLayout) = 0;
  // Smallest texture width the algorithm needs (Roger: the block, so a segment wraps once).
  virtual uint32_t minWidth() const { return 1; }
  // Reads one element of a stream back to the host (waits for the GPU).
  uint32_t readValue(Texture& t, const Layout& l, uint32_t index);

  GlPasses passes_;
  srt::gl::StepTimer timer_;
  uint32_t log2Width_ = 0;  // width of every index stream, chosen from the capacity

 private:
  struct FieldFormat {
    GLenum internal, format;
    uint32_t texelBytes, tpe;  // texel size, texels per element
  };
  static FieldFormat fieldFormat(uint32_t bytes);
  Layout fieldLayout(uint32_t elements, uint32_t bytes);
  void upload(const Request& r, Texture& keep, const Layout& keepLayout);
  void readBack(const Request& r, const Indices& idx);

  uint32_t capacity_ = 0;
  double transferMs_ = 0;
  std::vector<std::pair<std::string, double>> steps_;
  // Interop buffers (CUDA memory only): keep flags, then per field the source and the result.
  srt::gl::CudaGlBuffer keepBuffer_;
  std::vector<std::unique_ptr<srt::gl::CudaGlBuffer>> inBuffers_, outBuffers_;
  uint32_t hostCount_ = 0;  // numKept's source for the asynchronous copy to CUDA memory
};

}  // namespace srt::compaction::gl
