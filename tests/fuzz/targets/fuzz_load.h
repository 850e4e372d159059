// What every fuzz target and the replay test do with one input: read it as a file of the named
// reader (obj, mtl, json, ply, gltf) with a few fixed side files, and flatten the scene. Only
// SceneError may leave; anything else (another exception, a signal, a sanitizer report, a hang,
// memory past the limit) is a finding.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "scenes/loader.h"

namespace srt::fuzz {

constexpr const char* kReaders[] = {"obj", "mtl", "json", "ply", "gltf"};

// Files the inputs may name: an OBJ for JSON scenes, an MTL for OBJ files, a buffer for glTF.
inline const std::map<std::string, std::string>& sideFiles() {
  static const std::map<std::string, std::string> files = [] {
    std::map<std::string, std::string> f;
    f["tri.obj"] =
        "mtllib fuzz.mtl\nusemtl red\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/1 3/1\n";
    f["fuzz.mtl"] = "newmtl red\nKd 1 0 0\nmap_Kd tex.png\n";
    const float p[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const unsigned short i[4] = {0, 1, 2, 0};
    f["tri.bin"] = std::string(reinterpret_cast<const char*>(p), sizeof p) +
                   std::string(reinterpret_cast<const char*>(i), sizeof i);
    return f;
  }();
  return files;
}

// An OBJ whose materials come from the fuzzed MTL.
constexpr const char* kObjUsingMtl =
    "mtllib fuzz.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\nusemtl red\nf 1/1/1 2/1/1 "
    "3/1/1\nusemtl glass\nf 1 3 2\n";

// True when the input loads, false when it is refused with a SceneError.
inline bool load(std::string_view reader, std::string_view bytes) {
  // 2^20 triangles: a scene within libFuzzer's 2 GB, so that only a real blow-up is reported.
  LoadOptions quiet;
  quiet.quiet = true;
  quiet.maxTriangles = uint64_t(1) << 20;
  try {
    Scene scene;
    if (reader == "mtl") {
      std::map<std::string, std::string> files = sideFiles();
      files["fuzz.mtl"] = std::string(bytes);
      scene = loadSceneFromMemory("fuzz.obj", kObjUsingMtl, files, quiet);
    } else if (reader == "gltf") {
      const bool glb = bytes.substr(0, 4) == "glTF";
      scene = loadSceneFromMemory(glb ? "fuzz.glb" : "fuzz.gltf", bytes, sideFiles(), quiet);
    } else {
      scene = loadSceneFromMemory("fuzz." + std::string(reader), bytes, sideFiles(), quiet);
    }
    flatten(scene);
    return true;
  } catch (const SceneError&) {
    return false;
  }
}

}  // namespace srt::fuzz
