# The sources of streamrt_scenes and their definitions, shared by scenes/CMakeLists.txt and the
# fuzz build (tests/fuzz/targets), which compiles the same files with clang and sanitizers.
set(SRT_SCENES_SOURCES
  scene.cpp
  shapes.cpp
  builtin.cpp
  loader.cpp
  loader_obj.cpp
  obj_parse.cpp
  loader_ply.cpp
  ply_header.cpp
  loader_gltf.cpp
  loader_gltf_scene.cpp
  gltf_access.cpp
  loader_json.cpp
  loader_json_objects.cpp
  tinyobj_impl.cpp
  tinygltf_impl.cpp
)
# tinygltf decodes no image and reads no external image itself (loader_gltf.cpp does, checked).
set(SRT_SCENES_DEFINITIONS
  TINYGLTF_NO_STB_IMAGE TINYGLTF_NO_STB_IMAGE_WRITE TINYGLTF_NO_EXTERNAL_IMAGE)
# tinyobjloader 2.0.0rc10's number parser overflows a signed int on exponents of ten or more
# digits ("1e-2147483648"; found by tests/fuzz): -fwrapv defines that overflow (the number comes
# out wrong, nothing else happens), so the parser's UB is gone in every build.
set(SRT_SCENES_WRAPV_SOURCES tinyobj_impl.cpp)
