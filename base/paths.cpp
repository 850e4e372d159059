#include "base/paths.h"

#include <cctype>

namespace srt {

std::string extensionOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  return path.substr(dot);
}

std::string lowerExtension(const std::string& path) {
  std::string ext = extensionOf(path);
  for (char& c : ext) c = char(std::tolower((unsigned char)c));
  return ext;
}

std::string folderOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace srt
