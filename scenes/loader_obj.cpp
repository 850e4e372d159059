// Wavefront OBJ: statements parsed in parallel (obj_parse.cpp), MTL through tinyobjloader;
// vertices split by their (v, vt, vn) triple into one indexed mesh per OBJ group or object
// (built in parallel), polygons fan-triangulated, MTL mapped onto srt::Material.
#include <tiny_obj_loader.h>

#include <algorithm>
#include <sstream>
#include <unordered_map>

#include "scenes/loader_internal.h"
#include "scenes/obj_parse.h"

namespace srt::detail {
namespace {

Vec3f vec(const tinyobj::real_t v[3]) {
  return {float(v[0]), float(v[1]), float(v[2])};
}

// Textures are decoded from sRGB as colours; heights and normals are data, so they get a copy
// holding the file's own values (texture `index` re-encoded), shared by every material using it.
int linearCopy(Scene& scene, int index) {
  if (index < 0) return index;
  const std::string key = scene.textures[size_t(index)].path + " (linear)";
  for (size_t i = 0; i < scene.textures.size(); ++i)
    if (scene.textures[i].path == key) return int(i);
  Texture t = scene.textures[size_t(index)];
  t.path = key;
  for (Vec3f& v : t.texels) v = {linearToSrgb(v.x), linearToSrgb(v.y), linearToSrgb(v.z)};
  scene.textures.push_back(std::move(t));
  return int(scene.textures.size() - 1);
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
  auto texture = [&](std::string tex) {
    for (char& c : tex)
      if (c == '\\') c = '/';  // files exported on Windows
    return loadTexture(scene, resolveRelative(folder, tex),
                       objPath + " (material '" + mtl.name + "')", ctx);
  };
  if (!mtl.diffuse_texname.empty()) {
    m.kdTexture = texture(mtl.diffuse_texname);
    if (m.kdTexture >= 0)
      m.kd = {1.f, 1.f, 1.f};  // the texture is the albedo, as MTL viewers show it
  }
  // A grey mask (its first channel); the alpha channel of an RGBA file is not read.
  if (!mtl.alpha_texname.empty()) m.alphaTexture = texture(mtl.alpha_texname);
  if (!mtl.bump_texname.empty()) {
    m.bumpTexture = linearCopy(scene, texture(mtl.bump_texname));
    m.bumpScale = float(mtl.bump_texopt.bump_multiplier);
  }
  if (!mtl.normal_texname.empty()) m.normalTexture = linearCopy(scene, texture(mtl.normal_texname));
  if (!mtl.emissive_texname.empty()) {
    m.keTexture = texture(mtl.emissive_texname);
    if (m.keTexture >= 0 && isBlack(m.ke)) m.ke = {1.f, 1.f, 1.f};  // the map alone is the emission
  }
  return m;
}

// MTL files named by mtllib, read through the load context (the OBJ's folder, or memory).
class MtlReader {
 public:
  MtlReader(LoadContext& ctx, const std::string& folder, const std::string& source)
      : ctx_(ctx), folder_(folder), source_(source) {}
  // One mtllib statement: file names separated by spaces ("\\ " escapes a space in a name).
  void load(const std::string& names, uint32_t line) {
    std::vector<std::string> files(1);
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == '\\' && i + 1 < names.size() && names[i + 1] == ' ')
        files.back() += names[++i];
      else if (names[i] == ' ' || names[i] == '\t')
        files.emplace_back();
      else
        files.back() += names[i];
    }
    for (const std::string& name : files) {
      if (name.empty()) continue;
      const std::string path = resolveRelative(folder_, name);
      FileBytes bytes;
      std::string why;
      if (!ctx_.readFile(path, &bytes, &why)) {
        ctx_.warn(source_ + ":" + std::to_string(line) + ": material file '" + path +
                  "' not read (" + why + "); its faces get the default material");
        continue;
      }
      std::istringstream in{std::string(bytes.view())};
      std::string warn, err;
      tinyobj::LoadMtl(&names_, &materials_, &in, &warn, &err);
      std::istringstream w(warn + err);
      for (std::string l; std::getline(w, l);)
        // "Both d and Tr" is routine and handled (d wins).
        if (!l.empty() && l.find("Both `d` and `Tr`") == std::string::npos)
          ctx_.warn(path + ": " + l);
    }
  }
  int find(const std::string& name) const {
    const auto it = names_.find(name);
    return it == names_.end() ? -1 : it->second;
  }
  const std::vector<tinyobj::material_t>& materials() const { return materials_; }

 private:
  LoadContext& ctx_;
  const std::string& folder_;
  const std::string& source_;
  std::vector<tinyobj::material_t> materials_;
  std::map<std::string, int> names_;
};

struct Key {
  int32_t v, vt, vn;
  bool operator==(const Key& o) const { return v == o.v && vn == o.vn && vt == o.vt; }
};
struct KeyHash {
  size_t operator()(const Key& k) const {
    return std::hash<uint64_t>()((uint64_t(uint32_t(k.v)) << 32) ^
                                 (uint64_t(uint32_t(k.vn)) << 16) ^
                                 uint64_t(uint32_t(k.vt)) * 0x9E3779B97F4A7C15ull);
  }
};

// The faces of one group (a contiguous run of the file), and what building its mesh found.
struct Group {
  std::string name;
  size_t firstFace = 0, endFace = 0;
  Mesh mesh;
  size_t badFace = SIZE_MAX;  // first face with an index out of range
  std::string bad;
};

class ObjMeshes {
 public:
  ObjMeshes(const obj::Data& d, const std::vector<uint32_t>& material)
      : d_(d), material_(material) {}
  // `slot`: this thread's vertex -> mesh index array, all UINT32_MAX between calls.
  void build(Group& g, std::vector<uint32_t>& slot) const;

 private:
  Vec3f position(int32_t v) const {
    return {d_.positions[3 * size_t(v)], d_.positions[3 * size_t(v) + 1],
            d_.positions[3 * size_t(v) + 2]};
  }
  bool check(Group& g, size_t f) const;

  const obj::Data& d_;
  const std::vector<uint32_t>& material_;  // per face
};

bool ObjMeshes::check(Group& g, size_t f) const {
  const int64_t nv = int64_t(d_.positions.size() / 3), nt = int64_t(d_.texcoords.size() / 2),
                nn = int64_t(d_.normals.size() / 3);
  const obj::Face& face = d_.faces[f];
  for (uint32_t k = 0; k < face.corners; ++k) {
    const obj::Corner& c = d_.corners[face.firstCorner + k];
    const char* what = nullptr;
    int64_t value = 0, count = 0;
    if (c.v < 0 || c.v >= nv)
      what = "vertex", value = c.v, count = nv;
    else if (c.vt != obj::kAbsent && (c.vt < 0 || c.vt >= nt))
      what = "texture coordinate", value = c.vt, count = nt;
    else if (c.vn != obj::kAbsent && (c.vn < 0 || c.vn >= nn))
      what = "normal", value = c.vn, count = nn;
    if (what) {
      g.badFace = f;
      g.bad = std::to_string(face.line) + ": face " + std::to_string(f + 1) + " uses " + what +
              " index " + std::to_string(value + 1) + " but the file has " + std::to_string(count);
      return false;
    }
  }
  return true;
}

void ObjMeshes::build(Group& g, std::vector<uint32_t>& slot) const {
  bool anyNormal = false, anyUv = false;
  size_t corners = 0;
  for (size_t f = g.firstFace; f < g.endFace; ++f) {
    if (!check(g, f)) return;
    const obj::Face& face = d_.faces[f];
    corners += face.corners;
    for (uint32_t k = 0; k < face.corners; ++k) {
      anyNormal |= d_.corners[face.firstCorner + k].vn != obj::kAbsent;
      anyUv |= d_.corners[face.firstCorner + k].vt != obj::kAbsent;
    }
  }
  Mesh& mesh = g.mesh;
  // A mesh vertex per distinct (v, vt, vn). The first triple met for each position is found
  // through an array indexed by v (a big group's common case: one triple per position); only the
  // other triples of a position go through a hash map. Small groups use the map alone, sparing
  // the array's size in the file's positions.
  const size_t nv = d_.positions.size() / 3;
  const bool direct = corners >= nv / 16;
  if (direct && slot.size() != nv) slot.assign(nv, UINT32_MAX);
  std::unordered_map<Key, uint32_t, KeyHash> vertexOf;
  std::vector<Key> keyOf;  // each mesh vertex's triple, where the array is used
  if (!direct) vertexOf.reserve(corners);
  mesh.positions.reserve(std::min(corners, nv));
  if (direct) keyOf.reserve(std::min(corners, nv));
  std::vector<uint32_t> corner;
  for (size_t f = g.firstFace; f < g.endFace; ++f) {
    const obj::Face& face = d_.faces[f];
    const uint32_t n = face.corners;
    if (n < 3) continue;  // points and lines carry no surface
    const obj::Corner* c = &d_.corners[face.firstCorner];
    Vec3f faceNormal{0.f, 0.f, 1.f};
    if (anyNormal) {
      const Vec3f e =
          cross(position(c[1].v) - position(c[0].v), position(c[2].v) - position(c[0].v));
      if (lengthSquared(e) > 0.f) faceNormal = normalize(e);
    }
    corner.resize(n);
    for (uint32_t k = 0; k < n; ++k) {
      // A corner without vn in a mesh that has normals gets the face normal, unshared.
      Key key{c[k].v, anyUv ? c[k].vt : obj::kAbsent, anyNormal ? c[k].vn : obj::kAbsent};
      if (anyNormal && key.vn == obj::kAbsent) key.vn = -2 - int32_t(f);
      uint32_t* index;
      uint32_t* first = direct ? &slot[size_t(c[k].v)] : nullptr;
      if (first && (*first == UINT32_MAX || keyOf[*first] == key))
        index = first;
      else
        index = &vertexOf.try_emplace(key, UINT32_MAX).first->second;
      if (*index == UINT32_MAX) {
        *index = uint32_t(mesh.positions.size());
        if (direct) keyOf.push_back(key);
        mesh.positions.push_back(position(c[k].v));
        if (anyNormal)
          mesh.normals.push_back(c[k].vn >= 0 ? Vec3f{d_.normals[3 * size_t(c[k].vn)],
                                                      d_.normals[3 * size_t(c[k].vn) + 1],
                                                      d_.normals[3 * size_t(c[k].vn) + 2]}
                                              : faceNormal);
        if (anyUv)
          mesh.uvs.push_back(c[k].vt >= 0 ? Vec2f{d_.texcoords[2 * size_t(c[k].vt)],
                                                  d_.texcoords[2 * size_t(c[k].vt) + 1]}
                                          : Vec2f{});
      }
      corner[k] = *index;
    }
    for (uint32_t k = 1; k + 1 < n; ++k) {
      mesh.indices.insert(mesh.indices.end(), {corner[0], corner[k], corner[k + 1]});
      mesh.materialIds.push_back(material_[f]);
    }
  }
  if (direct)  // leave the array clean for the thread's next group
    for (size_t f = g.firstFace; f < g.endFace; ++f)
      for (uint32_t k = 0; k < d_.faces[f].corners; ++k)
        slot[size_t(d_.corners[d_.faces[f].firstCorner + k].v)] = UINT32_MAX;
}

}  // namespace

Scene readObj(const std::string& path, std::string_view bytes, LoadContext& ctx) {
  const std::string folder = folderOf(path);
  const obj::Data d = obj::parse(path, bytes);

  // The statements in file order: groups, and the material each face gets.
  MtlReader mtl(ctx, folder, path);
  std::vector<std::string> groupNames(1);
  std::vector<std::pair<size_t, int>> state(d.statements.size());  // (group, material) after each
  size_t group = 0;
  int material = -1;
  for (size_t i = 0; i < d.statements.size(); ++i) {
    const obj::Statement& s = d.statements[i];
    if (s.kind == obj::Statement::Group || s.kind == obj::Statement::Object) {
      groupNames.push_back(s.text);
      group = groupNames.size() - 1;
    } else if (s.kind == obj::Statement::MtlLib) {
      mtl.load(s.text, s.line);
    } else {
      material = mtl.find(s.text);
      if (material < 0)
        ctx.warn(path + ":" + std::to_string(s.line) + ": usemtl '" + s.text +
                 "': no such material in the MTL files; using the default material");
    }
    state[i] = {group, material};
  }

  Scene scene;
  scene.name = path;
  for (const tinyobj::material_t& m : mtl.materials())
    scene.materials.push_back(toMaterial(m, scene, folder, path, ctx));
  const uint32_t defaultMaterial = uint32_t(scene.materials.size());
  bool usesDefault = false;
  std::vector<uint32_t> faceMaterial(d.faces.size());
  std::vector<Group> groups;  // each g or o starts one, as in tinyobjloader; faces are in order
  size_t current = SIZE_MAX;
  for (size_t f = 0; f < d.faces.size(); ++f) {
    const uint32_t st = d.faces[f].statement;
    const auto [g, m] = st == 0 ? std::pair<size_t, int>{0, -1} : state[st - 1];
    faceMaterial[f] = m >= 0 ? uint32_t(m) : defaultMaterial;
    usesDefault |= m < 0;
    if (g != current) {
      groups.emplace_back();
      groups.back().name = groupNames[g];
      groups.back().firstFace = f;
      current = g;
    }
    groups.back().endFace = f + 1;
  }
  if (usesDefault) {
    Material m;
    m.name = "default";
    scene.materials.push_back(m);
  }

  const ObjMeshes builder(d, faceMaterial);
#pragma omp parallel
  {
    std::vector<uint32_t> slot;
#pragma omp for schedule(dynamic, 1)
    for (long i = 0; i < long(groups.size()); ++i) builder.build(groups[size_t(i)], slot);
  }
  const Group* bad = nullptr;
  for (const Group& g : groups)
    if (g.badFace != SIZE_MAX && (!bad || g.badFace < bad->badFace)) bad = &g;
  if (bad) throw SceneError(path + ":" + bad->bad);

  for (Group& g : groups) {
    if (g.mesh.indices.empty()) continue;
    g.mesh.name = g.name.empty() ? "shape " + std::to_string(scene.meshes.size()) : g.name;
    scene.meshes.push_back(std::move(g.mesh));
    Instance inst;
    inst.mesh = uint32_t(scene.meshes.size() - 1);
    scene.instances.push_back(inst);
  }
  if (scene.meshes.empty())
    throw SceneError(path + ": empty mesh: the OBJ file has no faces (" +
                     std::to_string(d.positions.size() / 3) + " vertices)");
  return scene;
}

}  // namespace srt::detail
