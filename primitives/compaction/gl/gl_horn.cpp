// Horn 2005 (and Horn's search over a Blelloch or Sengupta scan): one prefix sum of the empty
// flags over the whole stream, every pass in the narrowest format its values fit (8 bits while a
// Hillis-Steele step sums at most 255 flags, then 16, then 32), the first step reading the keep
// bytes itself; then a binary search per output position that writes the survivor's fields.
#include "primitives/compaction/gl/gl_block_compactor.h"
#include "primitives/gl/gl_context.h"

namespace srt::compaction::gl {
namespace {

class HornCompactor final : public GlStreamCompactor {
 public:
  explicit HornCompactor(const BlockOptions& o) : GlStreamCompactor(o.interop), o_(o) {}

 private:
  bool wantsQuad() const override { return o_.quadOutput; }
  void run(uint32_t n, const Emit& emit) override {
    Source empties;
    empties.kind = Source::EmptyBytes;
    empties.count = n;
    empties.keepBytes = keepBytes_.id();
    empties.keepCount = n;
    pSum_ = &passes_.scanInclusive(empties, nextPow2(n), o_.scan, o_.parallelism, o_.radix,
                                   elemLog2w_, "scan");
    n_ = n;
    passes_.mark("scan");
    if (emit.targets.empty()) return;
    Program& p = passes_.program("horn_search.frag", emit.fragment);
    p.bindTexture("pSumTex", 0, *pSum_);
    p.set("pSumLog2w", elemLog2w_);
    p.set("count", n);
    p.set("steps", log2u(nextPow2(n)) + 1);
    p.set("log2w", emit.layout.log2Width);
    emit.bind(p);
    passes_.draw(p, emit.targets, emit.layout, uint64_t(n) * srt::gl::texelBytes(pSum_->format()));
    PassRecord& r = passes_.lastPass();
    r.written = 0;  // positions past the survivors discard
    r.readPerKept = emit.readPerKept;
    r.writtenPerKept = emit.writtenPerKept;
    passes_.mark("search");
  }

  uint32_t keptCount() override { return n_ - readTexel(*pSum_, elemLog2w_, n_ - 1); }

  BlockOptions o_;
  const Texture* pSum_ = nullptr;
  uint32_t n_ = 0;
};

}  // namespace

std::unique_ptr<GlCompactor> makeHornCompactor(const BlockOptions& options) {
  return std::make_unique<HornCompactor>(options);
}

}  // namespace srt::compaction::gl
