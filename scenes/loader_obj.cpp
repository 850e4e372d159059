// Wavefront OBJ/MTL through tinyobjloader: vertices split by their (v, vn, vt) triple into one
// indexed mesh per OBJ group, polygons fan-triangulated, MTL mapped onto srt::Material.
#include <tiny_obj_loader.h>

#include <sstream>
#include <unordered_map>

#include "scenes/loader_internal.h"

namespace srt::detail {
namespace {

Vec3f vec(const tinyobj::real_t v[3]) {
  return {float(v[0]), float(v[1]), float(v[2])};
}

// The MTL → Material mapping (documented in scenes/README.md).
Material toMaterial(const tinyobj::material_t& mtl, Scene& scene, const std::string& folder,
                    const std::string& objPath, LoadContext& ctx) {
  Material m;
  m.name = mtl.name;
  m.kd = vec(mtl.diffuse);
  m.ks = vec(mtl.specular);
  m.ns = float(mtl.shininess);
  m.ke = vec(mtl.emission);
  const int illum = mtl.illum;
  if (illum == 4 || illum == 6 || illum == 7 || mtl.dissolve < 1.f) {
    m.type = MaterialType::Dielectric;
    // Ni of 1 is what exporters write when they mean "unset"; glass then gets the usual 1.5.
    m.ior = mtl.ior > 1.f ? float(mtl.ior) : 1.5f;
    m.ks = {1.f, 1.f, 1.f};  // MTL Ks/Tf on glass are exporter noise; clear glass is the intent
  } else if (illum == 3 || illum == 5) {
    m.type = MaterialType::Mirror;
    if (isBlack(m.ks)) m.ks = {1.f, 1.f, 1.f};
  } else if (!isBlack(m.ks) && m.ns > 0.f) {
    m.type = MaterialType::Glossy;
  }
  if (!mtl.diffuse_texname.empty()) {
    std::string tex = mtl.diffuse_texname;
    for (char& c : tex)
      if (c == '\\') c = '/';  // files exported on Windows
    m.kdTexture = loadTexture(scene, resolveRelative(folder, tex),
                              objPath + " (material '" + mtl.name + "')", ctx);
    if (m.kdTexture >= 0)
      m.kd = {1.f, 1.f, 1.f};  // the texture is the albedo, as MTL viewers show it
  }
  return m;
}

// MTL files named by mtllib, read through the load context (the OBJ's folder, or memory).
class MtlReader : public tinyobj::MaterialReader {
 public:
  MtlReader(LoadContext& ctx, const std::string& folder, const std::string& source)
      : ctx_(ctx), folder_(folder), source_(source) {}
  bool operator()(const std::string& name, std::vector<tinyobj::material_t>* materials,
                  std::map<std::string, int>* names, std::string* warn, std::string* err) override {
    const std::string path = resolveRelative(folder_, name);
    std::string bytes, why;
    if (!ctx_.readFile(path, &bytes, &why)) {
      ctx_.warn(source_ + ": material file '" + path + "' not read (" + why +
                "); its faces get the default material");
      return false;
    }
    std::istringstream in(bytes);
    tinyobj::LoadMtl(names, materials, &in, warn, err);
    return true;
  }

 private:
  LoadContext& ctx_;
  const std::string& folder_;
  const std::string& source_;
};

// Line number (1-based) of the face-th 'f' statement, for error messages; 0 if not found.
size_t faceLine(const std::string& bytes, size_t face) {
  std::istringstream in(bytes);
  std::string line;
  size_t lineNo = 0, seen = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    size_t i = line.find_first_not_of(" \t");
    if (i != std::string::npos && line[i] == 'f' && i + 1 < line.size() &&
        (line[i + 1] == ' ' || line[i + 1] == '\t') && seen++ == face)
      return lineNo;
  }
  return 0;
}

struct Key {
  int v, vn, vt;
  bool operator==(const Key& o) const { return v == o.v && vn == o.vn && vt == o.vt; }
};
struct KeyHash {
  size_t operator()(const Key& k) const {
    return std::hash<uint64_t>()((uint64_t(uint32_t(k.v)) << 32) ^
                                 (uint64_t(uint32_t(k.vn)) << 16) ^
                                 uint64_t(uint32_t(k.vt)) * 0x9E3779B97F4A7C15ull);
  }
};

}  // namespace

Scene readObj(const std::string& path, const std::string& bytes, LoadContext& ctx) {
  const std::string folder = folderOf(path);
  tinyobj::attrib_t attrib;
  std::vector<tinyobj::shape_t> shapes;
  std::vector<tinyobj::material_t> materials;
  std::string warn, err;
  {
    std::istringstream in(bytes);
    MtlReader mtl(ctx, folder, path);
    // No triangulation: we fan-triangulate ourselves so face numbers map to file lines.
    if (!tinyobj::LoadObj(&attrib, &shapes, &materials, &warn, &err, &in, &mtl,
                          /*triangulate=*/false, /*default_vcols_fallback=*/false)) {
      while (!err.empty() && err.back() == '\n') err.pop_back();
      throw SceneError(path + ": malformed OBJ: " + (err.empty() ? "parse failed" : err));
    }
  }
  std::istringstream w(warn);
  for (std::string line; std::getline(w, line);)
    // "Both d and Tr" is routine and handled (d wins); out-of-bounds indices get our own error;
    // a missing MTL file was reported by MtlReader.
    if (!line.empty() && line.find("Both `d` and `Tr`") == std::string::npos &&
        line.find("out of bounds") == std::string::npos &&
        line.find("Failed to load material file") == std::string::npos)
      ctx.warn(path + ": " + line);
  const int nv = int(attrib.vertices.size() / 3), nn = int(attrib.normals.size() / 3),
            nt = int(attrib.texcoords.size() / 2);

  Scene scene;
  scene.name = path;
  for (const tinyobj::material_t& mtl : materials)
    scene.materials.push_back(toMaterial(mtl, scene, folder, path, ctx));
  int defaultMaterial = -1;
  auto materialFor = [&](int id) -> uint32_t {
    if (id >= 0 && id < int(materials.size())) return uint32_t(id);
    if (defaultMaterial < 0) {
      Material m;
      m.name = "default";
      scene.materials.push_back(m);
      defaultMaterial = int(scene.materials.size() - 1);
    }
    return uint32_t(defaultMaterial);
  };

  size_t globalFace = 0;
  for (const tinyobj::shape_t& shape : shapes) {
    const tinyobj::mesh_t& src = shape.mesh;
    bool anyNormal = false;
    for (const tinyobj::index_t& ix : src.indices) anyNormal |= ix.normal_index >= 0;
    bool anyUv = false;
    for (const tinyobj::index_t& ix : src.indices) anyUv |= ix.texcoord_index >= 0;
    Mesh mesh;
    mesh.name = shape.name.empty() ? "shape " + std::to_string(scene.meshes.size()) : shape.name;
    std::unordered_map<Key, uint32_t, KeyHash> vertexOf;
    std::vector<uint32_t> corner;
    size_t offset = 0;
    for (size_t f = 0; f < src.num_face_vertices.size(); ++f, ++globalFace) {
      const int n = src.num_face_vertices[f];
      const tinyobj::index_t* ix = &src.indices[offset];
      offset += size_t(n);
      for (int k = 0; k < n; ++k) {
        const char* bad = nullptr;
        int value = 0, count = 0;
        if (ix[k].vertex_index < 0 || ix[k].vertex_index >= nv)
          bad = "vertex", value = ix[k].vertex_index, count = nv;
        else if (ix[k].normal_index >= nn)
          bad = "normal", value = ix[k].normal_index, count = nn;
        else if (ix[k].texcoord_index >= nt)
          bad = "texture coordinate", value = ix[k].texcoord_index, count = nt;
        if (bad) {
          const size_t line = faceLine(bytes, globalFace);
          throw SceneError(path + (line ? ":" + std::to_string(line) : std::string()) + ": face " +
                           std::to_string(globalFace + 1) + " uses " + bad + " index " +
                           std::to_string(value + 1) + " but the file has " +
                           std::to_string(count));
        }
      }
      if (n < 3) continue;  // points/lines carry no surface
      Vec3f faceNormal{0.f, 0.f, 1.f};
      if (anyNormal) {
        const Vec3f p0 = vec(&attrib.vertices[3 * ix[0].vertex_index]);
        const Vec3f e = cross(vec(&attrib.vertices[3 * ix[1].vertex_index]) - p0,
                              vec(&attrib.vertices[3 * ix[2].vertex_index]) - p0);
        if (lengthSquared(e) > 0.f) faceNormal = normalize(e);
      }
      corner.resize(size_t(n));
      for (int k = 0; k < n; ++k) {
        // A corner without vn in a mesh that has normals gets the face normal, unshared.
        Key key{ix[k].vertex_index, ix[k].normal_index, anyUv ? ix[k].texcoord_index : -1};
        if (anyNormal && key.vn < 0) key.vn = -2 - int(f);
        auto [it, inserted] = vertexOf.emplace(key, uint32_t(mesh.positions.size()));
        if (inserted) {
          mesh.positions.push_back(vec(&attrib.vertices[3 * key.v]));
          if (anyNormal)
            mesh.normals.push_back(key.vn >= 0 ? vec(&attrib.normals[3 * key.vn]) : faceNormal);
          if (anyUv)
            mesh.uvs.push_back(key.vt >= 0 ? Vec2f{float(attrib.texcoords[2 * key.vt]),
                                                   float(attrib.texcoords[2 * key.vt + 1])}
                                           : Vec2f{});
        }
        corner[k] = it->second;
      }
      const uint32_t material = materialFor(f < src.material_ids.size() ? src.material_ids[f] : -1);
      for (int k = 1; k + 1 < n; ++k) {
        mesh.indices.insert(mesh.indices.end(), {corner[0], corner[k], corner[k + 1]});
        mesh.materialIds.push_back(material);
      }
    }
    if (mesh.indices.empty()) continue;
    scene.meshes.push_back(std::move(mesh));
    Instance inst;
    inst.mesh = uint32_t(scene.meshes.size() - 1);
    scene.instances.push_back(inst);
  }
  if (scene.meshes.empty())
    throw SceneError(path + ": empty mesh: the OBJ file has no faces (" + std::to_string(nv) +
                     " vertices)");
  return scene;
}

}  // namespace srt::detail
