// File-name helpers shared by the loaders and the writers.
#pragma once

#include <string>

namespace srt {

// ".PNG" of "out/a.PNG"; empty when the last path component has no dot.
std::string extensionOf(const std::string& path);
// The same, lower-cased: ".png".
std::string lowerExtension(const std::string& path);
// The folder part of a path: "out" of "out/a.png", "." of "a.png", "/" of "/a.png".
std::string folderOf(const std::string& path);

}  // namespace srt
