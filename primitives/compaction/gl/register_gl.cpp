// The OpenGL no-scatter family: one line per variant (options in gl_options.cpp; every variant
// also takes interop=, sync= and payload=, gl_compactors.h). Factories read
// their options first (a bad option is an error even without GL), then make the compactor, which
// throws GlUnavailable
// ("no OpenGL 4.5 context: ...") when no context can be made; listing never touches GL.
#include "primitives/compaction/compaction.h"
#include "primitives/compaction/gl/gl_compactors.h"

namespace srt::compaction {

void registerGlCompactors(Registry& r) {
  using namespace gl;
  const std::vector<MemorySpace> both{MemorySpace::Host, MemorySpace::Cuda};
  auto block = [](BlockMethod m, uint32_t s, ScanKind scan) {
    BlockOptions o;
    o.method = m;
    o.block = s;
    o.scan = scan;
    o.improvedSearch = false;  // Fig. 5 measured slower on the H100: bench/gl/RESULTS.md
    return [o](OptionReader& options) -> std::unique_ptr<Compactor> {
      const BlockOptions read = readBlockOptions(o, options);
      options.finish();  // unknown keys are errors before any GL work
      return makeBlockCompactor(read);
    };
  };
  r.add({"gl-roger", Device::Gl, true, true, both,
         "Roger 2007: scan + search inside blocks, blocks joined by line drawing "
         "(block=128, scan=hillis-steele|blelloch|sengupta, search=plain|improved, "
         "wrap=geometry|draw-twice, output=quad|element; every gl-* primitive also takes "
         "interop=auto|vulkan|vmm|registered, sync=auto|semaphores|fences, payload=auto|gl|cuda)"},
        block(BlockMethod::Roger, 128, ScanKind::HillisSteele));
  r.add({"gl-horn", Device::Gl, true, true, both,
         "Horn 2005: Hillis-Steele scan + binary gather search over the whole stream (scan=..., "
         "output=...)"},
        block(BlockMethod::Horn, 0, ScanKind::HillisSteele));
  r.add({"gl-horn-blelloch", Device::Gl, true, true, both,
         "Horn's gather search over a Blelloch scan of the whole stream"},
        block(BlockMethod::Horn, 0, ScanKind::Blelloch));
  r.add({"gl-gs-packing", Device::Gl, true, true, both,
         "geometry shader drops discarded elements, transform feedback packs the rest (baseline)"},
        [](OptionReader& options) -> std::unique_ptr<Compactor> {
          const InteropOptions interop = readInteropOptions(options);
          options.finish();
          return makeGsPackingCompactor(interop);
        });
  r.add({"gl-jumping-jack", Device::Gl, false, true, both,
         "Moreira 2009 in blocks: holes filled from the block's end, not order-preserving "
         "(block=128, scan=...)"},
        block(BlockMethod::JumpingJack, 128, ScanKind::HillisSteele));
  r.add({"gl-rlz", Device::Gl, true, true, both,
         "Moreira 2010 in blocks: scan of run lengths of discarded elements, forward search "
         "(block=128, runs=doubling|sweep, scan=...)"},
        block(BlockMethod::Rlz, 128, ScanKind::HillisSteele));
  r.add({"gl-binary-tree", Device::Gl, true, true, both,
         "Moreira 2010 in blocks: reduction tree of kept counts, one traversal per survivor "
         "(block=128, scan=... for the block counts)"},
        block(BlockMethod::BinaryTree, 128, ScanKind::HillisSteele));
}

}  // namespace srt::compaction
