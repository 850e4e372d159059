// The OpenGL no-scatter compaction family. Every variant computes the compacted stream
// of source indices with fragment passes that only gather (no SSBO or image stores, no atomics,
// no compute shaders), plus line drawing for Roger's concatenation and transform feedback for the
// geometry-shader baseline; then a gather pass per field moves the payload (fields as 32-bit
// integer textures, one to four components per texel, so any multiple of 4 bytes moves).
//
// Streams in host memory are uploaded and read back; streams in CUDA memory cross through CUDA-GL
// interop buffers registered once. compact() is synchronous: it waits for the survivor count.
// lastTransferMs() = host time of the CUDA-side copies (or of the host uploads/read-backs) plus
// the GL time of the texture fills and read-backs; lastStepTimes() has the GL passes apart.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "primitives/compaction/compaction.h"

namespace srt::compaction::gl {

enum class ScanKind { HillisSteele, Blelloch, Sengupta };
enum class BlockMethod { Roger, Horn, JumpingJack, Rlz, BinaryTree };

struct BlockOptions {
  BlockMethod method = BlockMethod::Roger;
  uint32_t block = 64;                     // s: a power of two, 8..2048 (Horn: the whole stream)
  ScanKind scan = ScanKind::HillisSteele;  // inside blocks and over the block counts
  bool improvedSearch = true;              // Roger: Fig. 5's search; false: fixed-length loop
  bool drawTwice = false;                  // Roger III-C fallback: no geometry shader
  bool rlSweep = false;                    // RLZ run lengths by up/down-sweep, not doubling
  uint32_t parallelism = 1u << 17;         // Sengupta: reduce until a level is this small
};

// Reads "block", "scan", "search", "wrap", "runs", "parallelism" as `defaults.method` takes
// them; throws std::invalid_argument naming a bad value (block=100, scan=foo).
BlockOptions readBlockOptions(BlockOptions defaults, OptionReader& options);

class GlCompactor : public Compactor {
 public:
  // GPU milliseconds per step of the last compact(), from GL timer queries, in pass order
  // ("upload", "scan in blocks", "search", ..., "gather", "readback").
  virtual std::vector<std::pair<std::string, double>> lastStepTimes() const = 0;
};

// Throw srt::gl::GlUnavailable ("no OpenGL 4.5 context: ...") when no context can be made.
std::unique_ptr<GlCompactor> makeBlockCompactor(const BlockOptions& options);
std::unique_ptr<GlCompactor> makeGsPackingCompactor();

}  // namespace srt::compaction::gl
