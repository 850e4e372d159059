// PLY, glTF/GLB, FBX, Collada and STL through assimp: triangulated, identical vertices joined,
// normals generated where missing, node transforms baked in; one mesh per assimp mesh.
#include <assimp/material.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <assimp/Importer.hpp>

#include "scenes/loader_internal.h"

namespace srt::detail {
namespace {

Vec3f color(const aiMaterial* m, const char* key, unsigned type, unsigned index, Vec3f fallback) {
  aiColor3D c;
  if (m->Get(key, type, index, c) == AI_SUCCESS) return {c.r, c.g, c.b};
  return fallback;
}

float scalar(const aiMaterial* m, const char* key, unsigned type, unsigned index, float fallback) {
  float v = 0.f;
  if (m->Get(key, type, index, v) == AI_SUCCESS) return v;
  return fallback;
}

// The same rules as the MTL mapping: transparent → dielectric, specular and shiny → glossy.
Material toMaterial(const aiMaterial* a, Scene& scene, const std::string& folder,
                    const std::string& path) {
  Material m;
  aiString name;
  if (a->Get(AI_MATKEY_NAME, name) == AI_SUCCESS) m.name = name.C_Str();
  m.kd = color(a, AI_MATKEY_COLOR_DIFFUSE, Vec3f{0.8f, 0.8f, 0.8f});
  m.ks = color(a, AI_MATKEY_COLOR_SPECULAR, Vec3f{0.f, 0.f, 0.f});
  m.ke = color(a, AI_MATKEY_COLOR_EMISSIVE, Vec3f{0.f, 0.f, 0.f});
  m.ns = scalar(a, AI_MATKEY_SHININESS, 0.f);
  const float ior = scalar(a, AI_MATKEY_REFRACTI, 1.f);
  const float opacity = scalar(a, AI_MATKEY_OPACITY, 1.f);
  if (opacity < 1.f) {
    m.type = MaterialType::Dielectric;
    m.ior = ior > 1.f ? ior : 1.5f;
    m.ks = {1.f, 1.f, 1.f};
  } else if (!isBlack(m.ks) && m.ns > 0.f) {
    m.type = MaterialType::Glossy;
  }
  aiString tex;
  if (a->GetTexture(aiTextureType_DIFFUSE, 0, &tex) == AI_SUCCESS && tex.length > 0 &&
      tex.C_Str()[0] != '*') {  // '*n' names an embedded texture, not supported
    std::string file = tex.C_Str();
    for (char& c : file)
      if (c == '\\') c = '/';
    m.kdTexture =
        loadTexture(scene, resolveRelative(folder, file), path + " (material '" + m.name + "')");
    if (m.kdTexture >= 0) m.kd = {1.f, 1.f, 1.f};
  }
  return m;
}

}  // namespace

Scene loadAssimp(const std::string& path) {
  Assimp::Importer importer;
  // Points and lines are dropped: they carry no surface.
  importer.SetPropertyInteger(AI_CONFIG_PP_SBP_REMOVE,
                              aiPrimitiveType_POINT | aiPrimitiveType_LINE);
  const aiScene* ai =
      importer.ReadFile(path, aiProcess_Triangulate | aiProcess_JoinIdenticalVertices |
                                  aiProcess_GenSmoothNormals | aiProcess_PreTransformVertices |
                                  aiProcess_SortByPType | aiProcess_ValidateDataStructure);
  if (!ai || (ai->mFlags & AI_SCENE_FLAGS_INCOMPLETE) || !ai->mRootNode)
    throw SceneError(path + ": cannot import: " + importer.GetErrorString());

  Scene scene;
  scene.name = path;
  const std::string folder = folderOf(path);
  for (unsigned i = 0; i < ai->mNumMaterials; ++i)
    scene.materials.push_back(toMaterial(ai->mMaterials[i], scene, folder, path));
  if (scene.materials.empty()) {
    Material m;
    m.name = "default";
    scene.materials.push_back(m);
  }
  for (unsigned mi = 0; mi < ai->mNumMeshes; ++mi) {
    const aiMesh* src = ai->mMeshes[mi];
    if (!(src->mPrimitiveTypes & aiPrimitiveType_TRIANGLE)) continue;
    Mesh mesh;
    mesh.name = src->mName.length ? src->mName.C_Str() : "mesh " + std::to_string(mi);
    mesh.positions.reserve(src->mNumVertices);
    for (unsigned v = 0; v < src->mNumVertices; ++v) {
      const aiVector3D& p = src->mVertices[v];
      mesh.positions.push_back({p.x, p.y, p.z});
      if (src->HasNormals()) {
        const aiVector3D& n = src->mNormals[v];
        mesh.normals.push_back({n.x, n.y, n.z});
      }
      if (src->HasTextureCoords(0)) {
        const aiVector3D& t = src->mTextureCoords[0][v];
        mesh.uvs.push_back({t.x, t.y});
      }
    }
    const uint32_t material =
        src->mMaterialIndex < scene.materials.size() ? src->mMaterialIndex : 0;
    for (unsigned f = 0; f < src->mNumFaces; ++f) {
      const aiFace& face = src->mFaces[f];
      if (face.mNumIndices != 3) continue;
      for (int k = 0; k < 3; ++k) {
        if (face.mIndices[k] >= src->mNumVertices)
          throw SceneError(path + ": mesh '" + mesh.name + "' face " + std::to_string(f) +
                           " uses vertex " + std::to_string(face.mIndices[k]) + " of " +
                           std::to_string(src->mNumVertices));
        mesh.indices.push_back(face.mIndices[k]);
      }
      mesh.materialIds.push_back(material);
    }
    if (mesh.indices.empty()) continue;
    scene.meshes.push_back(std::move(mesh));
    Instance inst;
    inst.mesh = uint32_t(scene.meshes.size() - 1);
    scene.instances.push_back(inst);
  }
  if (scene.meshes.empty()) throw SceneError(path + ": empty mesh: the file has no triangles");
  return scene;
}

}  // namespace srt::detail
