// Scene loading: built-in scenes by name, or files by extension.
//   .obj                                  tinyobjloader (+ .mtl, map_Kd textures via stb_image)
//   .ply .gltf .glb .fbx .dae .stl        assimp
//   .json                                 streamrt scene file (scenes/README.md)
// Every failure (unknown name or extension, missing or malformed file, empty mesh, index out of
// range) is a SceneError whose message names the file and, where known, the line.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "scenes/scene.h"

namespace srt {

class SceneError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The name a CLI uses when none is given.
constexpr const char* kDefaultSceneName = "cornell";

// A built-in name (builtinSceneNames()) or a file path chosen by its extension.
Scene loadScene(const std::string& nameOrPath);

std::vector<std::string> builtinSceneNames();
Scene builtinScene(const std::string& name);  // SceneError for an unknown name

// Checks what the renderer relies on: at least one triangle, indices and material ids in range,
// per-vertex attribute arrays empty or one per vertex. `source` names the file in the message.
void validateScene(const Scene& scene, const std::string& source);

}  // namespace srt
