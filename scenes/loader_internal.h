// Shared pieces of the per-format loaders (not part of the public API).
#pragma once

#include "base/paths.h"

#include <map>
#include <set>
#include <string>
#include <string_view>

#include "scenes/loader.h"

namespace srt::detail {

// A whole file's bytes: a read-only mapping of a large regular file (no copy; the page cache's
// pages mapped in one call), else an owned copy. A mapped file truncated by another process while
// it is read raises SIGBUS, as with any mapping: the files are not expected to change under us.
class FileBytes {
 public:
  FileBytes() = default;
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;
  FileBytes(FileBytes&& o) noexcept { *this = std::move(o); }
  FileBytes& operator=(FileBytes&& o) noexcept;
  ~FileBytes();
  std::string_view view() const {
    return map_ ? std::string_view(static_cast<const char*>(map_), size_)
                : std::string_view(owned_);
  }
  void own(std::string bytes);
  bool map(int fd, size_t size);  // false: not mapped (the caller reads instead)

 private:
  std::string owned_;
  void* map_ = nullptr;
  size_t size_ = 0;
};

// One load: its options, where side files come from, and the warnings already printed.
class LoadContext {
 public:
  using Files = std::map<std::string, std::string>;
  // `memory` null: files come from the disk; otherwise only from that map (tests, fuzzing).
  LoadContext(const LoadOptions& options, const Files* memory)
      : options_(options), memory_(memory) {}

  // Prints "streamrt: warning: MESSAGE" once per distinct message, unless quiet.
  void warn(const std::string& message);
  // Reads a whole regular file (or the memory map's entry). False with `why` set otherwise.
  bool readFile(const std::string& path, FileBytes* bytes, std::string* why) const;
  bool fromMemory() const { return memory_ != nullptr; }
  const LoadOptions& options() const { return options_; }

 private:
  LoadOptions options_;
  const Files* memory_;
  std::set<std::string> warned_;
};

// The format readers: `source` names the file in messages, `bytes` is its whole content.
Scene readObj(const std::string& source, std::string_view bytes, LoadContext& ctx);
Scene readPly(const std::string& source, std::string_view bytes, LoadContext& ctx);
Scene readGltf(const std::string& source, std::string_view bytes, LoadContext& ctx);
Scene readJsonScene(const std::string& source, std::string bytes, LoadContext& ctx);
// loadScene within a load already under way (JSON scene files include meshes).
Scene loadSceneFile(const std::string& path, LoadContext& ctx);

// Loads an 8-bit image file as a linear texture (sRGB decoded, row 0 at the top) and returns its
// index in scene.textures, reusing an already-loaded path. A file name differing only in case is
// accepted (MTL files from Windows). Returns -1 with a warning when the file is missing,
// unreadable or too large: missing textures are common in downloaded scenes.
int loadTexture(Scene& scene, const std::string& path, const std::string& referencedFrom,
                LoadContext& ctx);
// The same from encoded bytes in memory (textures embedded in glTF/GLB); `key` names it.
int loadTextureBytes(Scene& scene, std::string_view bytes, const std::string& key,
                     const std::string& referencedFrom, LoadContext& ctx);

// Gives meshes without normals per-face normals (splitting their vertices) when some other mesh
// has normals, because flatten() keeps normals only when every mesh has them.
void harmonizeNormals(Scene& scene);
// Area-weighted vertex normals for a mesh that has none (PLY and glTF files without normals).
void smoothNormals(Mesh& mesh);

// Folder part of a path ("" for a bare file name), and a path joined to it unless absolute.
std::string folderOf(const std::string& path);
std::string resolveRelative(const std::string& folder, const std::string& file);
using ::srt::lowerExtension;  // base/paths.h

}  // namespace srt::detail
