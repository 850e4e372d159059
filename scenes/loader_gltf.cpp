// glTF 2.0 and GLB through tinygltf (Debian's libtinygltf-dev header, compiled in
// tinygltf_impl.cpp). Before tinygltf sees a byte, the GLB chunk layout and the JSON nesting depth
// are checked here; external files are read only from the glTF's own folder; every accessor and
// buffer view is checked before use (gltf_access.cpp); the node hierarchy is walked without
// recursion and must be a tree. One Mesh per primitive, one Instance per node that uses it.
#include <cmath>
#include <cstring>
#include <filesystem>

#include "scenes/gltf_access.h"
#include "scenes/loader_internal.h"

namespace srt::detail {
namespace {

// glTF's own objects nest about six deep; extras may nest further, but tinygltf copies them
// recursively, so a file nested a million arrays deep would overflow the stack.
constexpr int kMaxJsonDepth = 128;

[[noreturn]] void fail(const std::string& source, const std::string& what) {
  throw SceneError(source + ": " + what);
}

// Deepest [ / { nesting outside strings; stops early once past the limit.
int jsonDepth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size() && deepest <= kMaxJsonDepth; ++i) {
    const char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

uint32_t le32(std::string_view b, size_t at) {
  uint32_t v;
  std::memcpy(&v, b.data() + at, 4);
  return v;
}

// The GLB container (header, JSON chunk, optional BIN chunk) checked completely, so that tinygltf
// only ever reads inside the file. Returns the JSON chunk.
std::string_view checkGlb(const std::string& source, std::string_view b) {
  if (b.size() < 20 || std::memcmp(b.data(), "glTF", 4) != 0)
    fail(source, "not a GLB file (no 'glTF' magic)");
  if (le32(b, 4) != 2)
    fail(source, "GLB version " + std::to_string(le32(b, 4)) + " (only 2 is read)");
  const uint64_t length = le32(b, 8), jsonLength = le32(b, 12);
  if (length != b.size())
    fail(source, "GLB header says " + std::to_string(length) + " bytes but the file has " +
                     std::to_string(b.size()));
  if (le32(b, 16) != 0x4E4F534A) fail(source, "the first GLB chunk is not JSON");
  if (jsonLength == 0 || 20 + jsonLength > length)
    fail(source,
         "the GLB JSON chunk of " + std::to_string(jsonLength) + " bytes does not fit in the file");
  const uint64_t bin = 20 + jsonLength;
  if (bin < length) {
    if (bin + 8 > length) fail(source, "the GLB BIN chunk header is cut short");
    const uint64_t binLength = le32(b, size_t(bin));
    if (le32(b, size_t(bin) + 4) != 0x004E4942) fail(source, "the second GLB chunk is not BIN");
    if (bin + 8 + binLength > length || binLength < 4 || binLength % 4 != 0 || bin % 4 != 0)
      fail(source, "the GLB BIN chunk of " + std::to_string(binLength) +
                       " bytes does not fit in the file or is not 4-byte aligned");
  }
  return b.substr(20, size_t(jsonLength));
}

// tinygltf's file callbacks: only regular files inside the glTF's folder, read through the load
// context (so tests and fuzzing stay in memory); never a URL, an absolute path or "..".
struct FileAccess {
  LoadContext* ctx;
  std::string folder;
  std::string refused;  // the last URI refused, for the message
};

bool insideFolder(const std::string& folder, const std::string& path) {
  namespace fs = std::filesystem;
  if (path.find("://") != std::string::npos) return false;
  const fs::path base = fs::path(folder.empty() ? "." : folder).lexically_normal();
  const fs::path rel = fs::path(path).lexically_normal().lexically_relative(base);
  return !rel.empty() && *rel.begin() != ".." && rel.is_relative();
}

bool fileExists(const std::string& path, void* user) {
  auto* fa = static_cast<FileAccess*>(user);
  if (!insideFolder(fa->folder, path)) {
    fa->refused = path;
    return false;
  }
  FileBytes bytes;
  std::string why;
  return fa->ctx->readFile(path, &bytes, &why);
}

std::string expandPath(const std::string& path, void*) {
  return path;
}

bool readWholeFile(std::vector<unsigned char>* out, std::string* err, const std::string& path,
                   void* user) {
  auto* fa = static_cast<FileAccess*>(user);
  FileBytes bytes;
  std::string why;
  if (!insideFolder(fa->folder, path) || !fa->ctx->readFile(path, &bytes, &why)) {
    if (err) *err += path + ": " + (why.empty() ? "outside the glTF's folder" : why);
    return false;
  }
  out->assign(bytes.view().begin(), bytes.view().end());
  return true;
}

bool writeWholeFile(std::string*, const std::string&, const std::vector<unsigned char>&, void*) {
  return false;
}

// Images are decoded later, and only those a material uses. Data-URI bytes are kept here; a
// bufferView image's pointer is not read (tinygltf does not check that view), it is decoded from
// the checked view instead.
bool keepImage(tinygltf::Image* image, const int, std::string*, std::string*, int, int,
               const unsigned char* bytes, int size, void*) {
  if (image->bufferView < 0 && bytes && size > 0) image->image.assign(bytes, bytes + size);
  image->as_is = true;
  return true;
}

std::string firstLine(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  for (char& c : s)
    if (c == '\n') c = ';';
  return s;
}

}  // namespace

tinygltf::Model parseGltf(const std::string& source, std::string_view bytes, LoadContext& ctx) {
  const bool binary = lowerExtension(source) == ".glb";
  const std::string_view json = binary ? checkGlb(source, bytes) : bytes;
  if (jsonDepth(json) > kMaxJsonDepth)
    fail(source, "JSON nested more than " + std::to_string(kMaxJsonDepth) + " levels deep");
  if (bytes.size() > std::numeric_limits<unsigned int>::max())
    fail(source, "file over 4 GB (tinygltf reads up to 4 GB)");
  FileAccess access{&ctx, folderOf(source), {}};
  tinygltf::TinyGLTF loader;
  loader.SetFsCallbacks({&fileExists, &expandPath, &readWholeFile, &writeWholeFile, &access});
  loader.SetImageLoader(&keepImage, nullptr);
  tinygltf::Model model;
  std::string err, warn;
  const std::string base = folderOf(source);
  const bool ok =
      binary ? loader.LoadBinaryFromMemory(&model, &err, &warn,
                                           reinterpret_cast<const unsigned char*>(bytes.data()),
                                           static_cast<unsigned int>(bytes.size()), base)
             : loader.LoadASCIIFromString(&model, &err, &warn, bytes.data(),
                                          static_cast<unsigned int>(bytes.size()), base);
  if (!ok) {
    std::string why = firstLine(err.empty() ? "parse failed" : err);
    if (!access.refused.empty())
      why += " ('" + access.refused + "' is outside the glTF's folder or not a local file)";
    fail(source, "malformed glTF: " + why);
  }
  if (!warn.empty()) ctx.warn(source + ": " + firstLine(warn));
  return model;
}

}  // namespace srt::detail
