// The block framework (Roger 2007; Moreira 2010): keep flags -> bits -> a reduction inside blocks
// of s elements (prefix sum + search, run lengths, or a binary tree) writing in-block offsets ->
// a scan of the kept counts per block -> the blocks' prefixes concatenated by drawing one line per
// block, whose fragments write the survivors' fields. Inside a block of up to 128 elements the
// prefix sums are popcounts of one bits texel, so Roger's and Jumping Jack's scan in blocks needs
// no pass there; larger blocks add a scan over the 128-element groups.
#include <stdexcept>

#include "primitives/compaction/gl/gl_block_compactor.h"
#include "primitives/compaction/gl/gl_concat.h"
#include "primitives/compaction/gl/gl_costs.h"
#include "primitives/gl/gl_context.h"

namespace srt::compaction::gl {
namespace {

class BlockCompactor final : public GlStreamCompactor {
 public:
  explicit BlockCompactor(const BlockOptions& o) : GlStreamCompactor(o.interop), o_(o) {}

 private:
  uint32_t minWidth() const override { return o_.block; }
  bool wantsQuad() const override { return o_.quadOutput; }
  bool wantsBands() const override { return o_.bands && wideLinesWork(); }
  void run(uint32_t n, const Emit& emit) override;
  uint32_t keptCount() override { return readTexel(*blockScan_, blockLog2w_, numBlocks_ - 1); }
  bool countTexel(const Texture** t, uint32_t* log2w, uint32_t* index) const override {
    *t = blockScan_;
    *log2w = blockLog2w_;
    *index = numBlocks_ - 1;
    return true;
  }

  Source bitsSource(Source::Kind kind, uint32_t count, uint64_t maxValue) const;
  // The reduction inside blocks: in-block offsets four to a texel into `local` (when `search`),
  // and the kept count of each block as a source.
  Source reduceBlocks(uint32_t padded, bool search, Texture& local);
  // reduceBlocks() for each method: Moreira's run lengths, his binary tree, and the prefix sums
  // of Roger and Jumping Jack.
  Source reduceRunLengths(uint32_t padded, bool search, Texture& local);
  Source reduceBinaryTree(uint32_t padded, bool search, Texture& local);
  Source reducePrefixSums(uint32_t padded, bool search, Texture& local);
  // The pass of those reductions that writes the in-block offsets into `local`.
  void drawSearch(Program& p, uint32_t padded, Texture& local, uint64_t read, OpCount ops = {});
  std::string blockDefine() const;
  const Texture& runLengths(uint32_t padded);
  // offsets=aligned|wide: `positions` in-block offsets a fragment, laid out in output texels.
  void searchAligned(uint32_t padded, uint32_t positions, Texture& local, const Layout& ll);
  void concatenate(const Texture& local, uint32_t localLog2w, const Emit& emit, uint32_t aligned);

  BlockOptions o_;
  const Texture* bits_ = nullptr;
  const Texture* blockScan_ = nullptr;
  uint32_t numBlocks_ = 0, numGroups_ = 0;
};

Source BlockCompactor::bitsSource(Source::Kind kind, uint32_t count, uint64_t maxValue) const {
  Source s;
  s.kind = kind;
  s.count = count;
  s.maxValue = maxValue;
  s.bits = bits_;
  s.bitsLog2w = groupLog2w_;
  s.blockLog2 = log2u(o_.block);
  return s;
}

void BlockCompactor::run(uint32_t n, const Emit& emit) {
  const uint32_t s = o_.block;
  const uint32_t padded = (n + s - 1) / s * s;
  numBlocks_ = padded / s;
  numGroups_ = (padded + 127) / 128;

  const Layout lg{numGroups_, groupLog2w_};
  Texture& bits = passes_.texture("bits", GL_RGBA32UI, lg);
  Program& flags = passes_.program("flags.frag");
  flags.bindTexture("keepWords", kUnitKeep, keepWords_.id());
  flags.set("count", n);
  flags.set("log2w", groupLog2w_);
  passes_.draw(flags, bits, lg, n);
  passes_.lastPass().ops = costs::flags();
  bits_ = &bits;
  passes_.mark("flags");

  const bool search = !emit.targets.empty();
  // offsets=aligned|wide: the block counts come from the bits, so their scan runs first and the
  // search lays the offsets out in output texels.
  const uint32_t aligned = search && emit.quad ? o_.alignedPositions : 0;
  const Layout ll =
      aligned == 16 ? Layout{padded / 16, blockLog2w_} : Layout{padded / 4, quadLog2w_};
  Texture& local = passes_.texture("local",
                                   aligned == 16 ? GL_RGBA32UI
                                   : s <= 256    ? GL_RGBA8UI
                                                 : GL_RGBA16UI,
                                   ll);
  const Source kept =
      aligned ? bitsSource(Source::BlockKept, numBlocks_, s) : reduceBlocks(padded, search, local);
  blockScan_ = &passes_.scanInclusive(kept, nextPow2(numBlocks_), o_.scan, o_.parallelism, o_.radix,
                                      blockLog2w_, "countscan");
  passes_.mark("scan of block counts");
  if (aligned) searchAligned(padded, aligned, local, ll);
  if (search) {
    concatenate(local, ll.log2Width, emit, aligned);
    passes_.mark("concatenate");
  }
}

void BlockCompactor::searchAligned(uint32_t padded, uint32_t positions, Texture& local,
                                   const Layout& ll) {
  std::string defines = blockDefine();
  if (positions == 16) defines += "#define SRT_WIDE\n";
  if (!o_.nextSearch) defines += "#define SRT_PLAIN_SELECT\n";
  Program& p = passes_.program("search_aligned.frag", defines);
  p.set("count", padded);
  p.set("log2w", ll.log2Width);
  p.bindTexture("bits", kUnitBits, *bits_);
  p.set("bitsLog2w", groupLog2w_);
  p.bindTexture("blockScan", 0, *blockScan_);
  p.set("blockLog2w", blockLog2w_);
  passes_.draw(p, local, ll,
               padded / 8 + uint64_t(numBlocks_) * srt::gl::texelBytes(blockScan_->format()));
  passes_.lastPass().written = 0;  // texels wholly past a block's survivors are discarded
  passes_.lastPass().writtenPerKept = 1;
  passes_.lastPass().ops = costs::searchAligned(positions, o_.nextSearch);
  passes_.mark("search");
}

std::string BlockCompactor::blockDefine() const {
  return "#define BLOCK_LOG2 " + std::to_string(log2u(o_.block)) + "\n";
}

Source BlockCompactor::reduceBlocks(uint32_t padded, bool search, Texture& local) {
  if (o_.method == BlockMethod::Rlz) return reduceRunLengths(padded, search, local);
  if (o_.method == BlockMethod::BinaryTree) return reduceBinaryTree(padded, search, local);
  return reducePrefixSums(padded, search, local);
}

void BlockCompactor::drawSearch(Program& p, uint32_t padded, Texture& local, uint64_t read,
                                OpCount ops) {
  const Layout ll{padded / 4, quadLog2w_};
  p.set("count", padded);
  p.set("log2w", quadLog2w_);
  p.bindTexture("bits", kUnitBits, *bits_);
  p.set("bitsLog2w", groupLog2w_);
  passes_.draw(p, local, ll, read);
  // Texels wholly past a block's survivors are discarded: count what is written by survivors.
  passes_.lastPass().written = 0;
  passes_.lastPass().writtenPerKept = srt::gl::texelBytes(local.format()) / 4;
  passes_.lastPass().ops = ops;
  passes_.mark("search");
}

Source BlockCompactor::reduceRunLengths(uint32_t padded, bool search, Texture& local) {
  const uint32_t s = o_.block;
  const Texture& runs = runLengths(padded);
  passes_.mark("run lengths");
  Source filtered = Source::fromTexture(runs, elemLog2w_, padded, s);
  filtered.runMask = s - 1;  // the filter of run starts, read where the scan reads
  const Texture& prl = passes_.scanInclusive(filtered, s, o_.scan, o_.parallelism, o_.radix,
                                             elemLog2w_, "blockscan");
  passes_.mark("scan in blocks");
  if (search) {
    Program& p = passes_.program("rlz_search.frag", blockDefine());
    p.bindTexture("prlSum", 0, prl);
    p.set("prlLog2w", elemLog2w_);
    drawSearch(p, padded, local, uint64_t(padded) * srt::gl::texelBytes(prl.format()));
  }
  Source kept = Source::fromTexture(prl, elemLog2w_, numBlocks_, s);
  kept.stride = s;
  kept.offset = s - 1;
  kept.complement = s;
  return kept;
}

Source BlockCompactor::reduceBinaryTree(uint32_t padded, bool search, Texture& local) {
  const uint32_t blockLog2 = log2u(o_.block);
  std::vector<Source> levels;
  if (blockLog2 > 7) {
    levels = passes_.reduceLevels(bitsSource(Source::GroupKept, numGroups_, 128),
                                  int(blockLog2 - 7), false, groupLog2w_, "tree");
    passes_.mark("tree");
  }
  if (search) {
    Program& p = passes_.program("bt_traverse.frag", blockDefine());
    uint64_t read = padded / 8;
    for (size_t d = 1; d < levels.size(); ++d) {
      const std::string i = std::to_string(d - 1);
      p.bindTexture(("levels[" + i + "]").c_str(), int(d - 1), *levels[d].texture);
      p.set(("levelLog2w[" + i + "]").c_str(), groupLog2w_);
      read += levels[d].bytesFor(levels[d].count);
    }
    drawSearch(p, padded, local, read);
  }
  if (levels.empty()) return bitsSource(Source::BlockKept, numBlocks_, o_.block);
  return levels.back();
}

// Roger and Jumping Jack: pSum from the bits, plus a scan of group counts for large blocks.
Source BlockCompactor::reducePrefixSums(uint32_t padded, bool search, Texture& local) {
  const uint32_t s = o_.block, blockLog2 = log2u(s);
  const Texture* groupScan = nullptr;
  if (blockLog2 > 7) {
    groupScan = &passes_.scanInclusive(bitsSource(Source::GroupKept, numGroups_, 128), s / 128,
                                       o_.scan, o_.parallelism, o_.radix, groupLog2w_, "blockscan");
    passes_.mark("scan in blocks");
  }
  if (search) {
    // search=next as a define: the default shader stays as it was (a uniform branch around the
    // loop cost the plain search 13% on llvmpipe).
    const bool next = o_.nextSearch && o_.method == BlockMethod::Roger;
    Program& p =
        passes_.program(o_.method == BlockMethod::JumpingJack ? "jj_search.frag" : "search.frag",
                        blockDefine() + (next ? "#define SRT_NEXT_KEPT\n" : ""));
    p.set("improved", uint32_t(o_.improvedSearch));
    uint64_t read = padded / 8;
    if (groupScan) {
      p.bindTexture("groupScan", kUnitGroupScan, *groupScan);
      p.set("groupLog2w", groupLog2w_);
      read += uint64_t(numGroups_) * srt::gl::texelBytes(groupScan->format());
    }
    // Counted for Roger's blocks in one group (gl_costs.h).
    const bool counted = o_.method == BlockMethod::Roger && blockLog2 <= 7 && !o_.improvedSearch;
    drawSearch(p, padded, local, read, counted ? costs::search(next) : OpCount{});
  }
  if (!groupScan) return bitsSource(Source::BlockKept, numBlocks_, s);
  Source kept = Source::fromTexture(*groupScan, groupLog2w_, numBlocks_, s);
  kept.stride = s / 128;
  kept.offset = s / 128 - 1;
  return kept;
}

const Texture& BlockCompactor::runLengths(uint32_t padded) {
  const uint32_t s = o_.block, blockLog2 = log2u(s);
  const std::string block = blockDefine();
  const Source empties = bitsSource(Source::EmptyBits, padded, 1);
  const Layout l{padded, elemLog2w_};
  if (!o_.rlSweep) {
    // Recursive doubling (Moreira 2010, Alg. 2), ping-ponging two textures; the first step reads
    // the empty flags from the bits.
    Source cur = empties;
    int flip = 0;
    for (uint32_t offset = 1; offset < s; offset <<= 1) {
      const uint64_t maxValue = std::min<uint64_t>(2ull * offset, s);
      Texture& t =
          passes_.texture("rl.step" + std::to_string(flip ^= 1), srt::gl::uintFormat(maxValue), l);
      Program& p = passes_.program("rl_step.frag", block + cur.defines());
      cur.bind(p);
      p.set("log2w", elemLog2w_);
      p.set("offset", offset);
      passes_.draw(p, t, l, cur.bytesFor(2ull * padded));
      cur = Source::fromTexture(t, elemLog2w_, padded, maxValue);
    }
    return *cur.texture;
  }
  // Balanced tree (Alg. 3 and 4): up-sweep of run lengths, then the runs that follow each node.
  const std::vector<Source> up =
      passes_.reduceLevels(empties, int(blockLog2), true, elemLog2w_, "rl.up");
  const Texture* parent = up[blockLog2].texture;
  for (int d = int(blockLog2) - 1; d >= 0; --d) {
    const Layout ld{up[d].count, elemLog2w_};
    Texture& t = passes_.texture("rl.down" + std::to_string(d), srt::gl::uintFormat(s), ld);
    Program& p = passes_.program("rl_down.frag", block + up[d].defines());
    up[d].bind(p);
    p.bindTexture("parentAfter", 0, *parent);
    p.set("parentLog2w", elemLog2w_);
    p.set("log2w", elemLog2w_);
    p.set("fullRun", 1u << d);
    p.set("leaves", uint32_t(d == 0));
    p.set("root", uint32_t(d + 1 == int(blockLog2)));
    passes_.draw(p, t, ld,
                 up[d].bytesFor(ld.count) + (ld.count / 2) * srt::gl::texelBytes(parent->format()));
    parent = &t;
  }
  return *parent;
}

void BlockCompactor::concatenate(const Texture& local, uint32_t localLog2w, const Emit& emit,
                                 uint32_t aligned) {
  ConcatInput in;
  in.blockScan = blockScan_;
  in.blockLog2w = blockLog2w_;
  in.blockLog2 = log2u(o_.block);
  in.local = &local;
  in.localLog2w = localLog2w;
  in.numBlocks = numBlocks_;
  in.aligned = aligned;
  in.wrap = o_.wrap;
  in.pair = o_.pairFetch;
  // heads=auto: inline only with bands (in rows the H200 ran inline heads 25x slower).
  in.inlineHeads = o_.inlineHeads || (o_.autoHeads && emit.bands);
  if (o_.invalidateOutput)
    for (const Texture* t : emit.targets) SRT_GL_CHECK(glInvalidateTexImage(t->id(), 0));
  if (o_.diagnoseConcat) diagnoseConcatenation(passes_, in, emit, lastKept_);
  gl::concatenate(passes_, in, emit);
}

}  // namespace

std::unique_ptr<GlCompactor> makeBlockCompactor(const BlockOptions& options) {
  if (options.method == BlockMethod::Horn) return makeHornCompactor(options);
  return std::make_unique<BlockCompactor>(options);
}

}  // namespace srt::compaction::gl
