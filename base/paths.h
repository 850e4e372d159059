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
// `text` with every byte that is not part of valid UTF-8 replaced by U+FFFD, so a file name with
// any bytes can go into a JSON file.
std::string validUtf8(const std::string& text);

}  // namespace srt
