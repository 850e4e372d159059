// Checked reads of glTF accessors and buffer views.
#include "scenes/gltf_access.h"

#include <algorithm>
#include <cstring>

#include "scenes/loader.h"

namespace srt::detail::gltf {
namespace {

size_t componentSize(int type) {
  switch (type) {
    case TINYGLTF_COMPONENT_TYPE_BYTE:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE:
      return 1;
    case TINYGLTF_COMPONENT_TYPE_SHORT:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT:
      return 2;
    case TINYGLTF_COMPONENT_TYPE_INT:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT:
    case TINYGLTF_COMPONENT_TYPE_FLOAT:
      return 4;
    default:
      return 0;
  }
}

int componentCount(int type) {
  switch (type) {
    case TINYGLTF_TYPE_SCALAR:
      return 1;
    case TINYGLTF_TYPE_VEC2:
      return 2;
    case TINYGLTF_TYPE_VEC3:
      return 3;
    case TINYGLTF_TYPE_VEC4:
      return 4;
    default:
      return 0;  // matrices: no attribute we read is one
  }
}

template <typename T>
T load(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // glTF data is little endian, as is every host we build for
  return v;
}

}  // namespace

std::string_view bufferView(const tinygltf::Model& model, int index, const std::string& source,
                            const std::string& what) {
  auto fail = [&](const std::string& why) -> std::string_view {
    throw SceneError(source + ": " + what + ": bufferView " + std::to_string(index) + " " + why);
  };
  if (index < 0 || size_t(index) >= model.bufferViews.size())
    fail("does not exist (the file has " + std::to_string(model.bufferViews.size()) + ")");
  const tinygltf::BufferView& bv = model.bufferViews[size_t(index)];
  if (bv.buffer < 0 || size_t(bv.buffer) >= model.buffers.size())
    fail("refers to buffer " + std::to_string(bv.buffer) + " of " +
         std::to_string(model.buffers.size()));
  const std::vector<unsigned char>& data = model.buffers[size_t(bv.buffer)].data;
  if (bv.byteOffset > data.size() || bv.byteLength > data.size() - bv.byteOffset)
    fail("spans bytes " + std::to_string(bv.byteOffset) + " + " + std::to_string(bv.byteLength) +
         " of a buffer of " + std::to_string(data.size()));
  return {reinterpret_cast<const char*>(data.data()) + bv.byteOffset, bv.byteLength};
}

View accessor(const tinygltf::Model& model, int index, const std::string& source,
              const std::string& what, std::initializer_list<int> types,
              std::initializer_list<int> componentTypes) {
  const std::string where = source + ": " + what + ": accessor " + std::to_string(index);
  auto fail = [&](const std::string& why) -> View { throw SceneError(where + " " + why); };
  if (index < 0 || size_t(index) >= model.accessors.size())
    fail("does not exist (the file has " + std::to_string(model.accessors.size()) + ")");
  const tinygltf::Accessor& a = model.accessors[size_t(index)];
  if (a.sparse.isSparse) fail("is sparse (not supported)");
  if (std::find(types.begin(), types.end(), a.type) == types.end())
    fail("has an unexpected type (" + std::to_string(a.type) + ")");
  if (std::find(componentTypes.begin(), componentTypes.end(), a.componentType) ==
      componentTypes.end())
    fail("has an unexpected componentType (" + std::to_string(a.componentType) + ")");
  if (a.bufferView < 0) fail("has no bufferView");
  const std::string_view bytes = bufferView(model, a.bufferView, source, what);
  View v;
  v.componentType = a.componentType;
  v.components = componentCount(a.type);
  v.normalized = a.normalized;
  v.count = a.count;
  const size_t element = componentSize(a.componentType) * size_t(v.components);
  const size_t stride = model.bufferViews[size_t(a.bufferView)].byteStride;
  v.stride = stride ? stride : element;
  if (v.stride < element)
    fail("has elements of " + std::to_string(element) + " bytes but a byteStride of " +
         std::to_string(stride));
  // The last element ends at byteOffset + stride * (count - 1) + element: checked by division
  // so that no product can wrap.
  if (v.count > 0) {
    const size_t avail = bytes.size();
    if (a.byteOffset > avail || element > avail - a.byteOffset ||
        (v.count - 1) > (avail - a.byteOffset - element) / v.stride)
      fail("needs " + std::to_string(v.count) + " elements of " + std::to_string(element) +
           " bytes (stride " + std::to_string(v.stride) + ") from byte " +
           std::to_string(a.byteOffset) + " of a bufferView of " + std::to_string(avail));
    v.data = reinterpret_cast<const unsigned char*>(bytes.data()) + a.byteOffset;
  }
  return v;
}

float component(const View& v, size_t element, int c) {
  const unsigned char* p = v.data + element * v.stride + size_t(c) * componentSize(v.componentType);
  switch (v.componentType) {
    case TINYGLTF_COMPONENT_TYPE_FLOAT:
      return load<float>(p);
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE:
      return v.normalized ? float(*p) / 255.f : float(*p);
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT:
      return v.normalized ? float(load<uint16_t>(p)) / 65535.f : float(load<uint16_t>(p));
    case TINYGLTF_COMPONENT_TYPE_BYTE:
      return v.normalized ? std::max(float(int8_t(*p)) / 127.f, -1.f) : float(int8_t(*p));
    case TINYGLTF_COMPONENT_TYPE_SHORT:
      return v.normalized ? std::max(float(load<int16_t>(p)) / 32767.f, -1.f)
                          : float(load<int16_t>(p));
    default:
      return 0.f;
  }
}

uint32_t index(const View& v, size_t element) {
  const unsigned char* p = v.data + element * v.stride;
  switch (v.componentType) {
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE:
      return *p;
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT:
      return load<uint16_t>(p);
    default:
      return load<uint32_t>(p);
  }
}

}  // namespace srt::detail::gltf
