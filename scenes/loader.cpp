// loadScene's dispatch, validation and the helpers shared by the format loaders.
#include <fcntl.h>
#include <stb_image.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>

#include "base/image_io.h"
#include "scenes/loader_internal.h"

namespace srt {
namespace detail {

std::string folderOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

std::string resolveRelative(const std::string& folder, const std::string& file) {
  if (file.empty() || file[0] == '/' || folder.empty()) return file;
  return folder + file;
}

// `path` itself when it exists, else a file in the same folder whose name matches ignoring case:
// MTL files written on Windows often spell texture names differently from the files (Sponza).
std::string findIgnoringCase(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(path, ec)) return path;
  const fs::path p(path);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  auto lower = [](std::string x) {
    for (char& c : x) c = char(std::tolower((unsigned char)c));
    return x;
  };
  const std::string want = lower(p.filename().string());
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (lower(it->path().filename().string()) == want) return it->path().string();
  return path;
}

void LoadContext::warn(const std::string& message) {
  if (options_.quiet || !warned_.insert(message).second) return;
  std::cerr << "streamrt: warning: " << message << "\n";
}

FileBytes& FileBytes::operator=(FileBytes&& o) noexcept {
  if (this != &o) {
    this->~FileBytes();
    owned_ = std::move(o.owned_);
    map_ = o.map_, size_ = o.size_;
    o.map_ = nullptr, o.size_ = 0;
  }
  return *this;
}

FileBytes::~FileBytes() {
  if (map_) munmap(map_, size_);
  map_ = nullptr;
}

void FileBytes::own(std::string bytes) {
  this->~FileBytes();
  owned_ = std::move(bytes);
}

bool FileBytes::map(int fd, size_t size) {
  void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  if (p == MAP_FAILED) return false;
  this->~FileBytes();
  map_ = p, size_ = size;
  return true;
}

bool LoadContext::readFile(const std::string& path, FileBytes* bytes, std::string* why) const {
  if (memory_) {
    const auto it = memory_->find(path);
    if (it == memory_->end()) return *why = "no such file", false;
    bytes->own(it->second);
    return true;
  }
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused just below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return *why = std::strerror(errno), false;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return *why = "not a regular file", false;
  }
  // Big files are mapped: copying 27 MB of OBJ costs more than parsing it on some machines.
  constexpr size_t kMapFrom = size_t(1) << 20;
  if (size_t(st.st_size) >= kMapFrom && bytes->map(fd, size_t(st.st_size))) {
    ::close(fd);
    return true;
  }
  std::string data(size_t(st.st_size), '\0');
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::read(fd, &data[done], data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += size_t(n);
  }
  const int readErrno = errno;
  ::close(fd);
  if (done != data.size())
    return *why = done ? "file shrank while read" : std::strerror(readErrno), false;
  bytes->own(std::move(data));
  return true;
}

namespace {

// Texel count above which a texture is refused (16K x 8K): a small PNG can claim a huge image.
constexpr uint64_t kMaxTexels = uint64_t(1) << 27;

}  // namespace

int loadTextureBytes(Scene& scene, std::string_view bytes, const std::string& key,
                     const std::string& referencedFrom, LoadContext& ctx) {
  for (size_t i = 0; i < scene.textures.size(); ++i)
    if (scene.textures[i].path == key) return int(i);
  auto fail = [&](const std::string& why) {
    ctx.warn(referencedFrom + ": texture '" + key + "' not loaded (" + why +
             "); using the diffuse colour");
    return -1;
  };
  if (bytes.empty() || bytes.size() > size_t(std::numeric_limits<int>::max()))
    return fail(bytes.empty() ? "empty file" : "file too large");
  const auto* data8 = reinterpret_cast<const stbi_uc*>(bytes.data());
  int width = 0, height = 0, channels = 0;
  if (!stbi_info_from_memory(data8, int(bytes.size()), &width, &height, &channels))
    return fail(stbi_failure_reason());
  if (width <= 0 || height <= 0 || uint64_t(width) * uint64_t(height) > kMaxTexels)
    return fail(std::to_string(width) + "x" + std::to_string(height) + " texels is too large");
  stbi_uc* data = stbi_load_from_memory(data8, int(bytes.size()), &width, &height, &channels, 3);
  if (!data) return fail(stbi_failure_reason());
  std::unique_ptr<stbi_uc, decltype(&stbi_image_free)> owner(data, &stbi_image_free);
  float lut[256];
  for (int i = 0; i < 256; ++i) lut[i] = srgbToLinear(float(i) / 255.f);
  Texture t;
  t.path = key;
  t.width = width;
  t.height = height;
  t.texels.resize(size_t(width) * size_t(height));
  for (size_t i = 0; i < t.texels.size(); ++i)
    t.texels[i] = {lut[data[3 * i]], lut[data[3 * i + 1]], lut[data[3 * i + 2]]};
  scene.textures.push_back(std::move(t));
  return int(scene.textures.size() - 1);
}

int loadTexture(Scene& scene, const std::string& requested, const std::string& referencedFrom,
                LoadContext& ctx) {
  const std::string path = ctx.fromMemory() ? requested : findIgnoringCase(requested);
  for (size_t i = 0; i < scene.textures.size(); ++i)
    if (scene.textures[i].path == path) return int(i);
  FileBytes bytes;
  std::string why;
  if (!ctx.readFile(path, &bytes, &why)) {
    ctx.warn(referencedFrom + ": texture '" + path + "' not loaded (" + why +
             "); using the diffuse colour");
    return -1;
  }
  return loadTextureBytes(scene, bytes.view(), path, referencedFrom, ctx);
}

// Meshes without normals, in a scene where others have them, get flat ones: three unshared
// vertices per triangle. Triangle t writes slots 3t..3t+2 of presized arrays, so the triangles
// run in parallel and the mesh is the same on any thread count.
void harmonizeNormals(Scene& scene) {
  const bool any = std::any_of(scene.meshes.begin(), scene.meshes.end(),
                               [](const Mesh& m) { return !m.normals.empty(); });
  if (!any) return;
  for (Mesh& m : scene.meshes) {
    if (m.normals.size() == m.positions.size()) continue;
    Mesh flat;
    flat.name = m.name;
    flat.materialIds = std::move(m.materialIds);
    const bool uvs = m.uvs.size() == m.positions.size();
    const int64_t triangles = int64_t(m.triangleCount());
    const size_t corners = 3 * size_t(triangles);
    flat.indices.resize(corners), flat.positions.resize(corners), flat.normals.resize(corners);
    if (uvs) flat.uvs.resize(corners);
#pragma omp parallel for schedule(static) if (triangles > 4096)
    for (int64_t t = 0; t < triangles; ++t) {
      const size_t at = 3 * size_t(t);
      const uint32_t* idx = &m.indices[at];
      const Vec3f e = cross(m.positions[idx[1]] - m.positions[idx[0]],
                            m.positions[idx[2]] - m.positions[idx[0]]);
      const float len = length(e);
      const Vec3f n = len > 0.f ? e / len : Vec3f{0.f, 0.f, 1.f};
      for (size_t k = 0; k < 3; ++k) {
        flat.indices[at + k] = uint32_t(at + k);
        flat.positions[at + k] = m.positions[idx[k]];
        flat.normals[at + k] = n;
        if (uvs) flat.uvs[at + k] = m.uvs[idx[k]];
      }
    }
    m = std::move(flat);
  }
}

void smoothNormals(Mesh& m) {
  if (!m.normals.empty()) return;
  m.normals.assign(m.positions.size(), Vec3f{});
  for (size_t t = 0; t + 2 < m.indices.size(); t += 3) {
    const uint32_t* idx = &m.indices[t];
    // The unnormalised cross product weighs each face by its area.
    const Vec3f e =
        cross(m.positions[idx[1]] - m.positions[idx[0]], m.positions[idx[2]] - m.positions[idx[0]]);
    for (int k = 0; k < 3; ++k) m.normals[idx[k]] = m.normals[idx[k]] + e;
  }
  for (Vec3f& n : m.normals) {
    const float len = length(n);
    n = len > 0.f && std::isfinite(len) ? n / len : Vec3f{0.f, 0.f, 1.f};
  }
}

}  // namespace detail

void validateScene(const Scene& scene, const std::string& source, uint64_t maxTriangles) {
  auto fail = [&](const std::string& what) { throw SceneError(source + ": " + what); };
  if (scene.triangleCount() == 0) fail("the scene has no triangles (empty mesh)");
  for (size_t mi = 0; mi < scene.meshes.size(); ++mi) {
    const Mesh& m = scene.meshes[mi];
    const std::string name =
        "mesh " + std::to_string(mi) + (m.name.empty() ? "" : " '" + m.name + "'");
    if (m.indices.size() % 3 != 0) fail(name + ": index count is not a multiple of 3");
    if (m.materialIds.size() != m.triangleCount())
      fail(name + ": " + std::to_string(m.materialIds.size()) + " material ids for " +
           std::to_string(m.triangleCount()) + " triangles");
    if (!m.normals.empty() && m.normals.size() != m.positions.size())
      fail(name + ": normal count differs from the vertex count");
    if (!m.uvs.empty() && m.uvs.size() != m.positions.size())
      fail(name + ": uv count differs from the vertex count");
    for (size_t i = 0; i < m.indices.size(); ++i)
      if (m.indices[i] >= m.positions.size())
        fail(name + ": triangle " + std::to_string(i / 3) + " uses vertex " +
             std::to_string(m.indices[i]) + " of " + std::to_string(m.positions.size()));
    for (size_t t = 0; t < m.materialIds.size(); ++t)
      if (m.materialIds[t] >= scene.materials.size())
        fail(name + ": triangle " + std::to_string(t) + " uses material " +
             std::to_string(m.materialIds[t]) + " of " + std::to_string(scene.materials.size()));
    for (const Vec3f& p : m.positions)
      if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z))
        fail(name + ": a vertex position is not finite");
  }
  // flatten() copies every instance into one indexed list of 32-bit indices; a small file with
  // many instances of a big mesh must not make it run out of memory or indices.
  uint64_t triangles = 0, vertices = 0;
  for (size_t i = 0; i < scene.instances.size(); ++i) {
    if (scene.instances[i].mesh >= scene.meshes.size())
      fail("instance " + std::to_string(i) + " refers to mesh " +
           std::to_string(scene.instances[i].mesh) + " of " + std::to_string(scene.meshes.size()));
    // flatten() inverts each transform for the normals (keyframed ones are checked by the JSON
    // reader, which alone makes them): a singular or non-finite matrix is refused here.
    const float(*m)[4] = scene.instances[i].transform.m;
    const double det = double(m[0][0]) * (double(m[1][1]) * m[2][2] - double(m[1][2]) * m[2][1]) -
                       double(m[0][1]) * (double(m[1][0]) * m[2][2] - double(m[1][2]) * m[2][0]) +
                       double(m[0][2]) * (double(m[1][0]) * m[2][1] - double(m[1][1]) * m[2][0]);
    bool finite = std::isfinite(det);
    for (int r = 0; r < 3; ++r) finite &= std::isfinite(m[r][3]);
    if (!finite || std::fabs(det) < 1e-15)
      fail("instance " + std::to_string(i) + " (mesh '" +
           scene.meshes[scene.instances[i].mesh].name +
           "'): its transform is not invertible or not finite");
    triangles += scene.meshes[scene.instances[i].mesh].triangleCount();
    vertices += scene.meshes[scene.instances[i].mesh].positions.size();
  }
  if (triangles > maxTriangles || vertices > maxTriangles)
    fail("the instances add up to " + std::to_string(triangles) + " triangles and " +
         std::to_string(vertices) + " vertices, over the limit of " + std::to_string(maxTriangles));
  for (const Material& m : scene.materials)
    if (m.kdTexture >= int(scene.textures.size()))
      fail("material '" + m.name + "' refers to a missing texture");
}

namespace detail {

Scene loadSceneFile(const std::string& path, LoadContext& ctx) {
  const std::string ext = lowerExtension(path);
  if (ext == ".fbx" || ext == ".dae" || ext == ".stl")
    throw SceneError(path + ": " + ext.substr(1) +
                     " files are not read (supported: .obj .ply .gltf .glb .json); "
                     "convert it to glTF or PLY");
  if (ext != ".obj" && ext != ".json" && ext != ".ply" && ext != ".gltf" && ext != ".glb")
    throw SceneError("'" + path +
                     "' is not a file with a known extension (.obj .json .ply .gltf .glb)");
  FileBytes file;
  std::string why;
  if (!ctx.readFile(path, &file, &why)) {
    // The public scenes are not in the repository: say how to get them.
    std::string hint;
    for (const char* fetched :
         {"data/conference-room/", "data/cornell-box/", "data/dabrovic-sponza/", "data/teapot/"})
      if (path.find(fetched) != std::string::npos)
        hint = " (scripts/fetch-scenes.sh puts the public scenes into scenes/data/)";
    throw SceneError(
        path + ": cannot read: " + (why == std::strerror(ENOENT) ? "no such file" : why) + hint);
  }
  const std::string_view bytes = file.view();
  Scene scene = ext == ".obj"    ? readObj(path, bytes, ctx)
                : ext == ".json" ? readJsonScene(path, std::string(bytes), ctx)
                : ext == ".ply"  ? readPly(path, bytes, ctx)
                                 : readGltf(path, bytes, ctx);
  harmonizeNormals(scene);
  validateScene(scene, path, ctx.options().maxTriangles);
  float end = 0.f;
  for (const Instance& inst : scene.instances)
    for (const Keyframe& k : inst.keyframes) end = std::max(end, k.time);
  scene.animationEnd = end;
  return scene;
}

}  // namespace detail

Scene loadScene(const std::string& nameOrPath, const LoadOptions& options) {
  for (const std::string& name : builtinSceneNames())
    if (name == nameOrPath) return builtinScene(name);
  if (lowerExtension(nameOrPath).empty()) {
    std::string names;
    for (const std::string& n : builtinSceneNames()) names += " " + n;
    throw SceneError("'" + nameOrPath + "' is neither a built-in scene (" + names.substr(1) +
                     ") nor a file with a known extension (.obj .json .ply .gltf .glb)");
  }
  detail::LoadContext ctx(options, nullptr);
  return detail::loadSceneFile(nameOrPath, ctx);
}

Scene loadSceneFromMemory(const std::string& name, std::string_view bytes,
                          const std::map<std::string, std::string>& sideFiles,
                          const LoadOptions& options) {
  std::map<std::string, std::string> files = sideFiles;
  files[name] = std::string(bytes);
  detail::LoadContext ctx(options, &files);
  return detail::loadSceneFile(name, ctx);
}

}  // namespace srt
