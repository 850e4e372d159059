// Shared pieces of the per-format loaders (not part of the public API).
#pragma once

#include "base/paths.h"

#include <map>
#include <string>

#include "scenes/loader.h"

namespace srt::detail {

Scene loadObj(const std::string& path);
Scene loadAssimp(const std::string& path);
Scene loadJsonScene(const std::string& path);

// Loads an 8-bit image file as a linear texture (sRGB decoded, row 0 at the top) and returns its
// index in scene.textures, reusing an already-loaded path. A file name differing only in case is
// accepted (MTL files from Windows). Returns -1 with a warning on stderr
// when the file is missing or unreadable: missing textures are common in downloaded scenes.
int loadTexture(Scene& scene, const std::string& path, const std::string& referencedFrom);

// Gives meshes without normals per-face normals (splitting their vertices) when some other mesh
// has normals, because flatten() keeps normals only when every mesh has them.
void harmonizeNormals(Scene& scene);

// Folder part of a path ("" for a bare file name), and a path joined to it unless absolute.
std::string folderOf(const std::string& path);
std::string resolveRelative(const std::string& folder, const std::string& file);
using ::srt::lowerExtension;  // base/paths.h

}  // namespace srt::detail
