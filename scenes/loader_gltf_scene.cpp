// A parsed glTF model turned into a Scene: one Mesh per primitive (triangles, strips and fans;
// points and lines skipped), one Instance per node using a mesh, with the node's world transform.
// Every index into the model is checked; messages name the element, e.g.
// "meshes[0].primitives[1].indices: accessor 4 needs 36 elements of 2 bytes ...".
#include <cmath>
#include <filesystem>
#include <map>

#include "scenes/gltf_access.h"
#include "scenes/loader_internal.h"

namespace srt::detail {
namespace {

using gltf::View;

double number(const tinygltf::Value& obj, const char* key, double fallback) {
  if (!obj.IsObject() || !obj.Has(key) || !obj.Get(key).IsNumber()) return fallback;
  return obj.Get(key).GetNumberAsDouble();
}

double extensionNumber(const tinygltf::ExtensionMap& ext, const char* name, const char* key,
                       double fallback) {
  const auto it = ext.find(name);
  return it == ext.end() ? fallback : number(it->second, key, fallback);
}

// "%20" and friends in a URI.
std::string percentDecode(const std::string& uri) {
  auto hex = [](char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
  };
  std::string out;
  for (size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size() && hex(uri[i + 1]) >= 0 && hex(uri[i + 2]) >= 0) {
      out += char(hex(uri[i + 1]) * 16 + hex(uri[i + 2]));
      i += 2;
    } else {
      out += uri[i];
    }
  }
  return out;
}

class GltfScene {
 public:
  GltfScene(const std::string& source, const tinygltf::Model& model, LoadContext& ctx)
      : source_(source), model_(model), ctx_(ctx) {}
  Scene build();

 private:
  [[noreturn]] void fail(const std::string& what) const { throw SceneError(source_ + ": " + what); }
  void readMaterials();
  int texture(int index, const std::string& where);
  uint32_t defaultMaterial();
  const std::vector<uint32_t>& meshesOf(int mesh);
  Mesh primitive(const tinygltf::Primitive& p, const std::string& where);
  // The steps of primitive(): the vertices' attributes, the triangles of `mode` (their count
  // returned) and the material.
  View readPositions(const tinygltf::Primitive& p, const std::string& where, Mesh& mesh);
  void readNormalsAndUvs(const tinygltf::Primitive& p, const std::string& where, size_t vertices,
                         Mesh& mesh);
  View attribute(const tinygltf::Primitive& p, const std::string& where, const char* name, int type,
                 std::initializer_list<int> components, size_t vertices);
  size_t readTriangles(const tinygltf::Primitive& p, const std::string& where, int mode,
                       size_t vertices, Mesh& mesh);
  uint32_t materialOf(const tinygltf::Primitive& p, const std::string& where);
  void walkNodes();
  Transform local(const tinygltf::Node& n, const std::string& where) const;

  const std::string& source_;
  const tinygltf::Model& model_;
  LoadContext& ctx_;
  Scene scene_;
  int default_ = -1;
  std::map<int, std::vector<uint32_t>> built_;  // glTF mesh -> our meshes
};

Scene GltfScene::build() {
  scene_.name = source_;
  readMaterials();
  walkNodes();
  if (scene_.instances.empty()) fail("empty mesh: no node of the scene has triangles");
  for (Mesh& m : scene_.meshes) smoothNormals(m);
  return std::move(scene_);
}

uint32_t GltfScene::defaultMaterial() {
  if (default_ < 0) {
    Material m;
    m.name = "default";
    scene_.materials.push_back(m);
    default_ = int(scene_.materials.size() - 1);
  }
  return uint32_t(default_);
}

// Base colour, emission, and transmission (KHR_materials_transmission) as glass.
void GltfScene::readMaterials() {
  for (size_t i = 0; i < model_.materials.size(); ++i) {
    const tinygltf::Material& g = model_.materials[i];
    const std::string where = "materials[" + std::to_string(i) + "]";
    Material m;
    m.name = g.name.empty() ? where : g.name;
    const std::vector<double>& base = g.pbrMetallicRoughness.baseColorFactor;
    if (base.size() >= 3) m.kd = {float(base[0]), float(base[1]), float(base[2])};
    const double strength =
        extensionNumber(g.extensions, "KHR_materials_emissive_strength", "emissiveStrength", 1.0);
    if (g.emissiveFactor.size() >= 3)
      m.ke = Vec3f{float(g.emissiveFactor[0]), float(g.emissiveFactor[1]),
                   float(g.emissiveFactor[2])} *
             float(strength);
    if (extensionNumber(g.extensions, "KHR_materials_transmission", "transmissionFactor", 0.0) >
        0.0) {
      m.type = MaterialType::Dielectric;
      m.ior = float(extensionNumber(g.extensions, "KHR_materials_ior", "ior", 1.5));
      m.ks = {1.f, 1.f, 1.f};
    }
    for (float c : {m.kd.x, m.kd.y, m.kd.z, m.ke.x, m.ke.y, m.ke.z, m.ior})
      if (!std::isfinite(c) || c < 0.f)
        fail(where + ": a colour, emission or ior is negative or not finite");
    if (g.pbrMetallicRoughness.baseColorTexture.index >= 0)
      m.kdTexture = texture(g.pbrMetallicRoughness.baseColorTexture.index, m.name);
    scene_.materials.push_back(m);
  }
}

// A base-colour texture: an image embedded in a buffer view or a data URI, or a file next to the
// glTF. A texture that cannot be had is a warning, as for OBJ.
int GltfScene::texture(int index, const std::string& material) {
  const std::string from = source_ + " (material '" + material + "')";
  if (index < 0 || size_t(index) >= model_.textures.size())
    fail("material '" + material + "': texture " + std::to_string(index) + " does not exist");
  const int source = model_.textures[size_t(index)].source;
  if (source < 0 || size_t(source) >= model_.images.size())
    fail("textures[" + std::to_string(index) + "]: image " + std::to_string(source) +
         " does not exist");
  const tinygltf::Image& img = model_.images[size_t(source)];
  const std::string key = source_ + "#images[" + std::to_string(source) + "]";
  if (!img.image.empty())
    return loadTextureBytes(scene_,
                            {reinterpret_cast<const char*>(img.image.data()), img.image.size()},
                            key, from, ctx_);
  if (img.bufferView >= 0)
    return loadTextureBytes(
        scene_,
        gltf::bufferView(model_, img.bufferView, source_, "images[" + std::to_string(source) + "]"),
        key, from, ctx_);
  const std::string uri = percentDecode(img.uri);
  const std::string path = resolveRelative(folderOf(source_), uri);
  namespace fs = std::filesystem;
  const fs::path base =
      fs::path(folderOf(source_).empty() ? "." : folderOf(source_)).lexically_normal();
  const fs::path rel = fs::path(path).lexically_normal().lexically_relative(base);
  if (uri.empty() || uri.find("://") != std::string::npos || rel.empty() || *rel.begin() == "..") {
    ctx_.warn(from + ": image '" + img.uri +
              "' is not a file in the glTF's folder; using the base colour");
    return -1;
  }
  return loadTexture(scene_, path, from, ctx_);
}

const std::vector<uint32_t>& GltfScene::meshesOf(int index) {
  if (auto it = built_.find(index); it != built_.end()) return it->second;
  const tinygltf::Mesh& g = model_.meshes[size_t(index)];
  std::vector<uint32_t> ids;
  for (size_t p = 0; p < g.primitives.size(); ++p) {
    const std::string where =
        "meshes[" + std::to_string(index) + "].primitives[" + std::to_string(p) + "]";
    Mesh m = primitive(g.primitives[p], where);
    if (m.indices.empty()) continue;
    m.name = g.name.empty() ? where : g.name;
    scene_.meshes.push_back(std::move(m));
    ids.push_back(uint32_t(scene_.meshes.size() - 1));
  }
  return built_[index] = std::move(ids);
}

Mesh GltfScene::primitive(const tinygltf::Primitive& p, const std::string& where) {
  Mesh mesh;
  const int mode = p.mode < 0 ? TINYGLTF_MODE_TRIANGLES : p.mode;
  if (mode != TINYGLTF_MODE_TRIANGLES && mode != TINYGLTF_MODE_TRIANGLE_STRIP &&
      mode != TINYGLTF_MODE_TRIANGLE_FAN) {
    ctx_.warn(source_ + ": " + where + ": points and lines skipped (mode " + std::to_string(mode) +
              ")");
    return mesh;
  }
  const View vp = readPositions(p, where, mesh);
  readNormalsAndUvs(p, where, vp.count, mesh);
  const size_t triangles = readTriangles(p, where, mode, vp.count, mesh);
  mesh.materialIds.assign(triangles, materialOf(p, where));
  return mesh;
}

View GltfScene::readPositions(const tinygltf::Primitive& p, const std::string& where, Mesh& mesh) {
  const auto pos = p.attributes.find("POSITION");
  if (pos == p.attributes.end()) fail(where + ": no POSITION attribute");
  const View vp = gltf::accessor(model_, pos->second, source_, where + ".attributes.POSITION",
                                 {TINYGLTF_TYPE_VEC3}, {TINYGLTF_COMPONENT_TYPE_FLOAT});
  mesh.positions.resize(vp.count);
  for (size_t i = 0; i < vp.count; ++i)
    mesh.positions[i] = {gltf::component(vp, i, 0), gltf::component(vp, i, 1),
                         gltf::component(vp, i, 2)};
  return vp;
}

// An optional attribute (an empty View when absent), one value per vertex.
View GltfScene::attribute(const tinygltf::Primitive& p, const std::string& where, const char* name,
                          int type, std::initializer_list<int> components, size_t vertices) {
  const auto it = p.attributes.find(name);
  if (it == p.attributes.end()) return View{};
  const View v = gltf::accessor(model_, it->second, source_, where + ".attributes." + name, {type},
                                components);
  if (v.count != vertices)
    fail(where + ".attributes." + name + ": " + std::to_string(v.count) + " values for " +
         std::to_string(vertices) + " positions");
  return v;
}

void GltfScene::readNormalsAndUvs(const tinygltf::Primitive& p, const std::string& where,
                                  size_t vertices, Mesh& mesh) {
  const View vn =
      attribute(p, where, "NORMAL", TINYGLTF_TYPE_VEC3, {TINYGLTF_COMPONENT_TYPE_FLOAT}, vertices);
  const View vt = attribute(p, where, "TEXCOORD_0", TINYGLTF_TYPE_VEC2,
                            {TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE,
                             TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT},
                            vertices);
  if (vn.data)
    for (size_t i = 0; i < vn.count; ++i)
      mesh.normals.push_back(normalize(
          Vec3f{gltf::component(vn, i, 0), gltf::component(vn, i, 1), gltf::component(vn, i, 2)}));
  for (const Vec3f& n : mesh.normals)
    if (!std::isfinite(n.x) || !std::isfinite(n.y) || !std::isfinite(n.z)) {
      mesh.normals.clear();  // zero or broken normals: smooth ones are made instead
      break;
    }
  if (vt.data)  // glTF's v runs down the image, ours up
    for (size_t i = 0; i < vt.count; ++i)
      mesh.uvs.push_back({gltf::component(vt, i, 0), 1.f - gltf::component(vt, i, 1)});
}

size_t GltfScene::readTriangles(const tinygltf::Primitive& p, const std::string& where, int mode,
                                size_t vertices, Mesh& mesh) {
  View vi;
  if (p.indices >= 0)
    vi = gltf::accessor(
        model_, p.indices, source_, where + ".indices", {TINYGLTF_TYPE_SCALAR},
        {TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT,
         TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT});
  const size_t n = p.indices >= 0 ? vi.count : vertices;
  auto index = [&](size_t k) {
    const uint32_t v = p.indices >= 0 ? gltf::index(vi, k) : uint32_t(k);
    if (v >= vertices)
      fail(where + ".indices: index " + std::to_string(k) + " is " + std::to_string(v) +
           " but POSITION has " + std::to_string(vertices) + " vertices");
    return v;
  };
  for (size_t k = 0; k < n; ++k) index(k);  // every index checked, used or not
  const size_t triangles = mode == TINYGLTF_MODE_TRIANGLES ? n / 3 : n >= 3 ? n - 2 : 0;
  mesh.indices.reserve(3 * triangles);
  for (size_t t = 0; t < triangles; ++t) {
    uint32_t a, b, c;
    if (mode == TINYGLTF_MODE_TRIANGLES)
      a = index(3 * t), b = index(3 * t + 1), c = index(3 * t + 2);
    else if (mode == TINYGLTF_MODE_TRIANGLE_STRIP)  // every other triangle flips to keep winding
      a = index(t + (t & 1)), b = index(t + 1 - (t & 1)), c = index(t + 2);
    else
      a = index(0), b = index(t + 1), c = index(t + 2);
    mesh.indices.insert(mesh.indices.end(), {a, b, c});
  }
  return triangles;
}

uint32_t GltfScene::materialOf(const tinygltf::Primitive& p, const std::string& where) {
  if (p.material < 0) return defaultMaterial();
  if (size_t(p.material) >= model_.materials.size())
    fail(where + ": material " + std::to_string(p.material) + " does not exist (the file has " +
         std::to_string(model_.materials.size()) + ")");
  return uint32_t(p.material);
}

// Nodes from the scene's roots (the default scene, else the first, else every node no other node
// lists as a child), walked with an explicit stack. A node reached twice (a cycle, or a node
// shared by two parents) is an error: glTF requires a tree.
void GltfScene::walkNodes() {
  const size_t count = model_.nodes.size();
  std::vector<int> roots;
  if (!model_.scenes.empty()) {
    const size_t s = model_.defaultScene >= 0 && size_t(model_.defaultScene) < model_.scenes.size()
                         ? size_t(model_.defaultScene)
                         : 0;
    roots = model_.scenes[s].nodes;
  } else {
    std::vector<char> child(count, 0);
    for (const tinygltf::Node& n : model_.nodes)
      for (int c : n.children)
        if (c >= 0 && size_t(c) < count) child[size_t(c)] = 1;
    for (size_t i = 0; i < count; ++i)
      if (!child[i]) roots.push_back(int(i));
  }
  std::vector<char> seen(count, 0);
  std::vector<std::pair<int, Transform>> stack;
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) stack.push_back({*it, Transform{}});
  while (!stack.empty()) {
    const auto [index, parent] = stack.back();
    stack.pop_back();
    const std::string where = "nodes[" + std::to_string(index) + "]";
    if (index < 0 || size_t(index) >= count)
      fail("node " + std::to_string(index) + " does not exist (the file has " +
           std::to_string(count) + ")");
    if (seen[size_t(index)]) fail(where + " is reached twice: the node hierarchy must be a tree");
    seen[size_t(index)] = 1;
    const tinygltf::Node& node = model_.nodes[size_t(index)];
    const Transform world = parent * local(node, where);
    if (node.mesh >= 0) {
      if (size_t(node.mesh) >= model_.meshes.size())
        fail(where + ": mesh " + std::to_string(node.mesh) + " does not exist (the file has " +
             std::to_string(model_.meshes.size()) + ")");
      for (uint32_t m : meshesOf(node.mesh)) {
        Instance inst;
        inst.mesh = m;
        inst.transform = world;
        scene_.instances.push_back(inst);
      }
    }
    for (auto c = node.children.rbegin(); c != node.children.rend(); ++c)
      stack.push_back({*c, world});
  }
}

// The node's matrix (column-major), or translation * rotation (unit quaternion x, y, z, w) * scale.
Transform GltfScene::local(const tinygltf::Node& n, const std::string& where) const {
  auto check = [&](const std::vector<double>& v, size_t size, const char* name) {
    if (!v.empty() && v.size() != size)
      fail(where + "." + name + " has " + std::to_string(v.size()) + " numbers, not " +
           std::to_string(size));
    for (double x : v)
      if (!std::isfinite(x)) fail(where + "." + name + " has a number that is not finite");
  };
  check(n.matrix, 16, "matrix");
  check(n.translation, 3, "translation");
  check(n.rotation, 4, "rotation");
  check(n.scale, 3, "scale");
  Transform t;
  if (!n.matrix.empty()) {
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) t.m[r][c] = float(n.matrix[size_t(c * 4 + r)]);
    return t;
  }
  if (!n.rotation.empty()) {
    double x = n.rotation[0], y = n.rotation[1], z = n.rotation[2], w = n.rotation[3];
    const double len = std::sqrt(x * x + y * y + z * z + w * w);
    if (!(len > 0.0) || !std::isfinite(len))
      fail(where + ".rotation is not a rotation (zero quaternion)");
    x /= len, y /= len, z /= len, w /= len;
    const double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                            {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                            {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) t.m[i][j] = float(r[i][j]);
  }
  if (!n.scale.empty())
    t = t * Transform::scale({float(n.scale[0]), float(n.scale[1]), float(n.scale[2])});
  if (!n.translation.empty())
    t = Transform::translate(
            {float(n.translation[0]), float(n.translation[1]), float(n.translation[2])}) *
        t;
  return t;
}

}  // namespace

Scene readGltf(const std::string& source, std::string_view bytes, LoadContext& ctx) {
  const tinygltf::Model model = parseGltf(source, bytes, ctx);
  return GltfScene(source, model, ctx).build();
}

}  // namespace srt::detail
