// The OpenGL no-scatter compaction family. Every variant finds the survivors with fragment passes
// that only gather (no SSBO or image stores, no atomics, no compute shaders), plus line drawing
// for Roger's concatenation and transform feedback for the geometry-shader baseline. Passes move
// as few bytes as their algorithm allows: keep flags become bits (128 to a texel), in-block counts
// and offsets take 8- or 16-bit formats, the first level of a scan is computed where it is read
// (popcounts of the bits), and the final pass of each algorithm writes the fields themselves
// (fields of 4, 8 or 16 bytes, up to eight at once as render targets); other fields are moved by
// gather passes from the survivors' indices, sixteen bytes per fragment.
//
// Keep flags and fields are read straight from buffers (buffer textures). Streams in host memory
// are uploaded into them; streams in CUDA memory share them with GL (buffers registered once
// and mapped once a call, external memory only when asked for: gl_interop.h). By default
// (payload=cuda) GL computes only the survivors' indices and the stream's own side gathers the
// fields by them; payload=gl has GL's final pass write the fields. compact() waits on the host for
// the survivor count only; on CUDA memory the moves after it are queued on the request's stream.
// lastTransferMs() is the time spent crossing between CUDA (or the host) and GL: host time of the
// interop calls and waits, plus the GPU time of copies and read-backs no host wait covered.
// lastStepTimes() has the GL passes apart (and the stream side's gather, "payload gather
// (cuda|host)"; host times as "host: ..." rows: the interop's maps, unmaps, copies and waits, the
// wait for the passes, the count's read-back), lastPasses() the bytes of each, choiceSummary() the
// interop that runs.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "primitives/compaction/compaction.h"

namespace srt::compaction::gl {

enum class ScanKind { HillisSteele, Blelloch, Sengupta };
enum class InteropKind { Auto, Vulkan, Vmm, Registered, Host };
enum class SyncKind { Auto, Semaphores, Fences };
enum class PayloadSide { Auto, Gl, Stream };

// How streams cross between their memory and GL (every GL primitive takes these options):
// interop=auto|vulkan|vmm|registered|host, sync=auto|semaphores|fences, payload=auto|gl|cuda,
// map=held|call, indices=copy|texture, count=host|device.
// auto: registered buffers, else host copies (CUDA <-> host <-> GL), each checked by a round
// trip under a deadline first; external memory (Vulkan, then CUDA VMM) is tried before them only
// with SRT_GL_INTEROP_EXTERNAL=1 (a failed external path can wedge GL or CUDA, see
// bench/gl/RESULTS.md). Semaphores where they can be made, else host waits; the payload gathered
// by CUDA for CUDA streams and written by GL for host streams (payload=cuda on host streams
// gathers on the host). map=held|call (registered buffers, payload on CUDA): held maps the keep
// flags' and the indices' buffers for CUDA once a call, for the gather, and keeps them mapped
// until the next call's flags are copied in (one map and one unmap a call, no host wait); call is
// the earlier way (a map, a copy, an unmap and a host wait in; another map and unmap out).
// indices=copy|texture (registered buffers, payload on CUDA, output in a texture): copy has GL
// copy the survivors' indices from its output texture into a registered buffer; texture
// registers that texture with CUDA and the gather reads it through a texture object (no copy;
// the default: the tracer's interop share fell from 19.0% to 7.7% on an H200).
// count=host|device (registered buffers, payload on CUDA, after the first call): device has GL
// pack the survivor count into a registered buffer the gather reads (with indices=texture), so
// the host neither waits for GL's passes nor reads the count back.
struct InteropOptions {
  InteropKind interop = InteropKind::Auto;
  SyncKind sync = SyncKind::Auto;
  PayloadSide payload = PayloadSide::Auto;
  bool holdMapping = true;
  bool indicesFromTexture = true;
  bool countOnDevice = false;
};
// Throws std::invalid_argument naming a bad value.
InteropOptions readInteropOptions(OptionReader& options);
enum class BlockMethod { Roger, Horn, JumpingJack, Rlz, BinaryTree };
// How Roger's concatenation wraps a block's line at a row end: the geometry shader splits it
// (the default), every line is drawn twice (III-C's fallback), or one draw of four vertices a
// block has the vertex shader place both pieces (no geometry stage, one draw).
enum class Wrap { Geometry, DrawTwice, Vertex };

struct BlockOptions {
  BlockMethod method = BlockMethod::Roger;
  uint32_t block = 128;                    // s: a power of two, 8..2048 (Horn: the whole stream)
  ScanKind scan = ScanKind::HillisSteele;  // inside blocks and over the block counts
  bool improvedSearch = true;              // Roger: Fig. 5's search; false: fixed-length loop
  Wrap wrap = Wrap::Geometry;              // Roger: wrap=geometry|draw-twice|vertex
  bool rlSweep = false;                    // RLZ run lengths by up/down-sweep, not doubling
  bool quadOutput = true;                  // final pass: four 4-byte elements per fragment
  uint32_t parallelism = 1u << 17;         // Sengupta: reduce until a level is this small
  // Roger: search=next searches only a texel's first position (of four); the next three are the
  // kept elements that follow it (consecutive positions of a block), found from the bits.
  bool nextSearch = false;
  // Roger, blocks up to 128: offsets=aligned (4) or wide (16) has the search lay the in-block
  // offsets out in output texels (the scan of block counts first), 4 or 16 positions a fragment,
  // so the concatenation fetches one texel per output texel; 0 (offsets=block): the paper's
  // layout. Applies to quad output (other outputs take the block layout).
  uint32_t alignedPositions = 0;
  // Hillis-Steele steps of radix r: each pass adds r - 1 earlier elements, so a scan of 2^k
  // takes ceil(k / log2 r) passes instead of k (2: the paper's doubling).
  uint32_t radix = 2;
  // Roger, diag=concat (bench only): before the concatenation, the same draw reduced step by
  // step, each timed as a step "diag: ..." outside the GL total (gl_concat.h).
  bool diagnoseConcat = false;
  // Roger, invalidate=output: the output's old contents are invalidated (glInvalidateTexImage)
  // before the concatenation draws, so the driver need not keep them (the lines rewrite every
  // texel that is read).
  bool invalidateOutput = false;
  // Roger, concat=pair (offsets=block, blocks up to 256: 8-bit offsets; quad output): each
  // fragment fetches the two texels of in-block offsets its four elements lie in, once each and
  // without a size query; concat=quarters (default): one clamped fetch an element.
  bool pairFetch = false;
  bool autoConcat = false;  // concat=auto: pair where it applies, else quarters
  // Roger, heads=inline (quad output): the line's last fragment also writes the elements of the
  // blocks that start inside its texel (found on the scan of kept counts), so no head points
  // pass; heads=points (default): one point a block, OR-ed in by a logic op.
  bool inlineHeads = false;
  bool autoHeads = false;  // heads=auto: inline where the output is in bands, else points
  // Roger, layout=bands (quad output of survivor indices read by CUDA from the texture, or by
  // the host): output texel t in bands of two rows (column (t mod 2w) / 2, row 2 (t / 2w) +
  // t mod 2), each block's line two pixels wide from the vertex shader, so its writes fill 2x2
  // quads and whole memory sectors; layout=rows (default): row-major, lines one pixel high.
  // Where the output is read otherwise (fields written by GL, indices copied), rows.
  bool bands = false;
  InteropOptions interop;
};

// Reads "block", "scan", "search", "offsets", "wrap", "diag", "invalidate", "concat", "heads",
// "layout",
// "runs", "parallelism", "output" as
// `defaults.method` takes them, and the interop options; throws std::invalid_argument naming a bad
// value (block=100, scan=foo).
BlockOptions readBlockOptions(BlockOptions defaults, OptionReader& options);

// What one fragment of a pass executes, counted by hand from its GLSL (bench/gl/RESULTS.md:
// loops unrolled, constants folded; integer adds, logic, shifts, compares and selects as ALU;
// bitCount and findMSB as one bit op, findLSB as two; texelFetch and textureSize as fetches).
// Zero where not counted: that pass's roof is its bytes alone.
struct OpCount {
  float alu = 0, bitOps = 0, fetches = 0;
};

// One pass as the roof sees it: the bytes it reads and writes, the texel size of its first
// target, how many targets, whether it is a full-target pass or line drawing, and its fragments
// with the work of each.
struct PassRecord {
  std::string step;
  uint32_t texelBytes = 4;
  uint32_t targets = 1;
  uint64_t read = 0, written = 0;
  bool lines = false;
  // Passes that write only survivors (line drawing, searches that discard): bytes per survivor,
  // added to read and written once the count is known.
  uint32_t readPerKept = 0, writtenPerKept = 0;
  uint64_t fragments = 0;         // full-target passes: the target's texels (the viewport)
  uint32_t keptPerFragment = 0;   // line passes: fragments = survivors / this, added with them
  uint64_t primitives = 0;        // line passes: the lines drawn (one a block)
  OpCount ops;                    // per fragment
  uint32_t program = 0;           // the GL program that ran it (for the driver's statistics)
};

class GlCompactor : public Compactor {
 public:
  // GPU milliseconds per step of the last compact(), from GL timer queries, in pass order
  // ("upload", "flags", "scan in blocks", "search", ..., "gather", "readback").
  virtual std::vector<std::pair<std::string, double>> lastStepTimes() const = 0;
  // The passes of the last compact(), in order, each with its step's name.
  virtual std::vector<PassRecord> lastPasses() const = 0;
};

// Throw srt::gl::GlUnavailable ("no OpenGL 4.5 context: ...") when no context can be made.
std::unique_ptr<GlCompactor> makeBlockCompactor(const BlockOptions& options);
std::unique_ptr<GlCompactor> makeGsPackingCompactor(const InteropOptions& interop);

}  // namespace srt::compaction::gl
