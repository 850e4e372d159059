#include "bench/gl/shader_stats.h"

#include <set>
#include <sstream>
#include <vector>

#include "primitives/gl/gl_context.h"

namespace srt::bench {

ShaderStats countNvFragmentAssembly(const std::string& binary) {
  ShaderStats s;
  const size_t begin = binary.find("!!NVfp");
  if (begin == std::string::npos) return s;
  s.available = true;
  static const std::set<std::string> kFetch{"TEX", "TXF", "TXQ", "TXL", "TXB", "TXD",
                                            "TXG", "TXP", "TXFMS", "LOAD", "TXGO"};
  static const std::set<std::string> kBits{"BTC", "BFE", "BFI", "BFR", "BTFL", "BTFM"};
  static const std::set<std::string> kControl{"IF",  "ELSE", "ENDIF", "REP", "ENDREP", "BRK",
                                              "CONT", "CAL", "RET",   "KIL", "BRA"};
  static const std::set<std::string> kDeclaration{"OPTION", "PARAM",  "TEMP",  "ATTRIB", "OUTPUT",
                                                  "ADDRESS", "CBUFFER", "BUFFER", "BUFFER4",
                                                  "TEXTURE", "INT",    "UINT",  "SHORT", "LONG",
                                                  "FLOAT",  "IMAGE",  "main:", "END"};
  std::istringstream in(binary.substr(begin));
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string op;
    if (!(words >> op)) continue;
    if (op == "END") break;
    if (op[0] == '#' || op.back() == ':') continue;
    op = op.substr(0, op.find_first_of(".;"));  // "ADD.U", "ENDREP;"
    if (op.empty() || kDeclaration.count(op)) continue;
    if (kFetch.count(op))
      ++s.fetches;
    else if (kBits.count(op))
      ++s.bitOps;
    else if (kControl.count(op))
      ++s.control;
    else
      ++s.alu;
  }
  return s;
}

ShaderStats fragmentShaderStats(uint32_t program) {
  if (program == 0) return {};
  GLint length = 0;
  glGetProgramiv(program, GL_PROGRAM_BINARY_LENGTH, &length);
  if (glGetError() != GL_NO_ERROR || length <= 0) return {};
  std::vector<char> binary(static_cast<size_t>(length));
  GLsizei got = 0;
  GLenum format = 0;
  glGetProgramBinary(program, length, &got, &format, binary.data());
  if (glGetError() != GL_NO_ERROR || got <= 0) return {};
  return countNvFragmentAssembly(std::string(binary.data(), size_t(got)));
}

}  // namespace srt::bench
