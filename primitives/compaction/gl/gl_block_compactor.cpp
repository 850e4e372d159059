// The block framework (Roger 2007; Moreira 2010): flags -> a reduction inside blocks of s
// elements (prefix sum + search, run lengths, or a binary tree) -> a scan of the kept counts
// per block -> the blocks' prefixes concatenated by drawing one line per block. Horn's
// algorithm is the same pipeline with one block holding the whole stream.
#include <stdexcept>

#include "primitives/compaction/gl/gl_stream_compactor.h"
#include "primitives/gl/gl_context.h"

namespace srt::compaction::gl {
namespace {

uint32_t nextPow2(uint32_t v) {
  return 1u << log2u(v);
}

class BlockCompactor final : public GlStreamCompactor {
 public:
  explicit BlockCompactor(const BlockOptions& o) : o_(o) {}

 private:
  bool horn() const { return o_.method == BlockMethod::Horn; }
  uint32_t minWidth() const override { return horn() ? 1 : o_.block; }

  Indices computeIndices(Texture& keep, const Layout& keepLayout) override;
  // The per-block reduction: writes `local` (the source index of each block's i-th survivor at
  // the block's position i) and says where the kept count of each block can be read.
  struct BlockResult {
    Texture* local;
    Texture* counts;  // scan of empties (fromEmpties) or one kept count per block
    Layout countsLayout;
    bool fromEmpties;
  };
  BlockResult reduceBlocks(Texture& flags, const Layout& l, uint32_t s);
  Texture& runLengths(Texture& flags, const Layout& l, uint32_t s);
  void concatenate(Texture& local, Texture& blockScan, Texture& blockKept, const Layout& lb,
                   uint32_t numBlocks, uint32_t s, Texture& out, const Layout& lo);

  BlockOptions o_;
};

GlStreamCompactor::Indices BlockCompactor::computeIndices(Texture& keep, const Layout& kl) {
  const uint32_t n = kl.count;
  const uint32_t s = horn() ? nextPow2(n) : o_.block;
  const Layout l{(n + s - 1) / s * s, log2Width_};

  Texture& flags = passes_.stream("flags", l);
  Program& init = passes_.program("flags_init.frag");
  init.bindTexture("keep", 0, keep);
  init.set("keepLog2w", kl.log2Width);
  init.set("count", n);
  init.set("countValid", uint32_t(o_.method == BlockMethod::BinaryTree));
  init.set("outLog2w", l.log2Width);
  passes_.draw(init, flags, l);
  timer_.mark("flags");

  const BlockResult br = reduceBlocks(flags, l, s);
  const uint32_t numBlocks = l.count / s;
  const Layout lb{nextPow2(numBlocks), log2Width_};
  Texture& kept = passes_.stream("block.kept", lb);
  Program& count = passes_.program("block_count.frag");
  count.bindTexture("source", 0, *br.counts);
  count.set("sourceLog2w", br.countsLayout.log2Width);
  count.set("blockLog2", log2u(s));
  count.set("numBlocks", numBlocks);
  count.set("fromEmpties", uint32_t(br.fromEmpties));
  count.set("log2w", lb.log2Width);
  passes_.draw(count, kept, lb);
  if (numBlocks == 1) {
    timer_.mark("block counts");
    return {br.local, {readValue(kept, lb, 0), log2Width_}};
  }
  Texture& scan = passes_.scanInclusive(kept, lb, lb.count, o_.scan, o_.parallelism, "countscan");
  timer_.mark("scan of block counts");
  const Layout lo{readValue(scan, lb, numBlocks - 1), log2Width_};
  Texture& out = passes_.pool().get("indices", GL_R32UI, lo.width(), std::max(lo.rows(), 1u));
  if (lo.count > 0) concatenate(*br.local, scan, kept, lb, numBlocks, s, out, lo);
  timer_.mark("concatenate");
  return {&out, lo};
}

BlockCompactor::BlockResult BlockCompactor::reduceBlocks(Texture& flags, const Layout& l,
                                                         uint32_t s) {
  const uint32_t blockLog2 = log2u(s);
  Texture& local = passes_.stream("local", l);
  if (o_.method == BlockMethod::BinaryTree) {
    std::vector<Texture*> levels = passes_.reduceLevels(flags, l, int(blockLog2), false, "tree");
    timer_.mark("tree");
    Program& p = passes_.program("bt_traverse.frag");
    for (uint32_t d = 0; d <= blockLog2; ++d) {
      const std::string name = "levels[" + std::to_string(d) + "]";
      p.bindTexture(name.c_str(), int(d), *levels[d]);
      p.set(("levelLog2w[" + std::to_string(d) + "]").c_str(), levelLayout(l, int(d)).log2Width);
    }
    p.set("log2w", l.log2Width);
    p.set("blockLog2", blockLog2);
    p.set("count", l.count);
    passes_.draw(p, local, l);
    timer_.mark("search");
    return {&local, levels[blockLog2], levelLayout(l, int(blockLog2)), false};
  }

  Texture* scanned = nullptr;
  Program* search = nullptr;
  if (o_.method == BlockMethod::Rlz) {
    Texture& runs = runLengths(flags, l, s);
    Texture& starts = passes_.stream("rl.starts", l);
    Program& filter = passes_.program("rl_filter.frag");
    filter.bindTexture("runs", 0, runs);
    filter.set("log2w", l.log2Width);
    filter.set("blockLog2", blockLog2);
    passes_.draw(filter, starts, l);
    timer_.mark("run lengths");
    scanned = &passes_.scanInclusive(starts, l, s, o_.scan, o_.parallelism, "blockscan");
    timer_.mark("scan in blocks");
    search = &passes_.program("rlz_search.frag");
    search->bindTexture("prlSum", 0, *scanned);
  } else {
    scanned = &passes_.scanInclusive(flags, l, s, o_.scan, o_.parallelism, "blockscan");
    timer_.mark("scan in blocks");
    search = &passes_.program(o_.method == BlockMethod::JumpingJack ? "jj_search.frag"
                                                                    : "block_search.frag");
    search->bindTexture("pSum", 0, *scanned);
    search->bindTexture("empty", 1, flags);
    search->set("improved", uint32_t(o_.improvedSearch && !horn()));
  }
  search->set("log2w", l.log2Width);
  search->set("blockLog2", blockLog2);
  search->set("count", l.count);
  passes_.draw(*search, local, l);
  timer_.mark("search");
  return {&local, scanned, l, true};
}

Texture& BlockCompactor::runLengths(Texture& flags, const Layout& l, uint32_t s) {
  const uint32_t blockLog2 = log2u(s);
  if (!o_.rlSweep) {
    // Recursive doubling (Moreira 2010, Alg. 2), ping-ponging two textures.
    Program& p = passes_.program("rl_step.frag");
    Texture* cur = &flags;
    int flip = 0;
    for (uint32_t offset = 1; offset < s; offset <<= 1) {
      Texture& t = passes_.stream("rl.step" + std::to_string(flip ^= 1), l);
      p.bindTexture("runs", 0, *cur);
      p.set("log2w", l.log2Width);
      p.set("offset", offset);
      p.set("blockLog2", blockLog2);
      passes_.draw(p, t, l);
      cur = &t;
    }
    return *cur;
  }
  // Balanced tree (Alg. 3 and 4): up-sweep of run lengths, then the runs that follow each node.
  std::vector<Texture*> up = passes_.reduceLevels(flags, l, int(blockLog2), true, "rl.up");
  Program& p = passes_.program("rl_down.frag");
  Texture* parent = up[blockLog2];
  for (int d = int(blockLog2) - 1; d >= 0; --d) {
    const Layout ld = levelLayout(l, d), lp = levelLayout(l, d + 1);
    Texture& t = passes_.stream("rl.down" + std::to_string(d), ld);
    p.bindTexture("parentAfter", 0, *parent);
    p.bindTexture("totals", 1, *up[d]);
    p.set("parentLog2w", lp.log2Width);
    p.set("log2w", ld.log2Width);
    p.set("fullRun", 1u << d);
    p.set("leaves", uint32_t(d == 0));
    p.set("root", uint32_t(d + 1 == int(blockLog2)));
    passes_.draw(p, t, ld);
    parent = &t;
  }
  return *parent;
}

void BlockCompactor::concatenate(Texture& local, Texture& blockScan, Texture& blockKept,
                                 const Layout& lb, uint32_t numBlocks, uint32_t s, Texture& out,
                                 const Layout& lo) {
  Program& p = o_.drawTwice
                   ? passes_.program("concat.frag", "#define SRT_DRAW_TWICE\n", "concat.vert")
                   : passes_.program("concat.frag", "", "concat.vert", "concat.geom");
  p.bindTexture("blockScan", 0, blockScan);
  p.bindTexture("blockKept", 1, blockKept);
  p.bindTexture("local", 2, local);
  p.set("blockLog2w", lb.log2Width);
  p.set("blockLog2", log2u(s));
  p.set("log2w", lo.log2Width);
  p.set("localLog2w", log2Width_);
  p.set("rows", lo.rows());
  SRT_GL_CHECK(glBindFramebuffer(GL_DRAW_FRAMEBUFFER, out.framebuffer()));
  SRT_GL_CHECK(glViewport(0, 0, GLsizei(lo.width()), GLsizei(lo.rows())));
  p.use();
  SRT_GL_CHECK(glBindVertexArray(passes_.emptyVertexArray()));
  for (uint32_t piece = 0; piece < (o_.drawTwice ? 2u : 1u); ++piece) {
    p.set("piece", piece);
    SRT_GL_CHECK(glDrawArrays(GL_LINES, 0, GLsizei(2 * numBlocks)));
  }
}

ScanKind parseScan(const std::string& v) {
  if (v == "hillis-steele") return ScanKind::HillisSteele;
  if (v == "blelloch") return ScanKind::Blelloch;
  if (v == "sengupta") return ScanKind::Sengupta;
  throw std::invalid_argument("scan=" + v + " (takes hillis-steele, blelloch or sengupta)");
}

const char* scanName(ScanKind k) {
  return k == ScanKind::HillisSteele ? "hillis-steele"
         : k == ScanKind::Blelloch   ? "blelloch"
                                     : "sengupta";
}

}  // namespace

BlockOptions readBlockOptions(BlockOptions o, OptionReader& r) {
  auto bad = [](const std::string& what) {
    return std::invalid_argument("GL compaction: " + what);
  };
  if (o.method != BlockMethod::Horn) {
    const int block = r.getInt("block", int(o.block));
    if (block < 8 || block > 2048 || (block & (block - 1)) != 0)
      throw bad("block=" + std::to_string(block) + " (a power of two from 8 to 2048)");
    o.block = uint32_t(block);
  }
  try {
    o.scan = parseScan(r.get("scan", scanName(o.scan)));
  } catch (const std::invalid_argument& e) {
    throw bad(e.what());
  }
  const int par = r.getInt("parallelism", int(o.parallelism));
  if (par < 1) throw bad("parallelism=" + std::to_string(par) + " (at least 1)");
  o.parallelism = uint32_t(par);
  if (o.method == BlockMethod::Roger) {
    const std::string search = r.get("search", o.improvedSearch ? "improved" : "plain");
    if (search != "improved" && search != "plain")
      throw bad("search=" + search + " (takes improved or plain)");
    o.improvedSearch = search == "improved";
    const std::string wrap = r.get("wrap", o.drawTwice ? "draw-twice" : "geometry");
    if (wrap != "geometry" && wrap != "draw-twice")
      throw bad("wrap=" + wrap + " (takes geometry or draw-twice)");
    o.drawTwice = wrap == "draw-twice";
  }
  if (o.method == BlockMethod::Rlz) {
    const std::string runs = r.get("runs", o.rlSweep ? "sweep" : "doubling");
    if (runs != "doubling" && runs != "sweep")
      throw bad("runs=" + runs + " (takes doubling or sweep)");
    o.rlSweep = runs == "sweep";
  }
  return o;
}

std::unique_ptr<GlCompactor> makeBlockCompactor(const BlockOptions& options) {
  return std::make_unique<BlockCompactor>(options);
}

}  // namespace srt::compaction::gl
