// The OBJ statements the renderer uses, parsed in parallel: the file is cut into chunks at line
// ends, each chunk parsed on its own thread, and the chunks joined (relative indices and the
// group and material state resolved across chunk borders). MTL files stay with tinyobjloader.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace srt::detail::obj {

constexpr int32_t kAbsent = INT32_MIN;  // a corner without vt or vn

// One face corner: 0-based indices into positions / texcoords / normals (not yet range-checked;
// a negative value is an index before the first vertex), or kAbsent.
struct Corner {
  int32_t v, vt, vn;
};

struct Face {
  uint32_t firstCorner, corners;
  uint32_t line;       // 1-based line of the 'f' statement
  uint32_t statement;  // statements (g, o, usemtl, mtllib) before the face in the file
};

// g, o, usemtl and mtllib, in file order: they set the state the faces after them get.
struct Statement {
  enum Kind : uint8_t { Group, Object, UseMtl, MtlLib } kind;
  std::string text;  // the name(s)
  uint32_t line;
};

struct Data {
  std::vector<float> positions, normals, texcoords;  // xyz, xyz, uv
  std::vector<Corner> corners;
  std::vector<Face> faces;
  std::vector<Statement> statements;
};

// Parses the whole file; throws SceneError("<source>:<line>: ...") on a malformed statement
// (numbers missing or not numbers, face index 0 or out of int range). Unknown statements are
// ignored, as other readers do.
Data parse(const std::string& source, std::string_view text);

}  // namespace srt::detail::obj
