// Checked reads of glTF accessors: every index, offset, stride and length is checked against the
// buffer it points into before a byte is read (tinygltf parses, but checks little of this).
#pragma once

#include <tiny_gltf.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/math.h"

namespace srt::detail {
class LoadContext;
// tinygltf's parse of a .gltf or .glb file's bytes, after our own checks (loader_gltf.cpp).
tinygltf::Model parseGltf(const std::string& source, std::string_view bytes, LoadContext& ctx);
}  // namespace srt::detail

namespace srt::detail::gltf {

// A validated accessor: `count` elements of `components` values each, `stride` bytes apart.
struct View {
  const unsigned char* data = nullptr;
  size_t count = 0, stride = 0;
  int componentType = 0, components = 0;
  bool normalized = false;
};

// Throws SceneError("<source>: <what>: accessor N ...") on any inconsistency. `types` lists the
// accepted accessor types (TINYGLTF_TYPE_*), `componentTypes` the accepted component types.
View accessor(const tinygltf::Model& model, int index, const std::string& source,
              const std::string& what, std::initializer_list<int> types,
              std::initializer_list<int> componentTypes);

// The bytes of a buffer view, checked against its buffer.
std::string_view bufferView(const tinygltf::Model& model, int index, const std::string& source,
                            const std::string& what);

float component(const View& v, size_t element, int c);  // normalised integers map to [0, 1]
uint32_t index(const View& v, size_t element);

}  // namespace srt::detail::gltf
