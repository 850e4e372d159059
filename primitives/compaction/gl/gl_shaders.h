// The GLSL of the OpenGL compaction passes: files in shaders/, embedded at build time by
// embed_shaders.cmake, so the sources stay readable and the library needs no files at run time.
#pragma once

#include <string_view>

namespace srt::compaction::gl {

// The text of shaders/<name> ("block_search.frag"). Throws std::logic_error for an unknown name.
std::string_view embeddedShader(std::string_view name);

}  // namespace srt::compaction::gl
