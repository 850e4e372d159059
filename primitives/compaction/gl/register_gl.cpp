// The OpenGL no-scatter family: one line per variant, with the options it takes (read in
// gl_options.cpp; every variant also takes interop=, sync=, payload=, map=, indices= and count=,
// gl_compactors.h). Factories read their options first (a bad option is an error even without GL),
// then make the compactor, which throws GlUnavailable ("no OpenGL 4.5 context: ...") when no
// context can be made; listing and Registry::check() never touch GL.
#include "primitives/compaction/compaction.h"
#include "primitives/compaction/gl/gl_compactors.h"

namespace srt::compaction {

namespace {

using namespace gl;

// A function, not a global: the registry may be filled while other files' statics are made.
std::vector<MemorySpace> bothSpaces() {
  return {MemorySpace::Host, MemorySpace::Cuda};
}

// A block-framework method's factory, from its defaults and the options given.
Factory blockFactory(BlockMethod m, uint32_t s, ScanKind scan) {
  BlockOptions o;
  o.method = m;
  o.block = s;
  o.scan = scan;
  o.improvedSearch = false;  // Fig. 5 measured slower on the H100: bench/gl/RESULTS.md
  // Roger: one search a texel, the next kept bits for the rest (H200: search 0.355 -> 0.272 ms
  // at 4M, the same image in the tracer).
  o.nextSearch = m == BlockMethod::Roger;
  // Roger's concatenation: the output in bands of two rows, the two-texel offset fetch and the
  // heads written by the lines (H200, 4M: GL passes 1.073 -> 0.723 ms, the same image).
  o.bands = o.autoConcat = o.autoHeads = m == BlockMethod::Roger;
  // Roger's scan of block counts in radix-8 steps: 5 passes instead of 15 at 4M (H200: GL
  // passes 0.723 -> 0.685 ms, the Conference Room's render 153 -> 148 ms, the same image).
  o.radix = m == BlockMethod::Roger ? 8 : 2;
  return [o](OptionReader& options) -> std::unique_ptr<Compactor> {
    const BlockOptions read = readBlockOptions(o, options);
    options.finish();  // unknown keys are errors before any GL work
    return makeBlockCompactor(read);
  };
}

// How the stream is shared with CUDA and which side moves the payload: every variant.
std::vector<OptionSpec> interopOptions() {
  return std::vector<OptionSpec>{
      choiceOption("interop", "auto", {"auto", "vulkan", "vmm", "registered", "host"}),
      choiceOption("sync", "auto", {"auto", "semaphores", "fences"}),
      choiceOption("payload", "auto", {"auto", "gl", "cuda"}),
      choiceOption("map", "held", {"held", "call"}),
      choiceOption("indices", "texture", {"copy", "texture"}),
      choiceOption("count", "host", {"host", "device"})};
}

// What readBlockOptions() takes for each method (block: not for Horn, over the whole stream).
std::vector<OptionSpec> blockOptions(BlockMethod m, int block, const char* scan) {
  std::vector<OptionSpec> o = interopOptions();
  if (m != BlockMethod::Horn) o.push_back(powerOfTwoOption("block", block, 8, 2048));
  o.push_back(choiceOption("scan", scan, {"hillis-steele", "blelloch", "sengupta"}));
  o.push_back(intOption("parallelism", 1 << 17, 1, 1 << 30));
  o.push_back(powerOfTwoOption("radix", m == BlockMethod::Roger ? 8 : 2, 2, 32));
  o.push_back(choiceOption("output", "quad", {"quad", "element"}));
  if (m == BlockMethod::Roger) {
    o.push_back(choiceOption("search", "next", {"plain", "improved", "next"}));
    o.push_back(choiceOption("offsets", "block", {"block", "aligned", "wide"}));
    o.push_back(choiceOption("wrap", "geometry", {"geometry", "draw-twice", "vertex"}));
    o.push_back(choiceOption("diag", "none", {"none", "concat"}));
    o.push_back(choiceOption("invalidate", "none", {"none", "output"}));
    o.push_back(choiceOption("concat", "auto", {"auto", "quarters", "pair"}));
    o.push_back(choiceOption("heads", "auto", {"auto", "points", "inline"}));
    o.push_back(choiceOption("layout", "bands", {"rows", "bands"}));
  }
  if (m == BlockMethod::Rlz) o.push_back(choiceOption("runs", "doubling", {"doubling", "sweep"}));
  return o;
}

void registerRoger(Registry& r) {
  r.add({"gl-roger", Device::Gl, true, true, bothSpaces(),
         "Roger 2007: scan + search inside blocks, blocks joined by line drawing"},
        blockFactory(BlockMethod::Roger, 128, ScanKind::HillisSteele),
        blockOptions(BlockMethod::Roger, 128, "hillis-steele"));
}

void registerHorn(Registry& r) {
  r.add({"gl-horn", Device::Gl, true, true, bothSpaces(),
         "Horn 2005: Hillis-Steele scan + binary gather search over the whole stream"},
        blockFactory(BlockMethod::Horn, 0, ScanKind::HillisSteele),
        blockOptions(BlockMethod::Horn, 0, "hillis-steele"));
  r.add({"gl-horn-blelloch", Device::Gl, true, true, bothSpaces(),
         "Horn's gather search over a Blelloch scan of the whole stream"},
        blockFactory(BlockMethod::Horn, 0, ScanKind::Blelloch),
        blockOptions(BlockMethod::Horn, 0, "blelloch"));
}

void registerGsPacking(Registry& r) {
  r.add(
      {"gl-gs-packing", Device::Gl, true, true, bothSpaces(),
       "geometry shader drops discarded elements, transform feedback packs the rest (baseline)"},
      [](OptionReader& options) -> std::unique_ptr<Compactor> {
        const InteropOptions interop = readInteropOptions(options);
        options.finish();
        return makeGsPackingCompactor(interop);
      },
      interopOptions());
}

void registerMoreira(Registry& r) {
  r.add({"gl-jumping-jack", Device::Gl, false, true, bothSpaces(),
         "Moreira 2009 in blocks: holes filled from the block's end, not order-preserving"},
        blockFactory(BlockMethod::JumpingJack, 128, ScanKind::HillisSteele),
        blockOptions(BlockMethod::JumpingJack, 128, "hillis-steele"));
  r.add({"gl-rlz", Device::Gl, true, true, bothSpaces(),
         "Moreira 2010 in blocks: scan of run lengths of discarded elements, forward search"},
        blockFactory(BlockMethod::Rlz, 128, ScanKind::HillisSteele),
        blockOptions(BlockMethod::Rlz, 128, "hillis-steele"));
  r.add({"gl-binary-tree", Device::Gl, true, true, bothSpaces(),
         "Moreira 2010 in blocks: reduction tree of kept counts, one traversal per survivor "
         "(scan: of the block counts)"},
        blockFactory(BlockMethod::BinaryTree, 128, ScanKind::HillisSteele),
        blockOptions(BlockMethod::BinaryTree, 128, "hillis-steele"));
}

}  // namespace

// In the listing's order: Roger, Horn's two, the GS packing baseline, Moreira's three.
void registerGlCompactors(Registry& r) {
  registerRoger(r);
  registerHorn(r);
  registerGsPacking(r);
  registerMoreira(r);
}

}  // namespace srt::compaction
