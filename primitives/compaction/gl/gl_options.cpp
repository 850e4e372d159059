// The options of the block family and Horn, read before any GL work so a bad value is an error
// even without a context.
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "primitives/compaction/gl/gl_compactors.h"

namespace srt::compaction::gl {
namespace {

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

// The index in `names` of option `key` (default: names[current]); any other value is an error
// that lists them: "GL compaction: key=value (takes a, b or c)".
int readChoice(OptionReader& r, const char* key, int current,
               std::initializer_list<const char*> names) {
  const std::string value = r.get(key, names.begin()[current]);
  std::string takes;
  int i = 0, found = -1;
  for (const char* name : names) {
    if (value == name) found = i;
    takes += i == 0 ? "" : i + 1 == int(names.size()) ? " or " : ", ";
    takes += name;
    ++i;
  }
  if (found < 0)
    throw std::invalid_argument("GL compaction: " + std::string(key) + "=" + value + " (takes " +
                                takes + ")");
  return found;
}

// A choice of three whose first and last names each set one flag and whose middle sets neither.
void readFlagChoice(OptionReader& r, const char* key, int current,
                    std::initializer_list<const char*> names, bool* first, bool* last) {
  const int c = readChoice(r, key, current, names);
  *first = c == 0;
  *last = c == 2;
}

}  // namespace

InteropOptions readInteropOptions(OptionReader& r) {
  InteropOptions o;
  o.interop =
      InteropKind(readChoice(r, "interop", 0, {"auto", "vulkan", "vmm", "registered", "host"}));
  o.sync = SyncKind(readChoice(r, "sync", 0, {"auto", "semaphores", "fences"}));
  o.payload = PayloadSide(readChoice(r, "payload", 0, {"auto", "gl", "cuda"}));
  o.holdMapping = readChoice(r, "map", 0, {"held", "call"}) == 0;
  o.indicesFromTexture = readChoice(r, "indices", 1, {"copy", "texture"}) == 1;
  o.countOnDevice = readChoice(r, "count", 0, {"host", "device"}) == 1;
  return o;
}

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
  const int radix = r.getInt("radix", int(o.radix));
  if (radix < 2 || radix > 32 || (radix & (radix - 1)) != 0)
    throw bad("radix=" + std::to_string(radix) + " (a power of two from 2 to 32)");
  o.radix = uint32_t(radix);
  o.quadOutput = readChoice(r, "output", o.quadOutput ? 0 : 1, {"quad", "element"}) == 0;
  if (o.method == BlockMethod::Roger) {
    const int search = o.nextSearch ? 2 : o.improvedSearch ? 0 : 1;
    readFlagChoice(r, "search", search, {"improved", "plain", "next"}, &o.improvedSearch,
                   &o.nextSearch);
    const int offsetsNow = o.alignedPositions == 16 ? 2 : o.alignedPositions == 4 ? 1 : 0;
    const int offsets = readChoice(r, "offsets", offsetsNow, {"block", "aligned", "wide"});
    o.alignedPositions = offsets == 2 ? 16 : offsets == 1 ? 4 : 0;
    if (o.alignedPositions && (o.block > 128 || o.improvedSearch))
      throw bad(std::string("offsets=") + (offsets == 2 ? "wide" : "aligned") +
                " takes blocks up to 128 and search=plain or next");
    if (o.alignedPositions == 16 && o.block < 16)
      throw bad("offsets=wide takes blocks of 16 to 128 (16 positions a fragment)");
    o.wrap = Wrap(readChoice(r, "wrap", int(o.wrap), {"geometry", "draw-twice", "vertex"}));
    o.diagnoseConcat = readChoice(r, "diag", o.diagnoseConcat, {"none", "concat"}) == 1;
    o.invalidateOutput = readChoice(r, "invalidate", o.invalidateOutput, {"none", "output"}) == 1;
    const int concat = o.autoConcat ? 0 : o.pairFetch ? 2 : 1;
    readFlagChoice(r, "concat", concat, {"auto", "quarters", "pair"}, &o.autoConcat, &o.pairFetch);
    const int heads = o.autoHeads ? 0 : o.inlineHeads ? 2 : 1;
    readFlagChoice(r, "heads", heads, {"auto", "points", "inline"}, &o.autoHeads, &o.inlineHeads);
    o.bands = readChoice(r, "layout", o.bands, {"rows", "bands"}) == 1;
    if (o.pairFetch && (o.alignedPositions || o.block > 256))
      throw bad("concat=pair takes offsets=block and blocks up to 256 (8-bit offsets)");
    if (o.autoConcat) o.pairFetch = !o.alignedPositions && o.block <= 256;
  }
  if (o.method == BlockMethod::Rlz) {
    const std::string runs = r.get("runs", o.rlSweep ? "sweep" : "doubling");
    if (runs != "doubling" && runs != "sweep")
      throw bad("runs=" + runs + " (takes doubling or sweep)");
    o.rlSweep = runs == "sweep";
  }
  o.interop = readInteropOptions(r);
  return o;
}

}  // namespace srt::compaction::gl
