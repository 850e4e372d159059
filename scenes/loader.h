// Scene loading: built-in scenes by name, or files by extension.
//   .obj          tinyobjloader (+ .mtl, map_Kd textures via stb_image)
//   .ply          our reader (ASCII, binary little and big endian)
//   .gltf .glb    tinygltf, every accessor and buffer view checked before use
//   .json         streamrt scene file (scenes/README.md)
// Every failure (unknown name or extension, missing or malformed file, empty mesh, index out of
// range) is a SceneError whose message names the file and, where known, the line or element.
// No file makes a reader crash, hang or allocate more than the file's size justifies
// (tests/fuzz/ fuzzes every reader).
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "scenes/scene.h"

namespace srt {

class SceneError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The name a CLI uses when none is given.
constexpr const char* kDefaultSceneName = "cornell";

// Most triangles (and vertices) a scene may have once its instances are flattened: 2^28, about
// 10 GB of flat geometry.
constexpr uint64_t kMaxSceneTriangles = uint64_t(1) << 28;

struct LoadOptions {
  bool quiet = false;  // no warnings on stderr (missing .mtl or texture, skipped elements)
  // A scene over this many triangles (or vertices), instances flattened, is refused; JSON shapes
  // are counted before they are made. The fuzz targets set less, to stay within 2 GB.
  uint64_t maxTriangles = kMaxSceneTriangles;
};

// A built-in name (builtinSceneNames()) or a file path chosen by its extension.
Scene loadScene(const std::string& nameOrPath, const LoadOptions& options = {});

// A scene file's bytes read as loadScene reads the file `name` (format by its extension). Side
// files (MTL, glTF buffers, textures, meshes a JSON scene names) come from `sideFiles` only, keyed
// by their path relative to `name`'s folder; the disk is never read. For tests and fuzzing.
Scene loadSceneFromMemory(const std::string& name, std::string_view bytes,
                          const std::map<std::string, std::string>& sideFiles = {},
                          const LoadOptions& options = {});

std::vector<std::string> builtinSceneNames();
Scene builtinScene(const std::string& name);  // SceneError for an unknown name

// Checks what the renderer relies on: at least one triangle, indices and material ids in range,
// per-vertex attribute arrays empty or one per vertex, at most maxTriangles once flattened.
// `source` names the file in the message.
void validateScene(const Scene& scene, const std::string& source,
                   uint64_t maxTriangles = kMaxSceneTriangles);

}  // namespace srt
