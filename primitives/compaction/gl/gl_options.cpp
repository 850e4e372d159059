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

}  // namespace

InteropOptions readInteropOptions(OptionReader& r) {
  InteropOptions o;
  const std::string interop = r.get("interop", "auto");
  if (interop == "vulkan")
    o.interop = InteropKind::Vulkan;
  else if (interop == "vmm")
    o.interop = InteropKind::Vmm;
  else if (interop == "registered")
    o.interop = InteropKind::Registered;
  else if (interop == "host")
    o.interop = InteropKind::Host;
  else if (interop != "auto")
    throw std::invalid_argument("GL compaction: interop=" + interop +
                                " (takes auto, vulkan, vmm, registered or host)");
  const std::string sync = r.get("sync", "auto");
  if (sync == "semaphores")
    o.sync = SyncKind::Semaphores;
  else if (sync == "fences")
    o.sync = SyncKind::Fences;
  else if (sync != "auto")
    throw std::invalid_argument("GL compaction: sync=" + sync +
                                " (takes auto, semaphores or fences)");
  const std::string payload = r.get("payload", "auto");
  if (payload == "gl")
    o.payload = PayloadSide::Gl;
  else if (payload == "cuda")
    o.payload = PayloadSide::Stream;
  else if (payload != "auto")
    throw std::invalid_argument("GL compaction: payload=" + payload + " (takes auto, gl or cuda)");
  const std::string map = r.get("map", "held");
  if (map != "held" && map != "call")
    throw std::invalid_argument("GL compaction: map=" + map + " (takes held or call)");
  o.holdMapping = map == "held";
  const std::string indices = r.get("indices", "texture");
  if (indices != "copy" && indices != "texture")
    throw std::invalid_argument("GL compaction: indices=" + indices + " (takes copy or texture)");
  o.indicesFromTexture = indices == "texture";
  const std::string count = r.get("count", "host");
  if (count != "host" && count != "device")
    throw std::invalid_argument("GL compaction: count=" + count + " (takes host or device)");
  o.countOnDevice = count == "device";
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
  const std::string output = r.get("output", o.quadOutput ? "quad" : "element");
  if (output != "quad" && output != "element")
    throw bad("output=" + output + " (takes quad or element)");
  o.quadOutput = output == "quad";
  if (o.method == BlockMethod::Roger) {
    const std::string search = r.get("search", o.nextSearch       ? "next"
                                               : o.improvedSearch ? "improved"
                                                                  : "plain");
    if (search != "improved" && search != "plain" && search != "next")
      throw bad("search=" + search + " (takes improved, plain or next)");
    o.improvedSearch = search == "improved";
    o.nextSearch = search == "next";
    const std::string offsets = r.get("offsets", o.alignedPositions == 16  ? "wide"
                                                 : o.alignedPositions == 4 ? "aligned"
                                                                           : "block");
    if (offsets != "block" && offsets != "aligned" && offsets != "wide")
      throw bad("offsets=" + offsets + " (takes block, aligned or wide)");
    o.alignedPositions = offsets == "wide" ? 16 : offsets == "aligned" ? 4 : 0;
    if (o.alignedPositions && (o.block > 128 || o.improvedSearch))
      throw bad("offsets=" + offsets + " takes blocks up to 128 and search=plain or next");
    if (o.alignedPositions == 16 && o.block < 16)
      throw bad("offsets=wide takes blocks of 16 to 128 (16 positions a fragment)");
    o.wrap = Wrap(readChoice(r, "wrap", int(o.wrap), {"geometry", "draw-twice", "vertex"}));
    o.diagnoseConcat = readChoice(r, "diag", o.diagnoseConcat, {"none", "concat"}) == 1;
    o.invalidateOutput = readChoice(r, "invalidate", o.invalidateOutput, {"none", "output"}) == 1;
    const int concat = readChoice(r, "concat", o.autoConcat ? 0 : o.pairFetch ? 2 : 1,
                                  {"auto", "quarters", "pair"});
    o.autoConcat = concat == 0;
    o.pairFetch = concat == 2;
    const int heads = readChoice(r, "heads", o.autoHeads ? 0 : o.inlineHeads ? 2 : 1,
                                 {"auto", "points", "inline"});
    o.autoHeads = heads == 0;
    o.inlineHeads = heads == 2;
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
